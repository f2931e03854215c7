// warploom/ts/work_queue.hpp
//
// Work queues: the resources that hand out tiles to persistent tasks (ctx.work_tile_loop,
// work_tile_loop.hpp). Two on Hopper, with one protocol, so one schedule runs on either:
//
//   every persistent task, each iteration:   wait; tile = next_tile; release; if_valid(tile, ...)
//
//   ts::StaticTileQueue      no pipeline (wait and release are no-ops): CTA b walks tiles
//                            b, b + grid, b + 2·grid, ... of num_tiles, the first index past the
//                            end being the invalid tile. A grid larger than the tile count is fine
//                            (over-launch): a CTA without a tile ends at its first fetch.
//   ts::DynamicTileQueue     the Hopper stand-in for Blackwell's CLC: a scheduler warp (the
//                            queue's producer) takes tile indices from an atomic counter in global
//                            memory and broadcasts each through a small shared-memory ring of
//                            entries to every persistent task of the CTA (each a consumer):
//
//                              scheduler:  acquire; fetch_tile; commit;  then the handshake above
//
//                            A CTA's first fetch is its own index (tiles 0 .. grid - 1, no
//                            atomic), its later ones grid + the counter's next.
//                            The counter must be zero when the kernel starts: zero it with
//                            cudaMemsetAsync on the launch stream before every launch (a node of
//                            its own in a captured graph, so each replay starts from zero).
//
// Every task does the handshake once per tile and once more, for the invalid entry that ends its
// loop, and the scheduler fetches as often: the ring balances by construction, which the verifier
// checks like any other pipeline (R-D1, R-D15, R-M*).
//
// A kernel adds a skip predicate (ts::skip_if) by deriving: struct MaskedTiles :
// ts::StaticTileQueue { bool masked(ts::WorkTile const&) const; }; the works it inherits are its
// own.
#pragma once

#include <type_traits>

#if defined(__CUDACC__)
#include <cuda/atomic>
#endif

#include "warploom/config.hpp"
#include "warploom/ts/pipeline_config.hpp"
#include "warploom/ts/resource.hpp"
#include "warploom/ts/smem_buffer.hpp"
#include "warploom/ts/stage_info.hpp"

namespace warploom::ts {

struct StaticTileQueue {
  static constexpr ResourceSpec spec{.name = "tile_queue", .kind = ResourceKind::WorkQueue};

  int num_tiles = 0;

  // Consumer work: this CTA's tile of the loop's current fetch (its iteration, loop_offset).
  WL_DEVICE WorkTile next_tile(Consume const& stage) const {
#if defined(__CUDA_ARCH__)
    long long const idx =
        static_cast<long long>(blockIdx.x) + static_cast<long long>(stage.loop_offset) * gridDim.x;
    bool const valid = idx < num_tiles;
    return {valid ? static_cast<int>(idx) : num_tiles, 0, 0, valid};
#else
    (void)stage;
    return {};
#endif
  }
};

// The shared-memory ring of a dynamic queue: `kStages` entries (ts::WorkTile, or a WorkTilePair),
// filled by one scheduler warp (one elected lane arrives: ts::warps(1)) and released by every
// thread of the `kConsumerWarps` warps that take tiles from it, the scheduler's own included (R-D15
// checks the count). Every thread reads the entry, so every thread arrives after its own read: one
// elected lane per warp (after __syncwarp) orders the others' reads just as well, but
// compute-sanitizer's racecheck does not follow that edge and reported each entry's rewrite as a
// race with them (H200, 2026-12-02); one arrival per thread per tile costs nothing at a tile's
// granularity. Two stages let the scheduler fetch the next tile while the slowest task still reads
// the last.
template <int kStages = 2, int kConsumerWarps = 1>
inline constexpr PipelineConfig tile_queue_pipeline = async_async(kStages, warps(1),
                                                                  threads(32 * kConsumerWarps));

// Two tiles in one entry (a DynamicTileQueue of kTilesPerEntry = 2): a pair for two tasks that
// take turns, one tile each (ping-pong's MMA warpgroups), handed to every task in one handshake.
// The entry is valid where its first tile is; its second lies past the last tile where the count
// is odd: {num_tiles, 0, 0, false}, which the kernel runs as its phantom tile.
struct WorkTilePair : WorkTile {
  WorkTile second;
};
static_assert(sizeof(WorkTile) == 16 && sizeof(WorkTilePair) == 32);

// Tile indices as tiles: index i is tile (i, 0, 0). A kernel whose tiles have coordinates maps an
// index once, in the scheduler warp, by deriving and naming itself as `Derived`, which provides
//   WL_DEVICE WorkTile tile_at(int index) const;    // a valid tile
// so every consumer reads the mapped tile from the entry (the grouped GEMM's problem and tile).
// kTilesPerEntry = 2: each entry is the pair of tiles 2e and 2e + 1 of entry index e
// (WorkTilePair), fetched as one.
template <int kStages, int kConsumerWarps, class Derived = void, int kTilesPerEntry = 1>
struct DynamicTileQueue {
  static_assert(kTilesPerEntry == 1 || kTilesPerEntry == 2, "an entry holds a tile or a pair");
  using Entry = std::conditional_t<kTilesPerEntry == 1, WorkTile, WorkTilePair>;
  static constexpr int tiles_per_entry = kTilesPerEntry;
  static constexpr ResourceSpec spec{.name = "tile_queue",
                                     .pipeline = tile_queue_pipeline<kStages, kConsumerWarps>,
                                     .kind = ResourceKind::WorkQueue};

