# Third-party dependencies. Everything but the CUDA toolkit comes from the dependency folder
# that tools/bootstrap.sh fills; none of it is fetched at configure time, so a machine
# without network builds from a copied folder.
#
# Sets WARPLOOM_DEPS_DIR, WARPLOOM_SYSTEM_INCLUDE_DIRS (third-party headers),
# WARPLOOM_CUOBJDUMP (cuobjdump for SASS checks, or ...-NOTFOUND) and defines the
# GoogleTest targets (GTest::gtest, GTest::gtest_main, GTest::gmock).

set(WARPLOOM_DEPS_DIR "${PROJECT_SOURCE_DIR}/.deps"
    CACHE PATH "Folder filled by tools/bootstrap.sh (CUTLASS, GoogleTest, host headers)")

set(WARPLOOM_CUTLASS_INCLUDE_DIRS
    "${WARPLOOM_DEPS_DIR}/cutlass/include"
    "${WARPLOOM_DEPS_DIR}/cutlass/tools/util/include")
set(WARPLOOM_SYSROOT_INCLUDE_DIR "${WARPLOOM_DEPS_DIR}/sysroot/usr/include")
set(WARPLOOM_GOOGLETEST_DIR "${WARPLOOM_DEPS_DIR}/googletest")

foreach(required IN ITEMS
    "${WARPLOOM_DEPS_DIR}/cutlass/include/cute/tensor.hpp"
    "${WARPLOOM_DEPS_DIR}/cutlass/tools/util/include/cutlass/util"
    "${WARPLOOM_SYSROOT_INCLUDE_DIR}/fmt/format.h"
    "${WARPLOOM_GOOGLETEST_DIR}/CMakeLists.txt")
  if(NOT EXISTS "${required}")
    message(FATAL_ERROR
      "warploom: missing ${required}\n"
      "The third-party headers and sources are not installed in "
      "WARPLOOM_DEPS_DIR=${WARPLOOM_DEPS_DIR}. Run\n"
      "    tools/bootstrap.sh\n"
      "from the repository root (or copy a bootstrapped .deps/ folder there), then "
      "configure again.")
  endif()
endforeach()

# cuobjdump (and the nvdisasm it runs) for SASS checks; the toolkit has no disassembler.
find_program(WARPLOOM_CUOBJDUMP cuobjdump HINTS "${WARPLOOM_DEPS_DIR}/bin" NO_DEFAULT_PATH)
find_program(WARPLOOM_CUOBJDUMP cuobjdump)

find_package(CUDAToolkit REQUIRED)
# Programs find the toolkit's libcudart.so wherever the toolkit lives, even where the
# loader is not configured for it (CMake leaves out directories it deems implicit).
list(APPEND CMAKE_BUILD_RPATH "${CUDAToolkit_LIBRARY_DIR}")

# CUDA 13 keeps CCCL (cuda/std, cuda/ptx, cub, thrust) in include/cccl. nvcc adds it by
# itself; the host compiler needs it spelled out.
set(WARPLOOM_CCCL_INCLUDE_DIRS "")
foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
  if(IS_DIRECTORY "${dir}/cccl")
    list(APPEND WARPLOOM_CCCL_INCLUDE_DIRS "${dir}/cccl")
  endif()
endforeach()

# Headers of other projects: included as SYSTEM so that their warnings do not fail our
# warnings-as-errors build.
set(WARPLOOM_SYSTEM_INCLUDE_DIRS
    ${WARPLOOM_CUTLASS_INCLUDE_DIRS}
    "${WARPLOOM_SYSROOT_INCLUDE_DIR}"
    ${WARPLOOM_CCCL_INCLUDE_DIRS})

# ccache, when the machine has it (tools/bootstrap.sh tries to install it); set before any
# target exists, GoogleTest's included.
option(WARPLOOM_USE_CCACHE "Compile through ccache when it is found" ON)
if(WARPLOOM_USE_CCACHE)
  find_program(WARPLOOM_CCACHE ccache)
  if(WARPLOOM_CCACHE)
    foreach(lang IN ITEMS CXX CUDA)
      if(NOT DEFINED CMAKE_${lang}_COMPILER_LAUNCHER)
        set(CMAKE_${lang}_COMPILER_LAUNCHER "${WARPLOOM_CCACHE}")
      endif()
    endforeach()
  endif()
endif()

# GoogleTest from the sources Debian ships; SYSTEM makes its include dirs system ones for
# the tests that link it. It is added before WarploomFlags.cmake so that our strict
# warning flags do not apply to it.
set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
set(BUILD_GMOCK ON CACHE BOOL "" FORCE)
# Its cmake_minimum_required(3.5) is deprecated by newer CMake; the policies are fine.
set(CMAKE_POLICY_VERSION_MINIMUM 3.10)
add_subdirectory("${WARPLOOM_GOOGLETEST_DIR}" "${CMAKE_BINARY_DIR}/_deps/googletest"
                 EXCLUDE_FROM_ALL SYSTEM)
unset(CMAKE_POLICY_VERSION_MINIMUM)
