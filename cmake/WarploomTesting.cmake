# Test helpers. Each test executable is one ctest entry (no per-case discovery: it keeps
# configure and CI fast), labelled `cpu` or `gpu`.
#
#   warploom_add_cpu_test(NAME <name> SOURCES <files...> [LIBS <libs...>])
#       host test linked with GoogleTest's main and warploom::warploom; label cpu.
#   warploom_add_gpu_test(NAME <name> SOURCES <files...> [LIBS <libs...>])
#       test that may have .cu sources, linked with GoogleTest and
#       tests/support/gpu_test_main.cpp, which exits 77 (ctest: skipped) without an sm_90
#       device; label gpu. Don't link warploom::cuda_driver into one: where only the stub
#       libcuda exists the test could not even start, let alone skip.
#   warploom_add_compile_fail_test(NAME <name> SOURCE <file> REGEX <regex> [DEFINES <defs...>])
#       compiles <file> (g++ for .cpp, nvcc for .cu) with warploom::warploom's include dirs
#       and our flags, plus -D<def> for each DEFINES; passes when compilation fails with
#       output matching <regex> (a CMake regex); label cpu.
#
# Tests time out after 300 s; set_tests_properties(<name> PROPERTIES TIMEOUT ...) changes it.

enable_testing()

set(WARPLOOM_TEST_TIMEOUT 300)

add_library(warploom_gpu_test_main STATIC EXCLUDE_FROM_ALL
            "${PROJECT_SOURCE_DIR}/tests/support/gpu_test_main.cpp")
target_link_libraries(warploom_gpu_test_main PUBLIC GTest::gtest CUDA::cudart)

# _warploom_add_test(<label> <name> <test libraries...>): the executable arg_NAME from
# arg_SOURCES, linked with warploom::warploom, the test libraries and arg_LIBS.
function(_warploom_add_test label)
  add_executable(${arg_NAME} ${arg_SOURCES})
  target_link_libraries(${arg_NAME} PRIVATE warploom::warploom ${ARGN} ${arg_LIBS})
  add_test(NAME ${arg_NAME} COMMAND ${arg_NAME})
  set_tests_properties(${arg_NAME} PROPERTIES LABELS ${label} TIMEOUT ${WARPLOOM_TEST_TIMEOUT})
endfunction()

function(warploom_add_cpu_test)
  _warploom_parse_target_args(warploom_add_cpu_test ${ARGN})
  _warploom_add_test(cpu GTest::gtest_main)
  # For the sanitize preset's check that it builds every CPU test program it runs.
  set_property(GLOBAL APPEND PROPERTY WARPLOOM_CPU_TEST_PROGRAMS ${arg_NAME})
endfunction()

function(warploom_add_gpu_test)
  _warploom_parse_target_args(warploom_add_gpu_test ${ARGN})
  _warploom_add_test(gpu warploom_gpu_test_main)
  set_tests_properties(${arg_NAME} PROPERTIES SKIP_RETURN_CODE 77)
endfunction()

# RAISED_CONSTEXPR_LIMITS: a C++ case compiles with the constant-evaluation limits
# warploom::warploom carries (cmake/WarploomTargets.cmake), as a gate larger than GCC's or Clang's
# default budget needs; without them the case would fail on the budget, not on its rule.
function(warploom_add_compile_fail_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "RAISED_CONSTEXPR_LIMITS" "NAME;SOURCE;REGEX" "DEFINES")
  if(NOT arg_NAME OR NOT arg_SOURCE OR NOT DEFINED arg_REGEX OR arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "usage: warploom_add_compile_fail_test(NAME <name> SOURCE <file> "
                        "REGEX <regex> [DEFINES <defs...>] [RAISED_CONSTEXPR_LIMITS]); got: "
                        "${ARGN}")
  endif()
  cmake_path(ABSOLUTE_PATH arg_SOURCE BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
             OUTPUT_VARIABLE source)
  set(work_dir "${CMAKE_CURRENT_BINARY_DIR}/compile_fail/${arg_NAME}")

  set(includes "-I${PROJECT_SOURCE_DIR}/include")
  foreach(dir IN LISTS WARPLOOM_SYSTEM_INCLUDE_DIRS)
    list(APPEND includes -isystem "${dir}")
  endforeach()
  set(defines -DFMT_HEADER_ONLY=1)
  foreach(define IN LISTS arg_DEFINES)
    list(APPEND defines "-D${define}")
  endforeach()

  if(source MATCHES "\\.cu$")
    set(command "${CMAKE_CUDA_COMPILER}")
    if(CMAKE_CUDA_HOST_COMPILER)
      list(APPEND command -ccbin "${CMAKE_CUDA_HOST_COMPILER}")
    endif()
    list(APPEND command -std=c++20 ${WARPLOOM_CUDA_FLAGS} ${WARPLOOM_CUDA_WARNING_FLAGS})
  else()
    set(command "${CMAKE_CXX_COMPILER}" -std=c++20 ${WARPLOOM_CXX_WARNING_FLAGS})
    if(arg_RAISED_CONSTEXPR_LIMITS AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      list(APPEND command -fconstexpr-ops-limit=4294967296)
    elseif(arg_RAISED_CONSTEXPR_LIMITS AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
      list(APPEND command -fconstexpr-steps=2147483647)
    endif()
    foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
      list(APPEND includes -isystem "${dir}")
    endforeach()
  endif()
  list(APPEND command ${includes} ${defines} -c "${source}" -o "${work_dir}/out.o")

  # The command and regex travel in a generated script, which spares them a round of
  # command-line quoting.
  set(spec "set(command")
  foreach(word IN LISTS command)
    string(APPEND spec "\n  [==[${word}]==]")
  endforeach()
  string(APPEND spec ")\nset(regex [==[${arg_REGEX}]==])\n"
                     "set(source [==[${source}]==])\nset(work_dir [==[${work_dir}]==])\n")
  file(WRITE "${work_dir}/spec.cmake" "${spec}")

  add_test(NAME ${arg_NAME}
           COMMAND "${CMAKE_COMMAND}" -D "SPEC=${work_dir}/spec.cmake"
                   -P "${PROJECT_SOURCE_DIR}/cmake/WarploomCompileFail.cmake")
  set_tests_properties(${arg_NAME} PROPERTIES LABELS cpu TIMEOUT ${WARPLOOM_TEST_TIMEOUT})
endfunction()