  SmemBuffer<Entry, kStages, 16> entries;  // (STAGES)
  using smem_buffers = buffers<&DynamicTileQueue::entries>;

  int* counter = nullptr;  // fetches past each CTA's first, across the grid; zero at launch
  int num_tiles = 0;
  // Null, or CTAs whose last fetch is done, across the grid; zero at launch. With it, the last CTA
  // to make its last fetch sets both counters back to zero: the next launch on them finds them as
  // this one did, with no memset or setup kernel before it (the grouped GEMM's prepared runs).
  int* drained = nullptr;

  // Producer work of the scheduler warp (every lane): the next tile index — the CTA's own at its
  // first fetch, then the grid's size plus the counter's next — mapped to its tile, and one lane
  // writes the stage's entry; the commit that follows (__syncwarp, then one lane's release-arrive)
  // publishes it. Tiles 0 .. grid - 1 go one to each CTA without the counter: every CTA's first
  // tile waited on an atomic's round trip to L2 before it could start loading (Nsight Compute,
  // the grouped GEMM's seed, H200, 2026-12-07). A Derived whose tile_at_warp maps an index with
  // the whole warp (one load per lane, not one thread's chain of dependent loads) gets every lane.
  WL_DEVICE void fetch_tile(Produce const& stage) {
#if defined(__CUDA_ARCH__)
    bool const leader = threadIdx.x % 32 == 0;
    int entry = 0;
    if (leader)
      entry = stage.loop_offset == 0 ? static_cast<int>(blockIdx.x)
                                     : static_cast<int>(gridDim.x) + atomicAdd(counter, 1);
    entry = __shfl_sync(0xffffffffu, entry, 0);
    Entry e{};
    static_cast<WorkTile&>(e) = mapped(entry * kTilesPerEntry, leader);
    if constexpr (kTilesPerEntry == 2) e.second = mapped(entry * 2 + 1, leader);
    if (leader) {
      entries[stage.stage_idx] = e;
      // The work tile loop stops at its first invalid entry: this CTA fetches no more.
      if (!e.valid && drained != nullptr) rewind_when_drained();
    }
#else
    (void)stage;
#endif
  }

  // Consumer work: the waited stage's entry (every thread reads it: a shared-memory broadcast).
  WL_DEVICE Entry next_tile(Consume const& stage) const {
#if defined(__CUDA_ARCH__)
    return entries[stage.stage_idx];
#else
    (void)stage;
    return {};
#endif
  }

 private:
  // Counts this CTA out; the last one out zeroes both counters. Its count releases this CTA's
  // atomics on `counter` and acquires every other CTA's (their last ones among them), so no fetch
  // of this launch lands after the reset.
  WL_DEVICE void rewind_when_drained() const {
#if defined(__CUDA_ARCH__)
    cuda::atomic_ref<int, cuda::thread_scope_device> out(*drained);
    if (out.fetch_add(1, cuda::memory_order_acq_rel) == static_cast<int>(gridDim.x) - 1) {
      cuda::atomic_ref<int, cuda::thread_scope_device>(*counter).store(0,
                                                                       cuda::memory_order_relaxed);
      out.store(0, cuda::memory_order_relaxed);
    }
#endif
  }

  // Tile `idx` (uniform across the warp) as the entry holds it: mapped by Derived (by the whole
  // warp where it has a warp's lookup, else by the leader, whose value alone is stored), or
  // {num_tiles, 0, 0, false} past the last tile.
  WL_DEVICE WorkTile mapped(int idx, bool leader) const {
    WorkTile tile{num_tiles, 0, 0, false};
#if defined(__CUDA_ARCH__)
    if (idx >= num_tiles) return tile;
    if constexpr (requires(Derived const& d) { d.tile_at_warp(0); }) {
      tile = static_cast<Derived const&>(*this).tile_at_warp(idx);
    } else if (leader) {
      if constexpr (std::is_void_v<Derived>) {
        tile = WorkTile{idx, 0, 0, true};
      } else {
        tile = static_cast<Derived const&>(*this).tile_at(idx);
      }
    }
#else
    (void)idx;
    (void)leader;
#endif
    return tile;
  }
};

}  // namespace warploom::ts
