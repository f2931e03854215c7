# AddressSanitizer + UndefinedBehaviorSanitizer for the host code: every C++ compilation, the host
# pass of every .cu file, and every link. The `sanitize` preset (CMakePresets.json) includes this
# file through CMAKE_PROJECT_warploom_INCLUDE, that is right after project(warploom) and before
# any target exists, so the flags reach every target below the top directory, GoogleTest included
# (one instrumented world: no uninstrumented caller hides a bad access from the checks).
#
#   cmake --workflow --preset sanitize    configure, build the CPU test programs, run them
#
# Device code is not instrumented (compute-sanitizer is its tool: tools/gpu.sh). The programs
# still link the CUDA runtime, whose start-up maps memory where ASan's shadow gap lies: run them
# with ASAN_OPTIONS=protect_shadow_gap=0, as the `sanitize` test preset does.

#   -fno-omit-frame-pointer       whole stack traces in reports, cheaply
#   -fno-sanitize-recover=all     a UBSan finding stops the program: ctest reports a failure, not a
#                                 line in a log nobody reads
set(WARPLOOM_SANITIZE_FLAGS
    -fsanitize=address -fsanitize=undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
# GCC's manual (Instrumentation Options): "sanitizers tend to increase the rate of false positive
# warnings, most notably those around -Wmaybe-uninitialized". GCC 12 reports one inside
# libstdc++'s <regex> at -O1 with ASan (GCC PR 105616). The release build, uninstrumented, keeps
# that warning an error; here it is off, every other warning stays an error.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  list(APPEND WARPLOOM_SANITIZE_FLAGS -Wno-maybe-uninitialized)
endif()
list(JOIN WARPLOOM_SANITIZE_FLAGS "," _warploom_sanitize_host_flags)
add_compile_options(
  "$<$<COMPILE_LANGUAGE:CXX>:${WARPLOOM_SANITIZE_FLAGS}>"
  # nvcc knows none of these: they go to the host compiler; cicc never sees them.
  "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${_warploom_sanitize_host_flags}>")
# HOST_LINK: the programs' final link (by the host compiler, for CUDA targets too), not an nvcc
# device link, which would reject the flag.
add_link_options("$<HOST_LINK:-fsanitize=address;-fsanitize=undefined>")
message(STATUS "warploom: host code built with ${WARPLOOM_SANITIZE_FLAGS}")

# The index of the preset called `name` in the array `kind` of the presets JSON (-1: none).
function(_warploom_preset_index presets kind name out)
  set(index -1)
  string(JSON count LENGTH "${presets}" ${kind})
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON preset_name GET "${presets}" ${kind} ${i} name)
    if(preset_name STREQUAL name)
      set(index ${i})
    endif()
  endforeach()
  set(${out} ${index} PARENT_SCOPE)
endfunction()

# The sanitize build preset builds a list of CPU test programs and the sanitize test preset runs
# every cpu-labelled test its exclusions leave: a program in neither list is not built, and ctest
# reports it "Not Run" after the whole build. Refuse that at configure time, naming the program;
# CMakePresets.json is the one source of both lists.
function(_warploom_check_sanitize_preset)
  file(READ "${PROJECT_SOURCE_DIR}/CMakePresets.json" presets)
  _warploom_preset_index("${presets}" buildPresets sanitize build)
  _warploom_preset_index("${presets}" testPresets sanitize test)
  set(built "")
  string(JSON count LENGTH "${presets}" buildPresets ${build} targets)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON target GET "${presets}" buildPresets ${build} targets ${i})
    list(APPEND built ${target})
  endforeach()
  string(JSON excluded GET "${presets}" testPresets ${test} filter exclude name)
  get_property(programs GLOBAL PROPERTY WARPLOOM_CPU_TEST_PROGRAMS)
  set(missing "")
  foreach(program IN LISTS programs)
    if(NOT program IN_LIST built AND NOT program MATCHES "${excluded}")
      list(APPEND missing ${program})
    endif()
  endforeach()
  if(missing)
    list(JOIN missing ", " missing)
    message(FATAL_ERROR "CMakePresets.json: the sanitize test preset runs ${missing}, which the "
                        "sanitize build preset does not build: add each to the build preset's "
                        "targets, or to the test preset's filter.exclude.name")
  endif()
endfunction()
cmake_language(DEFER DIRECTORY "${PROJECT_SOURCE_DIR}" CALL _warploom_check_sanitize_preset)
