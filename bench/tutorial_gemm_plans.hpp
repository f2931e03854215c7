// bench/tutorial_gemm_plans.hpp
//
// The tutorials' GEMMs for the benchmark harness, bf16 D = A . B^T ("tn"), each beside what it is
// measured against:
//   fork_gemm_relu  tutorial 07/04 (D and R = max(A, 0), A read once through a ts::Fork) against
//                   gemm() then a ReLU kernel reading A again
//   merge_gemm_residual  tutorial 07/03 (D = A . B^T + R, two ts::Merge groups) against gemm()
//                   then an add kernel (D += R), and gemm() with its fused residual epilogue
//   split_k_gemm    tutorial 06 (a cluster of CTAs along K, partials summed through DSMEM), every
//                   split_k a tuning point, against gemm(), cuBLAS and cuBLASLt (the seed measures
//                   cuBLAS on 1024 x 16 x K)
//   pdl_gemm_chain  tutorial 04/01 (a GEMM in 2 x 1 clusters multicasting B) twice, D1 = A . B^T
//                   then D2 = D1 . C^T, the second with and without programmatic dependent
//                   launch, against gemm() twice and cuBLAS twice (bench/pdl_gemm_plans.cpp)
#pragma once

#include "warploom/harness/kernel_plan.hpp"

namespace warploom::tutorial {

// Extents: {m, n, k}; m and n multiples of 128, k of 64 (the fork GEMM's tile).
harness::PlanFamily fork_gemm_relu_plan_family();
// Extents: {m, n, k}; m and n multiples of 128, k of 64 (the tile of 07/03's GEMM).
harness::PlanFamily merge_gemm_residual_plan_family();
// Extents: {m, n, k}; m and n multiples of 128, k of 64 (the tile of 07/02's GEMM).
harness::PlanFamily merge_gemm_plan_family();
// Extents: {m, n, k}; m a multiple of 128, n of 16, k of 64 x split_k.
harness::PlanFamily split_k_gemm_plan_family();
// Extents: {m, n, k}; k = n (both GEMMs m x n x k); for ts_pdl and ts_plain m a multiple of 256
// and n of 128.
harness::PlanFamily pdl_gemm_chain_plan_family();

}  // namespace warploom::tutorial
