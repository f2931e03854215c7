// kernels/tutorial/persistent_copy_schedule.cuh
//
// Tutorial 03, first part: persistent CTAs over a work queue, and tiles they skip.
//
//     Tiles (work queue) ──tile──▶ CopyTask: for each tile the queue hands out,
//                                  unless the mask skips it: InputGmem ──item──▶ OutputGmem
//
// A persistent kernel launches about as many CTAs as fit on the GPU (or more: a CTA without a
// tile ends at its first fetch) and each loops over tiles until its queue runs dry:
// ctx.work_tile_loop. Every iteration the task does the queue's handshake — wait, read the next
// tile, release — and if_valid runs the tile's work for a valid tile; the invalid one ends the
// loop. ts::skip_if names the queue's predicate, and what tiles.skippable(...) holds does not run
// for a tile it keeps out; the handshake still does, so every task on the queue stays in step.
//
// The schedule is the same for both queues (ts/work_queue.hpp): the static one computes the tiles
// (its wait and release are no-ops), the dynamic one adds a scheduler warp that fills a 2-entry
// ring from a global counter and takes each tile like the copy task does.
//
// This file is the schedule's one source: the kernel runs it, and the schedule units of both
// copies (kernels/CMakeLists.txt) verify it while they compile; the kernel launches with that
// proof.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "tutorial/persistent_copy.hpp"  // kPersistentTileElems
#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/tile_scheduler.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial {

template <TileQueueKind kQueue>
struct PersistentCopy {
  static constexpr int kCopyWarps = 4;
  static constexpr int kCopyThreads = kCopyWarps * 32;
  static constexpr int kTileItems = kPersistentTileElems / kPersistentItemElems;  // int4 items
  static_assert(kTileItems % kCopyThreads == 0, "every copy thread moves as many items");

  // ---- Resources -------------------------------------------------------------------------------
  // The queue: the kind this copy runs on, plus the skip predicate (a byte per tile; no mask:
  // nothing skipped). The works next_tile (and fetch_tile) are the queue's own.
  using Queue = std::conditional_t<kQueue == TileQueueKind::Static, ts::StaticTileQueue,
                                   ts::DynamicTileQueue</*stages=*/2, kCopyWarps + 1>>;
  struct Tiles : Queue {
    std::uint8_t const* skip_mask = nullptr;  // (num_tiles); `skip` is a reserved op's name
    __device__ bool masked(ts::WorkTile const& tile) const {
      return skip_mask != nullptr && skip_mask[tile.m] != 0;
    }
  };

  struct InputGmem {
    static constexpr ts::ResourceSpec spec{.name = "input_gmem"};
    int4 const* src = nullptr;  // (num_items)
    int num_items = 0;
    // Consumer work: item `loop_offset` of the current tile (zero past the end: the last tile may
    // be partial).
    __device__ int4 get_item(ts::Consume const& stage) const {
      int const i = stage.work_tile.m * kTileItems + stage.loop_offset;
      return i < num_items ? __ldg(src + i) : int4{};
    }
  };

  struct OutputGmem {
    static constexpr ts::ResourceSpec spec{.name = "output_gmem"};
    int4* dst = nullptr;  // (num_items)
    int num_items = 0;
    __device__ void set_item(ts::Produce const& stage, int4 item) {
      int const i = stage.work_tile.m * kTileItems + stage.loop_offset;
      if (i < num_items) dst[i] = item;
    }
  };

  // ---- Schedules and tasks ---------------------------------------------------------------------
  // Copies each tile the queue hands out and the mask keeps: the task's threads stride over the
  // tile's items.
  struct CopyTask {
    static constexpr ts::TaskSpec spec{.name = "copy", .warp_idx = 0, .num_warps = kCopyWarps};
    using src = ts::list<Tiles, InputGmem>;
    using dst = ts::list<OutputGmem>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& queue, auto& input,
                                                  auto& output) {
      ctx.work_tile_loop(queue, ts::skip_if<&Tiles::masked>, [&](auto& tiles) {
        queue.wait();
        auto tile = ts::work<&Tiles::next_tile>(queue);
        queue.release();
        tiles.if_valid(tile, [&] {
          tiles.skippable([&] {
            ctx.domain_loop(ctx.task_thread_idx(), ts::c<kTileItems>, ts::c<kCopyThreads>,
                            [&](auto&) {
                              auto item = ts::work<&InputGmem::get_item>(input);
                              ts::work<&OutputGmem::set_item>(output, item);
                            });
          });
        });
      });
    }
  };

  // The dynamic queue's scheduler warp (ts/tile_scheduler.hpp): fills the next entry with a tile
  // from the global counter, then takes it like the copy task (its loop too ends on the invalid
  // tile): acquire; fetch_tile; commit; wait; next_tile; release; if_valid(tile, {}).
  using SchedulerTask = ts::TileSchedulerTask<Tiles, kCopyWarps>;

  // ---- Dependency graph and TaskManager --------------------------------------------------------
  using TaskList = std::conditional_t<kQueue == TileQueueKind::Static, ts::Tasks<CopyTask>,
                                      ts::Tasks<CopyTask, SchedulerTask>>;
  // Five warps with the scheduler (the copy's four and one), not a warpgroup more.
  using Manager =
      ts::TaskManager<TaskList, ts::Graph<ts::DependsOn<OutputGmem, InputGmem, Tiles>>,
                      ts::ManagerOptions{
                          .block_warps = kQueue == TileQueueKind::Static ? 0 : kCopyWarps + 1,
                          .verified_in = ts::VerifiedIn::ScheduleUnit}>;

  // ---- Name ------------------------------------------------------------------------------------
  static constexpr std::string_view kName =
      kQueue == TileQueueKind::Static ? "persistent_copy" : "persistent_copy_dynamic";
  static constexpr std::string_view kDescription =
      kQueue == TileQueueKind::Static
          ? "tutorial 03: persistent tile copy over a static work queue, skipping masked tiles"
          : "tutorial 03: persistent tile copy over a dynamic work queue (scheduler warp, global "
            "tile counter), skipping masked tiles";
};

// ---- Kernel ------------------------------------------------------------------------------------
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    persistent_copy_kernel(int4 const* src, int4* dst, int num_items, int num_tiles,
                           std::uint8_t const* skip, [[maybe_unused]] int* counter) {
  extern __shared__ __align__(128) char smem[];  // the dynamic queue's ring (static: none)
  typename Cfg::Tiles tiles{};
  tiles.num_tiles = num_tiles;
  tiles.skip_mask = skip;
  if constexpr (requires(typename Cfg::Tiles & t) { t.counter; }) tiles.counter = counter;
  typename Cfg::InputGmem input{.src = src, .num_items = num_items};
  typename Cfg::OutputGmem output{.dst = dst, .num_items = num_items};
  typename Cfg::Manager tm(smem, tiles, input, output);
  tm.setup_resources_and_tasks().fence_and_sync_cta().run();
}

using StaticPersistentCopy = PersistentCopy<TileQueueKind::Static>;
using DynamicPersistentCopy = PersistentCopy<TileQueueKind::Dynamic>;

}  // namespace warploom::tutorial
