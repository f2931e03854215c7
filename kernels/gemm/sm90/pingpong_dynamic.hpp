// kernels/gemm/sm90/pingpong_dynamic.hpp
//
// The ping-pong Hopper GEMM with a dynamic tile scheduler: pingpong.hpp's warpgroups taking turns,
// with their tiles handed out at run time in pairs instead of walked in a fixed order.
//
//   global counter ──atomicAdd──▶ SchedulerTask (warp 9): a pair of tiles, 2e and 2e + 1, looked up
//                                   │
//                       TileQueue (2 entries of 32 bytes: a pair of tiles)
//                  ┌────────────────┼───────────────────────────┐
//                  ▼                ▼                           ▼
//   LoadTask (warp 8) ──▶ SmemAB ──▶ Mma0 (warps 0-3): tile 2e ──acc──▶ GmemD0
//   all K tiles of 2e,    (6 stages) Mma1 (warps 4-7): tile 2e + 1 ──acc──▶ GmemD1
//   then of 2e + 1
//
// Ping-pong hides a tile's epilogue behind the other warpgroup's main loop, which pays where a
// tile's main loop is short (the seed's K of 128 to 1024: a 128 x 256 tile's epilogue outlasts its
// main loop); the queue balances the tiles' different K across CTAs (cooperative_dynamic.hpp). The
// static ping-pong takes a pair per loop iteration (tiles j and j + s); here one queue entry is the
// pair (ts::DynamicTileQueue with two tiles an entry), so each task takes it in one handshake, the
// load task streams the first tile's K tiles then the second's, and each warpgroup runs its own and
// passes the other's stages, as in pingpong.hpp. An odd tile count leaves the last pair's second
// tile past the end: the phantom tile (loads of zeros, no MMA, no store; Tiles::share_of).
//
// The turns, counted over the tile loop: Mma0 hands the main loop over once per pair (after its
// last batch is issued) and Mma1 takes it once per pair; Mma1 hands it back once per pair, and Mma0
// takes it back at every fetch but the first — the last one being the invalid entry that ends the
// loop, whose turn is Mma1's hand-over of the last pair. A CTA without a pair takes no turn.
//
// Warps: Mma0 on 0-3 and Mma1 on 4-7 with 232 registers, load on warp 8 and the scheduler on warp 9
// with 40, padding on warps 10-11. Shared memory as pingpong.hpp's, plus the queue's 64 bytes.
// 1x1 clusters and no finish task (the grouped kernel's plain epilogue).
//
// This file is the schedule only (see cooperative.hpp).
#pragma once

#include <string_view>

#include "gemm/sm90/pingpong.hpp"
#include "gemm/sm90/resources.hpp"
#include "gemm/sm90/shape.hpp"
#include "warploom/ts/tile_scheduler.hpp"
#include "warploom/ts/turn.hpp"

namespace warploom::gemm::sm90 {

template <class S, class W = ScheduleOnly>
struct PingpongDynamic {
  static_assert(S::kClusterSize == 1, "the dynamic tile scheduler runs 1x1 clusters");
  static_assert(!S::kFinishTask, "the dynamic ping-pong stores its tiles from its warpgroups");
  static constexpr int kMmaWarpgroups = 1;  // per accumulator tile
  static constexpr int kAccumulatorTiles = 2;
  static constexpr ts::ScheduleText kNameText =
      schedule_name<S, PingpongShape<>>("sm90_ts_gemm_pingpong_dynamic");
  static constexpr std::string_view kName = kNameText.view();
  static constexpr std::string_view kDescription =
      "GEMM: persistent, scheduler warp -> queue of tile pairs -> TMA load warp -> one smem ring "
      "-> two wgmma warpgroups taking turns, one tile of each pair each";

