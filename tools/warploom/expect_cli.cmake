# tools/warploom/expect_cli.cmake — runs one `warploom` command line for ctest and asserts its
# exact exit code and, when given, a pattern its output (stdout and stderr together) must match.
# ctest's PASS_REGULAR_EXPRESSION alone ignores the exit code, which is half of the contract
# (docs/cli.md).
#
#   cmake -DEXPECTED_EXIT=2 [-DEXPECTED_OUTPUT=regex] [-DSKIP_EXIT=77] -P expect_cli.cmake --
#         <warploom> <arguments>...
#
# With SKIP_EXIT, that exit code prints "SKIPPED: ..." instead of failing, for tests that need a
# GPU (set SKIP_REGULAR_EXPRESSION to match it).
cmake_minimum_required(VERSION 3.25)

# The command line is everything after `--` (which stops cmake itself from reading its options).
set(command)
set(seen_separator FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 1 ${last})
  if(seen_separator)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(seen_separator TRUE)
  endif()
endforeach()
if(NOT command OR NOT DEFINED EXPECTED_EXIT)
  message(FATAL_ERROR "usage: cmake -DEXPECTED_EXIT=N [-DEXPECTED_OUTPUT=regex] -P "
                      "expect_cli.cmake -- <command>...")
endif()

execute_process(COMMAND ${command} RESULT_VARIABLE exit_code OUTPUT_VARIABLE output
                ERROR_VARIABLE output)
message("${output}")
string(REPLACE ";" " " shown "${command}")
if(DEFINED SKIP_EXIT AND exit_code EQUAL SKIP_EXIT)
  message("SKIPPED: `${shown}` exited ${exit_code}")
  return()
endif()
if(NOT exit_code STREQUAL EXPECTED_EXIT)
  message(FATAL_ERROR "`${shown}` exited ${exit_code}; expected ${EXPECTED_EXIT}")
endif()
if(DEFINED EXPECTED_OUTPUT AND NOT output MATCHES "${EXPECTED_OUTPUT}")
  message(FATAL_ERROR "the output of `${shown}` does not match `${EXPECTED_OUTPUT}`")
endif()
