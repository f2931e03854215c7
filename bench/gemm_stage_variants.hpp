// bench/gemm_stage_variants.hpp
//
// The sm90 TS GEMM with stage counts other than the library's (cooperative: 4 stages; ping-pong:
// 6 stages, one epilogue staging buffer per warpgroup), for the stage ablation of
// docs/kernels/sm90_ts_gemm.md. bf16 "tn" (both operands K-major), row-major bf16 D, 1x1 clusters
// (the default).
#pragma once

#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "gemm/gemm.hpp"

namespace warploom::bench {

// One compiled configuration: its name (e.g. "coop_s3": cooperative, 3 stages; "pp_s5b2":
// ping-pong, 5 stages, 2 epilogue staging buffers per warpgroup) and its launcher, which takes
// resolved arguments.
struct StageVariant {
  std::string name;
  void (*launch)(gemm::GemmArguments const&, gemm::GemmTuning const&, cudaStream_t);
};

// The compiled variants (the library's own configurations are not among them).
std::vector<StageVariant> const& stage_variants();

// Runs variant `v` on `args` (checked: bf16 inputs and output, A row-major, B column-major,
// row-major D; throws std::invalid_argument otherwise) with `tuning`'s raster and grid knobs.
void run_stage_variant(StageVariant const& v, gemm::GemmArguments const& args,
                       gemm::GemmTuning const& tuning, cudaStream_t stream);

}  // namespace warploom::bench
