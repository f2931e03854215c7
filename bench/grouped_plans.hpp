// bench/grouped_plans.hpp
//
// The `grouped` family of `warploom bench`: many GEMMs of their own M, N and K in one call. A
// problem is `groups x size` with --mix:
//
//   seed  seed 002's experiment: M, N and K of each group drawn from {128, 256, ..., size} (powers
//         of two) as Python's random.seed(2023) and random.choice draw them: 50x1024 is the
//         notebook's 50 problems exactly (harness::PythonRandom)
//   moe   an MoE layer: M_i = 256 * random.randint(1, 8) after random.seed(0) (bench/python/
//         grouped.py's experts), N = K = size, A stacked along M
//
// --dtype fp16 | bf16, --layout tt | tn (BLAS letters; tt: every operand row-major, the seed's).
// Providers, in the order they run:
//
//   warploom       gemm::grouped_gemm: one launch of the sm90 grouped kernel
//   warploom_loop  gemm() per group, in order on the stream
//   cublas         cublasGemmEx per group: the loop a framework runs
//   cublas_grouped cublasGemmGroupedBatchedEx: every group in one cuBLAS call
//   cutlass_grouped CUTLASS's sm90 pointer-array grouped GEMM (fp16 tt and bf16 tn compiled)
//
// Checked against the float64 reference on every group's first and last 128 rows; the compute
// ceiling is cuBLASLt's 8192^3 GEMM of the input type, measured in the run.
#pragma once

#include "warploom/harness/kernel_plan.hpp"

namespace warploom::bench {

harness::PlanFamily grouped_plan_family();

}  // namespace warploom::bench
