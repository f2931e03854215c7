// bench/gemm_stage_variants.hpp
//
// The sm90 TS GEMM with stage counts other than the library's defaults (cooperative: 4 stages and
// 2 epilogue staging buffers; ping-pong: 6 stages, 1 buffer per warpgroup), for the stage ablation
// of docs/kernels/sm90_ts_gemm.md: GemmTuning's `stages` and `staging_buffers`. The build compiles
// them for bf16 "tn" (both operands K-major), row-major bf16 D and 1x1 clusters
// (WARPLOOM_GEMM_INSTANCES=all).
#pragma once

#include <string_view>

#include "warploom/gemm.hpp"

namespace warploom::bench {

struct StageVariant {
  std::string_view name;  // e.g. "coop_s3": cooperative, 3 stages; "pp_s5b2": ping-pong, 5 stages,
                          // 2 staging buffers per warpgroup
  gemm::ConsumerDesign design;
  int stages;
  int staging_buffers;

  // `tuning` with this variant's design and stages.
  constexpr gemm::GemmTuning applied_to(gemm::GemmTuning tuning) const {
    tuning.design = design;
    tuning.stages = stages;
    tuning.staging_buffers = staging_buffers;
    return tuning;
  }
};

inline constexpr StageVariant kStageVariants[] = {
    {"coop_s2", gemm::ConsumerDesign::Cooperative, 2, 2},
    {"coop_s3", gemm::ConsumerDesign::Cooperative, 3, 2},
    {"pp_s4", gemm::ConsumerDesign::PingPong, 4, 1},
    {"pp_s5b2", gemm::ConsumerDesign::PingPong, 5, 2},
};

}  // namespace warploom::bench
