// kernels/tutorial/merge_gemm_residual.hpp
//
// Host API of tutorial 07's GEMM + residual (07_merge_gemm_residual.cu,
// merge_gemm_residual_schedule.cuh), the seed's 07/03: D = A . B^T + R for bf16 matrices in one
// kernel, through two ts::Merge groups (warploom/ts/pipeline_group.hpp): A's and B's TMA rings,
// released at once by the wgmma warpgroup, and the accumulator tile handed to an epilogue
// warpgroup beside R's tile, released at once by the epilogue.
//
// Layouts: A row-major M x K, B stored N x K row-major (both K-major: the "tn" GEMM), R and D
// row-major M x N. A . B^T is accumulated in fp32, R added in fp32, D rounded to bf16 once.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "warploom/ts/model.hpp"

namespace warploom::tutorial {

// One CTA per kMergeGemmResidualTileM x kMergeGemmResidualTileN tile of D, K in steps of
// kMergeGemmResidualTileK.
inline constexpr int kMergeGemmResidualTileM = 128;
inline constexpr int kMergeGemmResidualTileN = 128;
inline constexpr int kMergeGemmResidualTileK = 64;

// Throws std::invalid_argument naming the argument and the rule: m and n positive multiples of
// 128, k a positive multiple of 64, m x k, n x k and m x n below 2^31, every pointer non-null and
// 16-byte aligned, and d sharing no byte with a, b or r.
void check_merge_gemm_residual_args(__nv_bfloat16 const* a, __nv_bfloat16 const* b,
                                    __nv_bfloat16 const* r, __nv_bfloat16 const* d, int m, int n,
                                    int k);

// d = a . b^T + r (fp32 accumulation and addition, one rounding to bf16).
void merge_gemm_residual(__nv_bfloat16 const* a, __nv_bfloat16 const* b, __nv_bfloat16 const* r,
                         __nv_bfloat16* d, int m, int n, int k, cudaStream_t stream = nullptr);

// The TaskManager, as the verifier sees it.
ts::ManagerModel merge_gemm_residual_model();

}  // namespace warploom::tutorial
