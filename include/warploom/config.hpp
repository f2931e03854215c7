// warploom/config.hpp
//
// Execution-space and inlining macros shared by every warploom header. Headers must compile with a
// plain C++20 host compiler (the verifier, the CLI and the CPU tests never see nvcc), so the CUDA
// keywords collapse to nothing there.
#pragma once

#if defined(__CUDACC__)
#define WL_HOST_DEVICE __host__ __device__ __forceinline__
#define WL_DEVICE __device__ __forceinline__
#else
#define WL_HOST_DEVICE inline
#define WL_DEVICE inline
#endif

// True while nvcc compiles device code (the second of its two passes over a .cu file).
#if defined(__CUDA_ARCH__)
#define WL_DEVICE_PASS 1
#else
#define WL_DEVICE_PASS 0
#endif
