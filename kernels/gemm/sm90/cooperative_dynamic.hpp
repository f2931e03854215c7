// kernels/gemm/sm90/cooperative_dynamic.hpp
//
// The cooperative Hopper GEMM with a dynamic tile scheduler: cooperative.hpp's tasks, with the
// tiles handed out at run time instead of walked in a fixed order.
//
//   global tile counter ──atomicAdd──▶ SchedulerTask (warp 9): the tile's lookup, once
//                                        │
//                             TileQueue (2 entries in shared memory: tile, problem, valid)
//                          ┌─────────────┴──────────────┐
//                          ▼                            ▼
//   LoadTask (warp 8) ──▶ SmemAB (TMA -> wgmma) ──▶ MmaTask (warps 0-7) ──acc──▶ GmemD
//
// A CTA whose tiles run short takes the next tile from the counter, whichever tile that is: the
// tiles of the problems of a grouped GEMM differ in K (the seed's K of 128 to 1024 in one launch),
// so a fixed order leaves some CTAs with more K tiles than others at the end, and the counter
// balances them (the Hopper stand-in for Blackwell's cluster launch control; ts/work_queue.hpp).
// The scheduler warp also does each tile's lookup (W::tile_at: the grouped kernel's search of the
// problems' tile ranges) once, where the static walk runs it in the load and the MMA task both.
//
// Every task takes each tile from the queue — wait, read the entry, release — and once more for
// the invalid entry that ends its loop; the scheduler fetches as often (ts::work_tile_loop), so
// the queue's ring balances by construction and the verifier checks it like any other pipeline.
// The counter must be zero when the kernel starts (the grouped GEMM's setup kernel zeroes it).
//
// Warps: MMA on warps 0-7 with 232 registers, load on warp 8 and the scheduler on warp 9 with 40,
// padding on warps 10-11; shared memory as the cooperative kernel's, plus the queue's 32 bytes.
// 1x1 clusters: the CTAs of a cluster would have to take the same tiles (one fetch per cluster,
// multicast), which the queue does not do yet.
//
// This file is the schedule only (see cooperative.hpp).
#pragma once

#include "gemm/sm90/cooperative.hpp"
#include "gemm/sm90/resources.hpp"
#include "gemm/sm90/shape.hpp"
#include "warploom/ts/tile_scheduler.hpp"

namespace warploom::gemm::sm90 {

template <class S, class W = ScheduleOnly>
struct CooperativeDynamic {
  static_assert(S::kClusterSize == 1, "the dynamic tile scheduler runs 1x1 clusters");
  static constexpr int kMmaWarpgroups = 2;  // per accumulator tile
  static constexpr int kAccumulatorTiles = 1;
  static constexpr ts::ScheduleText kNameText =
      schedule_name<S, CooperativeShape<>>("sm90_ts_gemm_dynamic");
  static constexpr std::string_view kName = kNameText.view();
  static constexpr std::string_view kDescription =
      "GEMM: persistent, scheduler warp -> tile queue -> TMA load warp -> smem ring -> two wgmma "
      "warpgroups on one 128x256 tile, lagged release";

  static constexpr int kMmaWarps = 8, kLoadWarp = 8, kSchedulerWarp = 9;
  using Tiles = sm90::Tiles<S, W>;  // the tiles' K and subtiles (their order is the queue's)
  using Queue = TileQueue<W, kMmaWarps + 2>;  // read by the MMA, load and scheduler warps
  using SmemAB = sm90::SmemAB<S, W, kMmaWarpgroups>;
  using GmemD = sm90::GmemD<S, W>;
  using Accumulator = typename W::Accumulator;

  struct LoadTask {
    static constexpr ts::TaskSpec spec{
        .name = "load", .warp_idx = kLoadWarp, .num_warps = 1, .num_registers = 40};
    using src = ts::list<Queue, Tiles>;
    using dst = ts::list<SmemAB>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& queue, auto& tiles, auto& smem) {
      ctx.work_tile_loop(queue, [&](auto& loop) {
        auto tile = ts::take_tile(queue);
        loop.if_valid(tile, [&] { load_k_tiles<SmemAB>(ctx, tiles, smem, tile); });
      });
    }
  };

  struct MmaTask {
    static constexpr ts::TaskSpec spec{
        .name = "mma", .warp_idx = 0, .num_warps = kMmaWarps, .num_registers = 232};
    using src = ts::list<Queue, Tiles, SmemAB>;
    using dst = ts::list<GmemD>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& queue, auto& tiles, auto& smem,
                                                  auto& d) {
      auto acc = ctx.local(Accumulator{});
      ctx.work_tile_loop(queue, [&](auto& loop) {
        auto tile = ts::take_tile(queue);
        loop.if_valid(tile, [&] {
          mma_k_tiles<SmemAB>(ctx, tiles, smem, acc, tile);  // ends with every batch retired
          ts::work<&GmemD::store>(d, tile, acc);
        });
      });
      ts::bulk_wait_read<0>(ctx);  // the last TMA stores read their staging before the CTA exits
    }
  };

  using SchedulerTask = ts::TileSchedulerTask<Queue, kSchedulerWarp, 40>;

  using Manager = ts::TaskManager<
      ts::Tasks<MmaTask, LoadTask, SchedulerTask>,
      ts::Graph<ts::DependsOn<SmemAB, Queue, Tiles>, ts::DependsOn<GmemD, SmemAB, Queue, Tiles>>,
      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;
  static_assert(Manager::cluster_size == 1);

#if defined(__CUDACC__)
  // The kernel body: this CTA's resources, the schedule, run. `queue` holds the counter.
  static WL_DEVICE void run(typename W::Params const& p, Tiles tiles, Queue queue, char* smem) {
    SmemAB ab{};
    ab.p = &p;
    GmemD d{};
    d.p = &p;
    Manager tm(smem, queue, tiles, ab, d);
    tm.setup_resources_and_tasks().fence_and_sync_cta().run();
  }
#endif
};

}  // namespace warploom::gemm::sm90
