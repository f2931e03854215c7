// kernels/gemm/split_k_reduce.hpp
//
// Split-K's second kernel (src/gemm/split_k.cpp runs the first: the tensor-core GEMM over slices
// of K, each writing its fp32 partial sums to a workspace): D = alpha * (the slices' partial sums
// added in slice order) + beta * C, for one row-major M x N matrix of the kernel's view — or of
// its transpose, where the slices computed D^T = B^T . A^T (small M: split_k.hpp). The order is
// fixed, so a split GEMM gives the same bits on every run.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "gemm/split_k_output.hpp"

namespace warploom::gemm {

struct SplitKReduce {
  // slices x (m x n), row-major: element (i, j) of slice s at s * slice_stride + i * ld + j;
  // 16-byte aligned, ld and slice_stride multiples of 4 (whole float4s).
  float const* partials = nullptr;
  std::int64_t ld = 0, slice_stride = 0;
  int slices = 0;
  SplitKOutput out;  // the partial sums are out.m x out.n
};

// Enqueues the reduction on `stream`.
void launch_split_k_reduce(SplitKReduce const& p, cudaStream_t stream);

}  // namespace warploom::gemm
