// kernels/gemm/sm90/pingpong.hpp
//
// The ping-pong Hopper GEMM's schedule: D = alpha * scale_a * scale_b * (A . B) + beta * C, fp32
// accumulation, persistent CTAs, each of two consumer warpgroups owning a 128 x 128 accumulator
// tile of its own, so that one warpgroup's epilogue runs while the other's wgmma keep the tensor
// cores busy.
//
//                                                       ┌─▶ Mma0 (warps 0-3) ──acc──▶ GmemD0
//   Tiles ──▶ LoadTask ──▶ SmemAB (TMA -> wgmma, 6 stages) ┤   K tiles of tiles j, j + 2s, ...
//            (warp 8)     all K tiles of j, then j + s,  └─▶ Mma1 (warps 4-7) ──acc──▶ GmemD1
//                         then j + 2s, ...                   K tiles of tiles j + s, j + 3s, ...
//
// The CTA walks its tiles j, j + s, j + 2s, ... (s: CTAs in the grid) two at a time. The load
// task streams all K tiles of the first tile of a pair into the ring, then all of the second; the
// two MMA warpgroups take turns on the ring: Mma0 waits on and releases the stages of the first
// tile and skip()s those of the second, Mma1 the other way round. Two one-stage pipelines without
// data, Turn<0> and Turn<1>, hand the main loop from one warpgroup to the other once its last
// wgmma batch of a tile is issued (CUTLASS's OrderedSequenceBarrier, arrived at before its
// mma_tail): the other's first batch queues behind it on the tensor cores, with no bubble for the
// hand-over; while one warpgroup stores its tile, the other computes, and the active one has the
// whole ring to run ahead in. The hand-over sits in the K loop's last iteration, which every tile
// has (k_tiles_of: at least one).
//
// The turns are also what makes skip() safe. A warpgroup that skips a whole tile of stages has its
// ring cursor a tile ahead of the load task; waiting there before the stage's previous lap was
// filled would pass on the stale phase parity (mbarrier waits compare parities only). The verifier
// found exactly that (R-M5) in a first version without the turns; with them, a warpgroup waits on
// its first stage only after the other consumed, so the load task issued, every earlier stage.
//
// A CTA with an odd number of tiles pairs its last one with a phantom tile (Tiles): loads fill
// zeros, Mma1 skips the wgmma and the store.
//
// Shared memory: 6 stages x 32 KiB + 2 x 16 KiB epilogue staging = 224 KiB.
// Warps: Mma0 on warps 0-3 and Mma1 on warps 4-7 with 232 registers, load on warp 8 with 40,
// padding on warps 9-11: 2 x 128 x 232 + 128 x 40 = 64512 <= 65536 registers.
//
// With a finish task (S::kFinishTask: an epilogue with a second pass over each staged subtile, an
// activation, a residual or the pre-activation output), warps 9-11 are no padding: each
// warpgroup's staging buffers become an async_tma pipeline (Staged<kSlot>) from the warpgroup to
// FinishTask, which makes the second pass over the first half of each tile's subtiles and stores
// them while the warpgroup finishes the other half itself and returns to its main loop (5 stages
// and 2 buffers per warpgroup by default: 224 KiB). The finish task walks the pairs as the
// warpgroups do, Mma0's tile then Mma1's, so each pipeline has one producer and one consumer.
// Clusters work as in the cooperative kernel: SmemAB is a multicast pipeline, and both CTAs of a
// cluster walk the same cluster tiles (phantoms included).
//
// This file is the schedule only (see cooperative.hpp).
#pragma once

#include <string_view>
#include <type_traits>

#include "gemm/sm90/resources.hpp"
#include "gemm/sm90/shape.hpp"
#include "warploom/ts/turn.hpp"

