// kernels/tutorial/k_major_resources.cuh
//
// What tutorial 04's, 06's and 07's GEMMs share besides the K-major tiles of k_major_tiles.cuh:
// the output tile a CTA computes, and three TS resources: the K steps of a CTA's tile, the TMA
// ring of B's tiles that the wgmma reads beside A's, and the TMA ring of A's tiles whose `mma`
// issues that wgmma (Wgmma128x128).
#pragma once

#include "tutorial/k_major_tiles.cuh"  // Bf16, SwizzledLayout, tma_load_tile, Wgmma128x128
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/config.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial::k_major {

// The output tile a CTA computes.
struct OutputTile {
  int m = 0;  // in tiles of the kernel's kTileM rows
  int n = 0;  // in tiles of its kTileN columns

  // The tile of CTA `cta` (blockIdx.x) when each CTA computes one of a row of `tiles_n`: n
  // fastest, so that the CTAs reading one row of A tiles run side by side (the first reads A from
  // DRAM, the others mostly from L2).
  WL_HOST_DEVICE static OutputTile of_cta(int cta, int tiles_n) {
    return {.m = cta / tiles_n, .n = cta % tiles_n};
  }
};

// The K steps of the CTA's tile (a coordinate-only resource, without a pipeline): how many, and
// which one a loop iteration of the loads fetches.
struct KSteps {
  static constexpr ts::ResourceSpec spec{.name = "k_steps"};
  int count = 0;
  WL_DEVICE int k_of(ts::Consume const& stage) const { return stage.loop_offset; }
};

// B's tiles, kStages of (kTileN x kTileK) in SwizzledLayout<kTileN, kTileK, kStages>: filled by
// TMA (Params::tma_b, over B's Params::n x Params::k), read by the wgmma that A's ring issues,
// beside A's stage of the same K step; `tile.n` is the CTA's tile column. With kStepsPerStage > 1
// a stage holds that many consecutive K steps (sub-stages stage * kStepsPerStage + h of the
// layout, SwizzledLayout<kTileN, kTileK, kStages * kStepsPerStage>), one TMA copy each; a step
// past K is a box wholly outside B, which TMA fills with zeros and still counts in full (the
// stage's bytes stay fixed), and which the wgmma skips.
template <int kStages, int kTileN, int kTileK, class Params, int kStepsPerStage = 1>
struct TmaRingB {
  static constexpr int kSubStages = kStages * kStepsPerStage;
  using SmemLayout = SwizzledLayout<kTileN, kTileK, kSubStages>;  // (BLK_N, BLK_K, SUB_STAGES)
  static constexpr int kStageBytes =
      kStepsPerStage * kTileN * kTileK * static_cast<int>(sizeof(Bf16));

  static constexpr ts::ResourceSpec spec{
      .name = "smem_b",
      .pipeline =
          ts::tma_wgmma(kStages, kStageBytes, ts::threads(1), ts::warps(4)).with_advance_on_wait()};
  Params const* p = nullptr;
  OutputTile tile{};
  ts::SmemBuffer<Bf16, kSubStages * kTileN * kTileK, 1024> tiles;  // (BLK_N, BLK_K, SUB_STAGES)
  using smem_buffers = ts::buffers<&TmaRingB::tiles>;

  // B's tiles of stage `k` (K steps k * kStepsPerStage ...); their bytes complete the stage.
  WL_DEVICE void tma_load(ts::Produce const& stage, int k) {
    if (sm90::elect_one()) {
      for (int h = 0; h < kStepsPerStage; ++h)
        tma_load_tile<SmemLayout>(p->tma_b, p->n, p->k, tiles.get(), tile.n, k * kStepsPerStage + h,
                                  stage.stage_idx * kStepsPerStage + h, stage.barrier);
    }
  }
  // The stage the wgmma of this step reads B from. Auxiliary: only an index; B is read by the
  // wgmma that A's ring issues, and retires with it (R-D13 follows B's stage into it).
  WL_DEVICE int stage_of(ts::ConsumeAux const& stage) const { return stage.stage_idx; }
};

// A's tiles, kStages of (128 x kTileK) in SwizzledLayout<128, kTileK, kStages>: filled by TMA
// (Params::tma_a, over A's Params::m x Params::k), read by the Wgmma128x128 step that `mma`
// issues beside B's stage of the same K step in `b` (RingB: its `tiles` in RingB::SmemLayout, as
// TmaRingB has them); `tile.m` is the CTA's tile row.
template <int kStages, int kTileK, class Params, class RingB>
struct TmaRingA {
  using Mma = Wgmma128x128;
  using SmemLayout = SwizzledLayout<Mma::kTileM, kTileK, kStages>;  // (BLK_M, BLK_K, STAGES)
  static constexpr int kStageBytes = Mma::kTileM * kTileK * static_cast<int>(sizeof(Bf16));

  static constexpr ts::ResourceSpec spec{
      .name = "smem_a",
      .pipeline =
          ts::tma_wgmma(kStages, kStageBytes, ts::threads(1), ts::warps(4)).with_advance_on_wait()};
  Params const* p = nullptr;
  OutputTile tile{};
  int k_steps = 0;           // the MMA task's loop bound: KSteps::count, which the kernel copies
  RingB const* b = nullptr;  // what the wgmma reads besides A
  ts::SmemBuffer<Bf16, kStages * Mma::kTileM * kTileK, 1024> tiles;  // (BLK_M, BLK_K, STAGES)
  using smem_buffers = ts::buffers<&TmaRingA::tiles>;
  using same_sizes = ts::same_sizes<ts::same_size<&TmaRingA::k_steps, &KSteps::count>>;

  // A's tile of K step `k`; its bytes complete the stage.
  WL_DEVICE void tma_load(ts::Produce const& stage, int k) {
    if (sm90::elect_one())
      tma_load_tile<SmemLayout>(p->tma_a, p->m, p->k, tiles.get(), tile.m, k, stage.stage_idx,
                                stage.barrier);
  }
  // Issues (without waiting) the wgmma batch of one K step: acc (+)= A(stage) . B(b_stage)^T;
  // the first step overwrites acc.
  WL_DEVICE void mma(ts::Consume const& stage, Mma::Accumulator& acc, int b_stage) const {
    Mma::step<SmemLayout, typename RingB::SmemLayout>(
        tiles.get(), stage.stage_idx, b->tiles.get(), b_stage, acc,
        stage.loop_offset == stage.loop_start, static_cast<int>(threadIdx.x) % Mma::kThreads);
  }
};

}  // namespace warploom::tutorial::k_major
