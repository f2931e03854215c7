# Compiler flags. Included after the third-party targets (GoogleTest) and before any of
# ours, so that the warnings-as-errors options below reach exactly our own code: every
# target created afterwards in this directory or a subdirectory gets them.
#
# The flags are also kept in lists (command-line words) for warploom_add_compile_fail_test,
# which runs the compilers by hand.

set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
include(WarploomCudaStd20)  # cuda_std_20 for nvcc >= 12 on CMake 3.25
set(CMAKE_CUDA_STANDARD 20)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
set(CMAKE_CUDA_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
# Every static library may end up in a shared one (libwarploom_gemm.so links the host code and the
# schedule units).
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
# The shared CUDA runtime everywhere: CMake's default for CUDA targets is the static one,
# which next to CUDA::cudart (shared, via warploom::warploom) would put two runtimes in
# one program.
set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)

set(WARPLOOM_CUDA_GENCODES "arch=compute_90a,code=sm_90a"
    CACHE STRING "Values for nvcc -gencode (a list), used instead of CUDA_ARCHITECTURES")

# Every CUDA compilation, in every build type:
#   -DNDEBUG  CUTLASS device asserts make ptxas serialize wgmma (warning C7510, ~9% on an
#             H200 GEMM). nvcc defines it for the host pass of .cu files too.
#   -lineinfo source lines in SASS for ncu and compute-sanitizer, at no cost in speed.
set(WARPLOOM_CUDA_FLAGS --expt-relaxed-constexpr -DNDEBUG -lineinfo)
foreach(gencode IN LISTS WARPLOOM_CUDA_GENCODES)
  list(APPEND WARPLOOM_CUDA_FLAGS -gencode "${gencode}")
endforeach()

# What the host compiler alone needs to compile host code against CuTe's TMA as nvcc's host pass
# does (a JIT launcher of a kernel NVRTC compiles, kernels/gemm/sm90/launch.cuh): nvcc tells its
# host compiler its version, and CuTe (copy_sm90_desc.hpp, copy_traits_sm90_tma.hpp) encodes TMA
# descriptors, as CUtensorMap, only where __CUDACC_VER_MAJOR__ >= 12 — without them it leaves the
# descriptors zero, and the kernel's first TMA is an illegal instruction. CCCL keys its CUDA paths
# off __NVCC__ and __CUDACC__, which stay undefined.
string(REGEX MATCH "^([0-9]+)\\.([0-9]+)\\.([0-9]+)" _wl_cuda_version
       "${CMAKE_CUDA_COMPILER_VERSION}")
set(WARPLOOM_HOST_LAUNCHER_DEFINITIONS __CUDACC_VER_MAJOR__=${CMAKE_MATCH_1}
    __CUDACC_VER_MINOR__=${CMAKE_MATCH_2} __CUDACC_VER_BUILD__=${CMAKE_MATCH_3})

# -Wno-stringop-overflow: GCC 13 at -O3 reports "writing 1 byte into a region of size 0" inside
# std::vector<T>::push_back of small aggregates once the verifier's model builder is inlined into
# one function (a known false positive of that warning, e.g. GCC PR 109717 / 107852); GCC 12
# does not. -Wno-array-bounds on GCC 13 only: it reports "forming offset 4 is out of the bounds
# [0, 4]" in std::copy inlined from fmt 9's bigint (format_dragon, the float formatter of
# header-only fmt) into src/ops/gemm.cpp (the same family of false positives, GCC PR 107986); GCC
# 12, which CI runs, keeps the warning as an error. Every other warning stays an error.
set(WARPLOOM_CXX_WARNING_FLAGS -Wall -Wextra -Werror)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  list(APPEND WARPLOOM_CXX_WARNING_FLAGS -Wno-stringop-overflow)
  if(CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 13)
    list(APPEND WARPLOOM_CXX_WARNING_FLAGS -Wno-array-bounds)
  endif()
endif()
list(JOIN WARPLOOM_CXX_WARNING_FLAGS "," _warploom_host_warnings)
set(WARPLOOM_CUDA_WARNING_FLAGS -Werror all-warnings "-Xcompiler=${_warploom_host_warnings}")

# The architecture flags go into CMAKE_CUDA_FLAGS so that a device-link step (separable
# compilation) sees them too; third-party code has no CUDA sources for them to upset.
list(JOIN WARPLOOM_CUDA_FLAGS " " _warploom_cuda_flags)
string(APPEND CMAKE_CUDA_FLAGS " ${_warploom_cuda_flags}")

list(JOIN WARPLOOM_CUDA_WARNING_FLAGS " " _warploom_cuda_warnings)
add_compile_options(
  "$<$<COMPILE_LANGUAGE:CXX>:${WARPLOOM_CXX_WARNING_FLAGS}>"
  "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:${_warploom_cuda_warnings}>")
