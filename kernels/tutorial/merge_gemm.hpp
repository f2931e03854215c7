// kernels/tutorial/merge_gemm.hpp
//
// Host API of tutorial 07's merge GEMM (07_merge_gemm.cu, merge_gemm_schedule.cuh), the seed's
// 07/02: D = relu(A . B^T) for bf16 matrices, A reaching shared memory through load warps'
// registers and B by TMA, both rings released at once by the wgmma warpgroup through one
// ts::Merge group (warploom/ts/pipeline_group.hpp).
//
// Layouts: A row-major M x K with leading dimension lda (row r starts lda elements after row r-1),
// B stored N x K row-major (both K-major: the "tn" GEMM), D row-major M x N. A . B^T is
// accumulated in fp32; D = max(acc, 0) rounded to bf16 once (the seed's StoreReLU).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "warploom/ts/model.hpp"

namespace warploom::tutorial {

// One CTA per kMergeGemmTileM x kMergeGemmTileN tile of D, K in steps of kMergeGemmTileK.
inline constexpr int kMergeGemmTileM = 128;
inline constexpr int kMergeGemmTileN = 128;
inline constexpr int kMergeGemmTileK = 64;

// Throws std::invalid_argument naming the argument and the rule: m and n positive multiples of
// 128, k a positive multiple of 64, lda >= k and a multiple of 8 (16-byte rows: the load warps'
// loads are 16 bytes), m x lda, n x k and m x n below 2^31, every pointer non-null and 16-byte
// aligned, and d sharing no byte with a or b.
void check_merge_gemm_args(__nv_bfloat16 const* a, int lda, __nv_bfloat16 const* b,
                           __nv_bfloat16 const* d, int m, int n, int k);

// d = max(a . b^T, 0) (fp32 accumulation, one rounding to bf16).
void merge_gemm(__nv_bfloat16 const* a, int lda, __nv_bfloat16 const* b, __nv_bfloat16* d, int m,
                int n, int k, cudaStream_t stream = nullptr);

// The TaskManager, as the verifier sees it.
ts::ManagerModel merge_gemm_model();

}  // namespace warploom::tutorial
