// bench/gemm_plans.hpp
//
// The `gemm` family of `warploom bench`: D = A . B (batch 1, beta 0, D row-major) on M x N x K for
// --dtype bf16 | fp16 | e4m3 | e5m2 (fp8: D bf16, per-tensor scales) and --layout tn | nn | nt | tt
// (BLAS letters: "tn" is A row-major, B column-major), and --epilogue none | bias | bias_relu |
// bias_gelu | bias_gelu_tanh | bias_silu (a bias per column of D, of D's type, then the
// activation: a Linear layer's). Providers, in the order they run:
//
//   warploom          gemm(): the sm90 TS GEMM (Auto design), or the SIMT TS GEMM off its rules;
//                     the epilogue fused; tuning space: design x cluster, raster panel 1 / 16,
//                     and for bf16 tn the stage-count variants
//   warploom_simt     gemm() with GemmKernel::Simt (on request: --providers; 25x slower)
//   warploom_plan     ops::Gemm, compiled once, on tensor views (on request: --providers)
//   warploom_plain    with an epilogue: gemm() without it (the cost of fusing; checked as such)
//   warploom_unfused  with an epilogue: gemm() without it, then a bias+activation kernel
//   cublas            cublasGemmEx (16-bit inputs); with an epilogue, then the bias+activation
//                     kernel: the unfused chain a framework runs
//   cublaslt          cublasLtMatmul, the heuristic's first candidate that runs (fp8: e4m3, tn);
//                     bias, bias+ReLU and bias+GELU through its own epilogues (GELU: tanh form)
//   cutlass           CUTLASS's sm90 CollectiveBuilder GEMM, cooperative 128x256x64, 2x1 clusters
//   cutlass_pp        the same, ping-pong 128x128x64 (both: 16-bit tn, K and N multiples of 8,
//                     no epilogue)
//
// Checked against the float64 reference on D's first and last 128 rows; the compute ceiling is
// cuBLASLt's 8192x8192x8192 GEMM of the problem's input type (e4m3 for e5m2), measured in the run.
#pragma once

#include <string_view>

#include "warploom/gemm.hpp"
#include "warploom/harness/kernel_plan.hpp"

namespace warploom::bench {

harness::PlanFamily gemm_plan_family();

// The `gemm()` tuning a harness tuning names: design (cooperative | pingpong), cluster (1x1 | 2x1 |
// 1x2), panel (raster panel height in tiles) and `variant`, a stage-count variant of
// bench/gemm_stage_variants.hpp. An unknown knob or value is refused, naming it and the knobs.
gemm::GemmTuning gemm_tuning(harness::Tuning const& t);

// Whether a GEMM family's provider is another library's kernel (PlanProvider::peer): ours are named
// warploom*, every other contender is a peer ours are compared with (gemm and grouped families).
constexpr bool is_peer(std::string_view provider) {
  return !provider.starts_with("warploom");
}

}  // namespace warploom::bench