  static constexpr int kMmaWarps = 8, kLoadWarp = 8, kSchedulerWarp = 9;
  using Tiles = sm90::Tiles<S, W>;  // the tiles' K and subtiles (their order is the queue's)
  using Queue = TileQueue<W, kMmaWarps + 2, 2>;  // pairs, read by the MMA, load, scheduler warps
  using SmemAB = sm90::SmemAB<S, W, kMmaWarpgroups>;
  template <int kSlot>
  using GmemD = sm90::GmemD<S, W, kSlot, 2>;
  using Accumulator = typename W::Accumulator;
  template <int kFrom>
  using Turn = ts::Turn<kFrom>;

  struct LoadTask {
    static constexpr ts::TaskSpec spec{
        .name = "load", .warp_idx = kLoadWarp, .num_warps = 1, .num_registers = 40};
    using src = ts::list<Queue, Tiles>;
    using dst = ts::list<SmemAB>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& queue, auto& tiles, auto& smem) {
      ctx.work_tile_loop(queue, [&](auto& loop) {
        auto pair = ts::take_tile(queue);
        loop.if_valid(pair, [&] {
          load_k_tiles<SmemAB>(ctx, tiles, smem, share_of<0>(tiles, pair));
          load_k_tiles<SmemAB>(ctx, tiles, smem, share_of<1>(tiles, pair));
        });
      });
    }
  };

  // Warpgroup kSlot: tile kSlot of each pair, from its turn's stages to GmemD<kSlot>.
  template <int kSlot>
  struct MmaTask {
    static constexpr std::string_view kNames[2] = {"mma0", "mma1"};
    static constexpr ts::TaskSpec spec{
        .name = kNames[kSlot], .warp_idx = 4 * kSlot, .num_warps = 4, .num_registers = 232};
    using src = ts::list<Queue, Tiles, SmemAB, Turn<1 - kSlot>>;
    using dst = ts::list<GmemD<kSlot>, Turn<kSlot>>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& queue, auto& tiles, auto& smem,
                                                  auto& my_turn, auto& d, auto& next_turn) {
      auto acc = ctx.local(Accumulator{});
      ctx.work_tile_loop(queue, [&](auto& loop) {
        auto pair = ts::take_tile(queue);
        // Mma0 takes the turn back at every fetch but the first, the invalid last one included.
        if constexpr (kSlot == 0) loop.not_first_iter([&] { ts::take_turn(my_turn); });
        loop.if_valid(pair, [&] {
          auto tile = share_of<kSlot>(tiles, pair);
          auto other = share_of<1 - kSlot>(tiles, pair);  // whose K tiles this cursor passes
          if constexpr (kSlot == 1) {
            pass_k_tiles(ctx, tiles, smem, other);  // the first tile is Mma0's
            ts::take_turn(my_turn);
          }
          mma_k_tiles<SmemAB>(ctx, tiles, smem, acc, tile, [&] { ts::give_turn(next_turn); });
          if constexpr (kSlot == 0) pass_k_tiles(ctx, tiles, smem, other);  // the second: Mma1's
          ts::work<&GmemD<kSlot>::store>(d, tile, acc);
        });
      });
      ts::bulk_wait_read<0>(ctx);  // the last TMA stores read their staging before the CTA exits
    }
  };

  using SchedulerTask = ts::TileSchedulerTask<Queue, kSchedulerWarp, 40>;

  using Manager = ts::TaskManager<
      ts::Tasks<MmaTask<0>, MmaTask<1>, LoadTask, SchedulerTask>,
      ts::Graph<ts::DependsOn<SmemAB, Queue, Tiles>, ts::DependsOn<GmemD<0>, SmemAB, Queue, Tiles>,
                ts::DependsOn<GmemD<1>, SmemAB, Queue, Tiles>, ts::DependsOn<Turn<0>, SmemAB>,
                ts::DependsOn<Turn<1>, SmemAB>>,
      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;
  static_assert(Manager::cluster_size == 1);

#if defined(__CUDACC__)
  // The kernel body: this CTA's resources, the schedule, run. `queue` holds the counter.
  static WL_DEVICE void run(typename W::Params const& p, Tiles tiles, Queue queue, char* smem) {
    run_pingpong<PingpongDynamic>(p, smem, queue, tiles);
  }
#endif
};

}  // namespace warploom::gemm::sm90
