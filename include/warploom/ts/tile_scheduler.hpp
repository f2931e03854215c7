// warploom/ts/tile_scheduler.hpp
//
// The two parts of the work-queue protocol (work_queue.hpp) that every kernel on a queue writes the
// same way, written once: the handshake by which a persistent task takes its next tile, and the
// scheduler warp's task of a ts::DynamicTileQueue.
//
//   struct MmaTask {  // any persistent task
//     ...
//     ctx.work_tile_loop(queue, [&](auto& tiles) {
//       auto tile = ts::take_tile(queue);
//       tiles.if_valid(tile, [&] { ... });
//     });
//   };
//   using SchedulerTask = ts::TileSchedulerTask<Queue, /*warp=*/9, /*registers=*/24>;
#pragma once

#include <type_traits>

#include "warploom/ts/task.hpp"
#include "warploom/ts/type_list.hpp"
#include "warploom/ts/work.hpp"

namespace warploom::ts {

// A task's handshake with its work queue (the handle's resource), once per fetch: wait for the next
// entry, read it (every thread: a shared-memory broadcast for a dynamic queue, arithmetic for a
// static one), hand the entry back. Returns the tile, for the tile loop's if_valid.
template <class Handle>
WL_HOST_DEVICE constexpr auto take_tile(Handle& queue) {
  using Queue = typename std::remove_cvref_t<Handle>::resource;
  queue.wait();
  auto tile = work<&Queue::next_tile>(queue);
  queue.release();
  return tile;
}

// The scheduler warp of a dynamic tile queue `Queue` (warp kWarp, kRegisters registers a thread; 0
// keeps the kernel's count): it fills the next entry (fetch_tile: the CTA's own index first, then
// the grid-wide counter), then takes that entry like every other task, so that its loop ends on the
// same invalid tile as theirs and the ring balances (R-D1).
template <class Queue, int kWarp, int kRegisters = 0>
struct TileSchedulerTask {
  static constexpr TaskSpec spec{
      .name = "scheduler", .warp_idx = kWarp, .num_warps = 1, .num_registers = kRegisters};
  using src = list<Queue>;
  using dst = list<Queue>;
  WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& queue, auto&) {
    ctx.work_tile_loop(queue, [&](auto& tiles) {
      queue.acquire();
      work<&Queue::fetch_tile>(queue);
      queue.commit();
      tiles.if_valid(take_tile(queue), [] {});
    });
  }
};

}  // namespace warploom::ts
