# cmake -D SPEC=<spec.cmake> -P WarploomCompileFail.cmake
# Runs the compile command of a warploom_add_compile_fail_test and passes when it fails
# with output matching the expected regex. The spec (written at configure time) sets
# `command`, `regex`, `source` and `work_dir`.
include("${SPEC}")
file(MAKE_DIRECTORY "${work_dir}")
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE output
                ERROR_VARIABLE output)
list(JOIN command " " command_line)
if(rc STREQUAL "0")
  message(FATAL_ERROR "${source} compiled, but must fail with an error matching\n"
                      "  ${regex}\ncommand: ${command_line}\n${output}")
endif()
if(NOT output MATCHES "${regex}")
  message(FATAL_ERROR "${source} failed to compile, but not with an error matching\n"
                      "  ${regex}\ncommand: ${command_line}\noutput:\n${output}")
endif()
message(STATUS "${source}: fails to compile as expected (matches ${regex})")