namespace warploom::gemm::sm90 {

// Shape: 128 x 128 tiles per warpgroup, 6 stages of 32 KiB, one staging buffer of 16 KiB per
// warpgroup (224 KiB).
template <int kStages = 6, int kStagingBuffers = 1, int kClusterSize = 1, bool kFinishTask = false>
using PingpongShape = Shape<128, 128, kStages, kStagingBuffers, kClusterSize, kFinishTask>;

#if defined(__CUDACC__)
// The kernel body of ping-pong schedule Kernel (this file's, pingpong_dynamic.hpp's): this CTA's
// resources, the schedule, run. `walk`: what hands out the tiles (Tiles; or the queue and Tiles).
template <class Kernel, class Params, class... Walk>
WL_DEVICE void run_pingpong(Params const& p, char* smem, Walk&... walk) {
  typename Kernel::SmemAB ab{};
  ab.p = &p;
  typename Kernel::template GmemD<0> d0{};
  d0.p = &p;
  typename Kernel::template GmemD<1> d1{};
  d1.p = &p;
  typename Kernel::template Turn<0> turn0;
  typename Kernel::template Turn<1> turn1;
  typename Kernel::Manager tm(smem, walk..., ab, d0, d1, turn0, turn1);
  tm.setup_resources_and_tasks().fence_and_sync_cta().run();
}
#endif

template <class S, class W = ScheduleOnly>
struct Pingpong {
  static constexpr int kMmaWarpgroups = 1;  // per accumulator tile
  static constexpr int kAccumulatorTiles = 2;
  static constexpr ts::ScheduleText kNameText =
      schedule_name<S, PingpongShape<>>("sm90_ts_gemm_pingpong");
  static constexpr std::string_view kName = kNameText.view();
  static constexpr std::string_view kDescription =
      S::kFinishTask
          ? "GEMM: persistent, TMA load warp -> one smem ring -> two wgmma warpgroups taking "
            "turns, each staging its 128x128 tile for a finish task (warps 9-11) that completes "
            "half of it and stores it while both compute"
          : "GEMM: persistent, TMA load warp -> one smem ring -> two wgmma warpgroups taking "
            "turns, one storing its 128x128 tile while the other computes";

  using Tiles = sm90::Tiles<S, W>;
  using SmemAB = sm90::SmemAB<S, W, kMmaWarpgroups>;
  // With a finish task (S::kFinishTask) the MMA warpgroups only stage z, and warps 9-11 finish
  // and store it (FinishTask); else each warpgroup stores its own tile (GmemD).
  static constexpr int kFinishWarp = 9, kFinishWarps = 3;
  template <int kSlot>
  using GmemD = std::conditional_t<S::kFinishTask, Staged<S, W, kSlot, kFinishWarp, kFinishWarps>,
                                   sm90::GmemD<S, W, kSlot, 2>>;
  using Accumulator = typename W::Accumulator;

  // The main loop's turn, handed from warpgroup kFrom to the other (a barrier, no data).
  template <int kFrom>
  using Turn = ts::Turn<kFrom>;

  struct LoadTask {
    static constexpr ts::TaskSpec spec{
        .name = "load", .warp_idx = 8, .num_warps = 1, .num_registers = 40};
    using src = ts::list<Tiles>;
    using dst = ts::list<SmemAB>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& tiles, auto& smem) {
      ctx.domain_loop(tiles->first, tiles->num_tiles, 2 * tiles->stride, [&](auto&) {
        load_tile<0>(ctx, tiles, smem);
        load_tile<1>(ctx, tiles, smem);
      });
    }
    // All K tiles of the pair's tile kShare.
    template <int kShare>
    WL_HOST_DEVICE static constexpr void load_tile(auto& ctx, auto& tiles, auto& smem) {
      auto tile = ts::work<&Tiles::template next_share<kShare>>(tiles);
      load_k_tiles<SmemAB>(ctx, tiles, smem, tile);
    }
  };

