// bench/gemm_plans.hpp
//
// The `gemm` family of `warploom bench`: D = A . B (batch 1, beta 0, D row-major) on M x N x K for
// --dtype bf16 | fp16 | e4m3 | e5m2 (fp8: D bf16, per-tensor scales) and --layout tn | nn | nt | tt
// (BLAS letters: "tn" is A row-major, B column-major). Providers, in the order they run:
//
//   warploom       gemm(): the sm90 TS GEMM (Auto design), or the SIMT TS GEMM off its rules;
//                  tuning space: design x cluster, raster panel 1 / 16, and for bf16 tn the
//                  stage-count variants
//   warploom_simt  gemm() with GemmKernel::Simt (on request: --providers; 25x slower)
//   cublas         cublasGemmEx (16-bit inputs)
//   cublaslt       cublasLtMatmul, the heuristic's first candidate that runs (fp8: e4m3, tn)
//   cutlass        CUTLASS's sm90 CollectiveBuilder GEMM, cooperative 128x256x64, 2x1 clusters
//   cutlass_pp     the same, ping-pong 128x128x64 (both: 16-bit tn, K and N multiples of 8)
//
// Checked against the float64 reference on D's first and last 128 rows; the compute ceiling is
// cuBLASLt's 8192x8192x8192 GEMM of the problem's input type (e4m3 for e5m2), measured in the run.
#pragma once

#include "warploom/harness/kernel_plan.hpp"

namespace warploom::bench {

harness::PlanFamily gemm_plan_family();

}  // namespace warploom::bench
