# WARPLOOM_PREBUILT=<prefix>: configure the Python package alone, against a warploom already
# installed at <prefix> (`cmake --install build/release --prefix <prefix>`) — the CUDA GEMM library
# is linked, not compiled again (minutes of nvcc on 16 cores, ~20 on CI's two). What the GPU
# machine's tools/python_gpu_check.sh passes to pip:
#
#   pip install --no-build-isolation -C cmake.define.WARPLOOM_PREBUILT=<prefix> .
#
# Only CXX is enabled (no nvcc needed); the headers the binding includes besides warploom's own
# (dlpack.h, fmt) come from the dependency folder, .deps/ (tools/bootstrap.sh), as in the full build.

find_package(warploom 0.1 CONFIG REQUIRED PATHS "${WARPLOOM_PREBUILT}" NO_DEFAULT_PATH)
message(STATUS "warploom: the Python package only, against the warploom installed at "
               "${WARPLOOM_PREBUILT}")

set(WARPLOOM_DEPS_DIR "${PROJECT_SOURCE_DIR}/.deps"
    CACHE PATH "The dependency folder tools/bootstrap.sh fills")
set(WARPLOOM_SYSTEM_INCLUDE_DIRS "${WARPLOOM_DEPS_DIR}/sysroot/usr/include")
if(NOT EXISTS "${WARPLOOM_DEPS_DIR}/sysroot/usr/include/dlpack/dlpack.h")
  message(FATAL_ERROR "WARPLOOM_PREBUILT: ${WARPLOOM_DEPS_DIR} has no dlpack.h: run "
                      "tools/bootstrap.sh (or carry .deps/)")
endif()
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(WARPLOOM_TEST_TIMEOUT 300)  # as WarploomTesting.cmake: the pytest suites become ctest tests
enable_testing()

include(WarploomPython)
if(NOT WARPLOOM_BUILD_PYTHON)
  message(FATAL_ERROR "WARPLOOM_PREBUILT builds the Python package only, and it cannot be built "
                      "here (see above)")
endif()
add_subdirectory(python)
