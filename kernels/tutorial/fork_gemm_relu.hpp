// kernels/tutorial/fork_gemm_relu.hpp
//
// Host API of tutorial 07's Fork GEMM (07_fork_gemm_relu.cu, fork_gemm_relu_schedule.cuh), the
// seed's 07/04: D = A . B^T and R = max(A, 0) for bf16 matrices, A's tiles loaded once by TMA and
// read by two tasks — the wgmma warpgroup and a task writing ReLU(A) — through a ts::Fork group
// (warploom/ts/pipeline_group.hpp) whose members alias one shared-memory buffer.
//
// Layouts: A row-major M x K, B stored N x K row-major (both K-major: the "tn" GEMM), D row-major
// M x N (fp32 accumulation, rounded to bf16 once), R row-major M x K.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "warploom/ts/model.hpp"

namespace warploom::tutorial {

// One CTA per kForkGemmReluTileM x kForkGemmReluTileN tile of D, K in steps of
// kForkGemmReluTileK.
inline constexpr int kForkGemmReluTileM = 128;
inline constexpr int kForkGemmReluTileN = 128;
inline constexpr int kForkGemmReluTileK = 64;

// Throws std::invalid_argument naming the argument and the rule: m and n positive multiples of
// 128, k a positive multiple of 64, m x k, n x k and m x n below 2^31, every pointer non-null and
// 16-byte aligned, and d and r sharing no byte with a, b or each other.
void check_fork_gemm_relu_args(__nv_bfloat16 const* a, __nv_bfloat16 const* b,
                               __nv_bfloat16 const* d, __nv_bfloat16 const* r, int m, int n, int k);

// d = a . b^T (fp32 accumulation) and r = max(a, +0) (__hmax2), reading a once.
void fork_gemm_relu(__nv_bfloat16 const* a, __nv_bfloat16 const* b, __nv_bfloat16* d,
                    __nv_bfloat16* r, int m, int n, int k, cudaStream_t stream = nullptr);

// The TaskManager, as the verifier sees it.
ts::ManagerModel fork_gemm_relu_model();

}  // namespace warploom::tutorial
