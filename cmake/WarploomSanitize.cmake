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