  // Warpgroup kSlot: the kSlot-th tile of each pair, from its turn's stages to GmemD<kSlot>. The
  // K loop is the cooperative kernel's (one wgmma batch in flight, lagged release).
  template <int kSlot>
  struct MmaTask {
    static constexpr std::string_view kNames[2] = {"mma0", "mma1"};
    static constexpr ts::TaskSpec spec{
        .name = kNames[kSlot], .warp_idx = 4 * kSlot, .num_warps = 4, .num_registers = 232};
    using src = ts::list<Tiles, SmemAB, Turn<1 - kSlot>>;
    using dst = ts::list<GmemD<kSlot>, Turn<kSlot>>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& tiles, auto& smem, auto& my_turn,
                                                  auto& d, auto& next_turn) {
      auto acc = ctx.local(Accumulator{});
      ctx.domain_loop(tiles->first, tiles->num_tiles, 2 * tiles->stride, [&](auto& pair) {
        auto tile = ts::work<&Tiles::template next_share<kSlot>>(tiles);
        // The other warpgroup's tile of the pair, whose K tiles this one's cursor passes.
        auto other = ts::work<&Tiles::template next_share<1 - kSlot>>(tiles);
        if constexpr (kSlot == 1) pass_k_tiles(ctx, tiles, smem, other);  // the first is Mma0's
        // Wait for the turn: Mma1 every time, Mma0 from its second tile on.
        auto take_turn = [&] { ts::take_turn(my_turn); };
        if constexpr (kSlot == 0) {
          pair.not_first_iter(take_turn);
        } else {
          take_turn();
        }
        // Hand the turn over once the last batch is issued: Mma0 every time, Mma1 unless nobody
        // takes it (its last tile).
        auto give_turn = [&] { ts::give_turn(next_turn); };
        mma_k_tiles<SmemAB>(ctx, tiles, smem, acc, tile, [&] {
          if constexpr (kSlot == 0) {
            give_turn();
          } else {
            pair.not_last_iter(give_turn);
          }
        });
        if constexpr (kSlot == 0) pass_k_tiles(ctx, tiles, smem, other);  // the second is Mma1's
        if constexpr (S::kFinishTask) {
          stage_subtiles<GmemD<kSlot>>(ctx, tiles, d, acc, tile);
        } else {
          ts::work<&GmemD<kSlot>::store>(d, tile, acc);
        }
      });
      if constexpr (!S::kFinishTask) ts::bulk_wait_read<0>(ctx);
    }
  };

  // Warps 9-11: the pair's two tiles in the MMA warpgroups' order, each subtile finished (the
  // chain's second pass) and stored once staged. The load warpgroup's 40 registers are enough for
  // the rolled pass over one 16-byte chunk at a time.
  struct FinishTask {
    static constexpr ts::TaskSpec spec{
        .name = "finish", .warp_idx = kFinishWarp, .num_warps = kFinishWarps, .num_registers = 40};
    using src = ts::list<Tiles, GmemD<0>, GmemD<1>>;
    using dst = ts::list<>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& tiles, auto& d0, auto& d1) {
      ctx.domain_loop(tiles->first, tiles->num_tiles, 2 * tiles->stride, [&](auto&) {
        finish_subtiles<GmemD<0>>(ctx, tiles, d0, ts::work<&Tiles::template next_share<0>>(tiles));
        finish_subtiles<GmemD<1>>(ctx, tiles, d1, ts::work<&Tiles::template next_share<1>>(tiles));
      });
    }
  };
  // Without the finish task, warps 9-11 are the load warpgroup's padding (the TaskManager's).
  using TaskList =
      std::conditional_t<S::kFinishTask, ts::Tasks<MmaTask<0>, MmaTask<1>, LoadTask, FinishTask>,
                         ts::Tasks<MmaTask<0>, MmaTask<1>, LoadTask>>;

  using Manager = ts::TaskManager<
      TaskList,
      ts::Graph<ts::DependsOn<SmemAB, Tiles>, ts::DependsOn<GmemD<0>, SmemAB, Tiles>,
                ts::DependsOn<GmemD<1>, SmemAB, Tiles>, ts::DependsOn<Turn<0>, SmemAB>,
                ts::DependsOn<Turn<1>, SmemAB>>,
      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;
  static_assert(Manager::cluster_size == S::kClusterSize);

#if defined(__CUDACC__)
  // The kernel body: this CTA's resources, the schedule, run.
  static WL_DEVICE void run(typename W::Params const& p, Tiles tiles, char* smem) {
    run_pingpong<Pingpong>(p, smem, tiles);
  }
#endif
};

}  // namespace warploom::gemm::sm90
