// kernels/tutorial/stage_cursor.cuh
//
// The hand-written baselines' stage cursor: a stage index and the phase its barrier is waited on,
// wrapping (and flipping the phase) after the last stage, as ts::DevicePipeline's cursor does.
#pragma once

#include <cstdint>

namespace warploom::tutorial {

template <int kStages>
struct StageCursor {
  int stage = 0;
  std::uint32_t phase = 0;
  __device__ void advance() {
    if (++stage == kStages) {
      stage = 0;
      phase ^= 1u;
    }
  }
};

}  // namespace warploom::tutorial
