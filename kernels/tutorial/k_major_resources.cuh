// kernels/tutorial/k_major_resources.cuh
//
// What tutorial 04's, 06's and 07's GEMMs share besides the K-major tiles of k_major_tiles.cuh:
// the output tile a CTA computes, and two TS resources, the K steps of a CTA's tile and the TMA
// ring of B's tiles that the wgmma reads beside A's.
#pragma once

#include "tutorial/k_major_tiles.cuh"  // Bf16, SwizzledLayout, tma_load_tile
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
// beside A's stage of the same K step; `tile.n` is the CTA's tile column.
template <int kStages, int kTileN, int kTileK, class Params>
struct TmaRingB {
  using SmemLayout = SwizzledLayout<kTileN, kTileK, kStages>;  // (BLK_N, BLK_K, STAGES)
  static constexpr int kStageBytes = kTileN * kTileK * static_cast<int>(sizeof(Bf16));

  static constexpr ts::ResourceSpec spec{
      .name = "smem_b",
      .pipeline =
          ts::tma_wgmma(kStages, kStageBytes, ts::threads(1), ts::warps(4)).with_advance_on_wait()};
  Params const* p = nullptr;
  OutputTile tile{};
  ts::SmemBuffer<Bf16, kStages * kTileN * kTileK, 1024> tiles;  // (BLK_N, BLK_K, STAGES)
  using smem_buffers = ts::buffers<&TmaRingB::tiles>;

  // B's tile of K step `k`; its bytes complete the stage.
  WL_DEVICE void tma_load(ts::Produce const& stage, int k) {
    if (sm90::elect_one())
      tma_load_tile<SmemLayout>(p->tma_b, p->n, p->k, tiles.get(), tile.n, k, stage.stage_idx,
                                stage.barrier);
  }
  // The stage the wgmma of this step reads B from. Auxiliary: only an index; B is read by the
  // wgmma that A's ring issues, and retires with it (R-D13 follows B's stage into it).
  WL_DEVICE int stage_of(ts::ConsumeAux const& stage) const { return stage.stage_idx; }
};

}  // namespace warploom::tutorial::k_major
