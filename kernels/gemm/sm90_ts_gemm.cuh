// kernels/gemm/sm90_ts_gemm.cuh
//
// The cooperative Hopper GEMM in TS: D = alpha * scale_a * scale_b * (A . B) + beta * C, fp32
// accumulation, persistent CTAs, two warpgroups sharing each 128 x 256 accumulator tile.
// (scale_a, scale_b: fp8 per-tensor scales, device values, null = 1.)
//
//      Tiles ──tile──▶ LoadTask ──▶ SmemAB (TMA -> wgmma, STAGES) ──▶ MmaTask ──acc──▶ GmemD
//   (raster order)   warp 8: acquire,            A and B tiles          warps 0-7: wait, wgmma,
//                    TMA A+B, commit                                    release the stage
//                                                                       before, store the tile
//
// Every CTA walks output tiles blockIdx.x, blockIdx.x + gridDim.x, ... in the raster order of
// `TileRaster`. For each tile the load task streams the K tiles of A and B into the stages; the
// MMA task (two consumer warpgroups, each 64 rows of the 128-row tile) issues wgmma on a stage,
// keeps one wgmma batch in flight (`wgmma_wait<1>`) and releases the stage the previous batch read
// (the lagged release the verifier checks under R-D13). The accumulator is a task-local variable
// that the mma work updates in place; after the last K tile the MMA warps store it (alpha, beta,
// predicated on M and N) while the load task already fills the stages for their next tile — but
// the tensor cores idle during that store (sm90_ts_gemm_pingpong.cuh hides it).
//
// Warps: MMA on warps 0-7 with 232 registers, load on warp 8 with 40, padding on warps 9-11 (the
// load warpgroup's setmaxnreg budget): 2 x 128 x 232 + 128 x 40 = 64512 <= 65536 registers.
//
// Clusters (kClusterM x kClusterN CTAs, launched as one cluster of kClusterM * kClusterN along x):
// the CTAs of a cluster compute neighbouring tiles — kClusterM tile rows sharing one B tile,
// kClusterN tile columns sharing one A tile — so each loads only its share of the shared operand
// and TMA multicasts it into every CTA that needs it, cutting L2 traffic. A stage is then written
// by several CTAs, so SmemAB is a multicast pipeline: every release reaches the stage's empty
// barrier in each CTA of the cluster. Both CTAs walk the same number of cluster tiles (a cluster
// tile partly outside the matrix is still computed, its loads zero-filled and its stores
// clipped), which keeps their pipelines in step (docs/verification/rules.md, R-D22).
//
// The resources (Tiles, SmemAB, GmemD) are shared with the ping-pong kernel:
// sm90_gemm_mainloop.cuh and sm90_gemm_epilogue.cuh.
#pragma once

#include "sm90_gemm_epilogue.cuh"
#include "sm90_gemm_mainloop.cuh"

namespace warploom::gemm::sm90 {

template <class TA, class TB, class TD, bool kAKMajor, bool kBKMajor, int kClusterM = 1,
          int kClusterN = 1, int kTileM = 128, int kTileN = 256,
          int kTileK = 128 / static_cast<int>(sizeof(TA)), int kStages = 4>
struct TsGemm : GemmConfig<TA, TB, TD, kAKMajor, kBKMajor, kClusterM, kClusterN, kTileM, kTileN,
                           kTileK, kStages, /*kMmaWarpgroups=*/2, /*kStagingBuffers=*/2> {
  using Cfg = GemmConfig<TA, TB, TD, kAKMajor, kBKMajor, kClusterM, kClusterN, kTileM, kTileN,
                         kTileK, kStages, 2, 2>;
  static constexpr char const* kName = "sm90_ts_gemm";
  using Params = typename Cfg::Params;
  using Accumulator = typename Cfg::Accumulator;
  using Tiles = sm90::Tiles<Cfg>;
  using SmemAB = sm90::SmemAB<Cfg>;
  using GmemD = sm90::GmemD<Cfg>;

  // ---- Tasks -----------------------------------------------------------------------------------
  struct LoadTask {
    static constexpr ts::TaskSpec spec{
        .name = "load", .warp_idx = 8, .num_warps = 1, .num_registers = 40};
    using src = ts::list<Tiles>;
    using dst = ts::list<SmemAB>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& tiles, auto& smem) {
      ctx.domain_loop(tiles->first, tiles->num_tiles, tiles->stride, [&](auto&) {
        auto tile = ts::work<&Tiles::next>(tiles);
        load_k_tiles<SmemAB>(ctx, tiles, smem, tile);
      });
    }
  };

  struct MmaTask {
    static constexpr ts::TaskSpec spec{
        .name = "mma", .warp_idx = 0, .num_warps = 8, .num_registers = 232};
    using src = ts::list<Tiles, SmemAB>;
    using dst = ts::list<GmemD>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& tiles, auto& smem, auto& d) {
      auto acc = ctx.local(Accumulator{});
      ctx.domain_loop(tiles->first, tiles->num_tiles, tiles->stride, [&](auto&) {
        auto tile = ts::work<&Tiles::next>(tiles);
        mma_k_tiles<SmemAB>(ctx, tiles, smem, acc, tile);  // ends with every batch retired
        ts::work<&GmemD::store>(d, tile, acc);
      });
      ts::bulk_wait_read<0>(ctx);  // the last TMA stores read their staging before the CTA exits
    }
  };

  using Manager =
      ts::TaskManager<ts::Tasks<MmaTask, LoadTask, ts::PaddingTask<9, 3, 40>>,
                      ts::Graph<ts::DependsOn<SmemAB, Tiles>, ts::DependsOn<GmemD, SmemAB, Tiles>>>;
  static_assert(Manager::cluster_size == Cfg::kClusterSize);

  // The kernel body: this CTA's resources, verified schedule, run.
  static WL_DEVICE void run(Params const& p, char* smem) {
    Tiles tiles = Tiles::for_this_cta(p);
    SmemAB ab{};
    ab.p = &p;
    GmemD d{};
    d.p = &p;
    Manager tm(smem, tiles, ab, d);
    tm.setup_resources_and_tasks().fence_and_sync_cta().run();
  }
};

}  // namespace warploom::gemm::sm90
