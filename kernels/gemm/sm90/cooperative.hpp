// kernels/gemm/sm90/cooperative.hpp
//
// The cooperative Hopper GEMM's schedule: D = alpha * scale_a * scale_b * (A . B) + beta * C, fp32
// accumulation, persistent CTAs, two warpgroups sharing each 128 x 256 accumulator tile.
//
//      Tiles ──tile──▶ LoadTask ──▶ SmemAB (TMA -> wgmma, STAGES) ──▶ MmaTask ──acc──▶ GmemD
//   (raster order)   warp 8: acquire,            A and B tiles          warps 0-7: wait, wgmma,
//                    TMA A+B, commit                                    release the stage
//                                                                       before, store the tile
//
// Every CTA walks output tiles blockIdx.x, blockIdx.x + gridDim.x, ... in raster order. For each
// tile the load task streams the K tiles of A and B into the stages; the MMA task (two consumer
// warpgroups, each 64 rows of the 128-row tile) issues wgmma on a stage, keeps one wgmma batch in
// flight (`wgmma_wait<1>`) and releases the stage the previous batch read (the lagged release the
// verifier checks under R-D13). The accumulator is a task-local variable that the mma work updates
// in place; after the last K tile the MMA warps store it (alpha, beta, predicated on M and N) while
// the load task already fills the stages for their next tile — but the tensor cores idle during
// that store (pingpong.hpp hides it).
//
// Warps: MMA on warps 0-7 with 232 registers, load on warp 8 with 40, padding on warps 9-11 (the
// load warpgroup's setmaxnreg budget): 2 x 128 x 232 + 128 x 40 = 64512 <= 65536 registers.
//
// Clusters (S::kClusterSize CTAs along x): the CTAs of a cluster compute neighbouring tiles and
// TMA-multicast the operand they share, each loading its share of it (works.cuh). Both CTAs walk
// the same number of cluster tiles (a cluster tile partly outside the matrix is still computed,
// its loads zero-filled and its stores clipped), which keeps their pipelines in step
// (docs/verification/rules.md, R-D22).
//
// This file is the schedule only: the same for every element type and layout, verified once in its
// schedule unit. `W` supplies the work bodies (works.cuh, or schedule_only.hpp for the verifier).
#pragma once

#include "gemm/sm90/resources.hpp"
#include "gemm/sm90/shape.hpp"

namespace warploom::gemm::sm90 {

// Shape: 128 x 256 tiles, 4 stages of 48 KiB, two staging buffers of 16 KiB (224 KiB). Narrower
// tiles (kTileN 128 or 64) are for outputs too small to give every SM a 128 x 256 tile (a skinny
// N, or few tiles cut along K by split-K): less of the wgmma work falls past N and more tiles
// share the SMs. Their stages are smaller, so more of them fit (cooperative_stages).
template <int kStages = 4, int kClusterSize = 1, int kTileN = 256>
using CooperativeShape = Shape<128, kTileN, kStages, 2, kClusterSize>;

// The cooperative design's stages for a tile kTileN wide: as many as fit shared memory beside the
// two staging buffers, at most 8 (4 for 128 x 256, 6 for 128 x 128, 8 for 128 x 64). Past a
// few stages more only hide more latency; the memory-bound shapes narrow tiles serve want that.
constexpr int cooperative_stages(int tile_n) {
  constexpr int kBudget = 224 * 1024;  // ts::kSmemCapacityBytes less room for the barriers
  int const staging = 2 * 128 * 128;
  int const stages = (kBudget - staging) / ((128 + tile_n) * 128);
  return stages < 8 ? stages : 8;
}

template <class S, class W = ScheduleOnly>
struct Cooperative {
  static constexpr int kMmaWarpgroups = 2;  // per accumulator tile
  static constexpr int kAccumulatorTiles = 1;
  static constexpr ts::ScheduleText kNameText =
      schedule_name<S, CooperativeShape<>>("sm90_ts_gemm");
  static constexpr std::string_view kName = kNameText.view();
  static constexpr std::string_view kDescription =
      "GEMM: persistent, TMA load warp -> smem ring -> two wgmma warpgroups on one 128x256 "
      "tile, lagged release";

  using Tiles = sm90::Tiles<S, W>;
  using SmemAB = sm90::SmemAB<S, W, kMmaWarpgroups>;
  using GmemD = sm90::GmemD<S, W>;
  using Accumulator = typename W::Accumulator;

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
      ts::TaskManager<ts::Tasks<MmaTask, LoadTask>,
                      ts::Graph<ts::DependsOn<SmemAB, Tiles>, ts::DependsOn<GmemD, SmemAB, Tiles>>,
                      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;
  static_assert(Manager::cluster_size == S::kClusterSize);

#if defined(__CUDACC__)
  // The kernel body: this CTA's resources, the schedule, run.
  static WL_DEVICE void run(typename W::Params const& p, Tiles tiles, char* smem) {
    SmemAB ab{};
    ab.p = &p;
    GmemD d{};
    d.p = &p;
    Manager tm(smem, tiles, ab, d);
    tm.setup_resources_and_tasks().fence_and_sync_cta().run();
  }
#endif
};

}  // namespace warploom::gemm::sm90
