// kernels/gemm/sm90/shape.hpp
//
// What an sm90 TS GEMM schedule depends on: numbers, no types. The K tile is one 128-byte row of
// the 128B swizzle (64 16-bit or 128 fp8 elements), and the epilogue stages D one 128-byte row per
// tile row, so every byte count below is the same for every element type — which is what lets one
// schedule, verified once, serve every dtype and operand layout (schedule_unit.hpp).
#pragma once

#include <string_view>

#include "warploom/ts/schedule_unit.hpp"  // ts::ScheduleText

namespace warploom::gemm::sm90 {

// Shared memory a schedule of this shape asks for: the A/B ring and `slots` accumulator tiles'
// staging buffers (ping-pong has two), without the few hundred bytes of barriers. The verifier
// checks the exact layout (R-D21); the host uses this to refuse a configuration with the numbers.
constexpr long long smem_payload_bytes(int tile_m, int tile_n, int stages, int staging_buffers,
                                       int slots) {
  return static_cast<long long>(stages) * (tile_m + tile_n) * 128 +
         static_cast<long long>(slots) * staging_buffers * tile_m * 128;
}

// kTileM x kTileN: one accumulator tile (of all the MMA warpgroups that share it); kStages: the
// A/B ring; kStagingBuffers: epilogue subtiles in flight per accumulator tile; kClusterSize: CTAs
// whose TMA loads multicast into each other's stages (1 or 2); kFinishTask: the epilogue's second
// pass over each staged subtile (an activation, a residual, the pre-activation output) and its
// store run in a task of their own on the load warpgroup's spare warps (pingpong.hpp), not in the
// MMA warpgroups.
template <int kTileM_, int kTileN_, int kStages_, int kStagingBuffers_, int kClusterSize_,
          bool kFinishTask_ = false>
struct Shape {
  static constexpr int kTileM = kTileM_;
  static constexpr int kTileN = kTileN_;
  static constexpr int kStages = kStages_;
  static constexpr int kStagingBuffers = kStagingBuffers_;
  static constexpr int kClusterSize = kClusterSize_;
  static constexpr bool kFinishTask = kFinishTask_;

  static constexpr int kTileKBytes = 128;  // one 128B-swizzle row of A and of B per tile row
  static constexpr int kBytesA = kTileM * kTileKBytes;  // per stage
  static constexpr int kBytesB = kTileN * kTileKBytes;
  static constexpr int kStageBytes = kBytesA + kBytesB;
  static constexpr int kStagingBytes = kTileM * 128;  // one kTileM x 128-byte subtile of D

  static_assert(kTileM % 64 == 0 && kTileN % 64 == 0, "wgmma tiles are multiples of 64");
  static_assert(kStages >= 2, "a ring needs two stages to overlap TMA and wgmma");
  static_assert(kStagingBuffers == 1 || kStagingBuffers == 2);
  static_assert(kClusterSize == 1 || kClusterSize == 2, "clusters of 1 or 2 CTAs");
};

// What a schedule's shape may differ in from its design's default shape.
struct ShapeChoice {
  int stages, staging_buffers, cluster_size, tile_n;
  bool finish_task;
};

// A schedule's registry name: the design's name, then what differs from its default shape
// (`_s3`: 3 stages, `_b2`: 2 staging buffers, `_c2`: clusters of 2, `_n64`: 64-column tiles,
// `_f`: a finish task), e.g. "sm90_ts_gemm_c2" or "sm90_ts_gemm_s8_n64". The host also uses it to
// find a configuration's schedule unit.
constexpr ts::ScheduleText schedule_name(std::string_view design, ShapeChoice shape,
                                         ShapeChoice defaults) {
  ts::ScheduleText n = ts::schedule_text(design);
  if (shape.stages != defaults.stages) n = ts::schedule_text(n, "_s", shape.stages);
  if (shape.staging_buffers != defaults.staging_buffers)
    n = ts::schedule_text(n, "_b", shape.staging_buffers);
  if (shape.cluster_size != 1) n = ts::schedule_text(n, "_c", shape.cluster_size);
  if (shape.tile_n != defaults.tile_n) n = ts::schedule_text(n, "_n", shape.tile_n);
  if (shape.finish_task) n = ts::schedule_text(n, "_f");
  return n;
}

template <class S>
constexpr ShapeChoice shape_choice() {
  return {S::kStages, S::kStagingBuffers, S::kClusterSize, S::kTileN, S::kFinishTask};
}

// The name of schedule shape S of a design whose default shape is `Default`.
template <class S, class Default>
constexpr ts::ScheduleText schedule_name(std::string_view design) {
  return schedule_name(design, shape_choice<S>(), shape_choice<Default>());
}

}  // namespace warploom::gemm::sm90
