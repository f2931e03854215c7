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

// The shared-memory ring of a dynamic queue: `kStages` 16-byte entries (ts::WorkTile), filled by
// one scheduler warp (one elected lane arrives: ts::warps(1)) and released by every thread of the
// `kConsumerWarps` warps that take tiles from it, the scheduler's own included (R-D15 checks the
// count). Every thread reads the entry, so every thread arrives after its own read: one elected
// lane per warp (after __syncwarp) orders the others' reads just as well, but compute-sanitizer's
// racecheck does not follow that edge and reported each entry's rewrite as a race with them (H200,
// 2026-12-02); one arrival per thread per tile costs nothing at a tile's granularity.
// Two stages let the scheduler fetch the next tile while the slowest task still reads the last.
template <int kStages = 2, int kConsumerWarps = 1>
inline constexpr PipelineConfig tile_queue_pipeline = async_async(kStages, warps(1),
                                                                  threads(32 * kConsumerWarps));

// Tile indices as tiles: index i is tile (i, 0, 0). A kernel whose tiles have coordinates maps an
// index once, in the scheduler warp, by deriving and naming itself as `Derived`, which provides
//   WL_DEVICE WorkTile tile_at(int index) const;    // a valid tile
// so every consumer reads the mapped tile from the entry (the grouped GEMM's problem and tile).
template <int kStages, int kConsumerWarps, class Derived = void>
struct DynamicTileQueue {
  static constexpr ResourceSpec spec{.name = "tile_queue",
                                     .pipeline = tile_queue_pipeline<kStages, kConsumerWarps>,
                                     .kind = ResourceKind::WorkQueue};
  static_assert(sizeof(WorkTile) == 16, "a queue entry is 16 bytes");

  SmemBuffer<WorkTile, kStages, 16> entries;  // (STAGES)
  using smem_buffers = buffers<&DynamicTileQueue::entries>;

  int* counter = nullptr;  // fetches past each CTA's first, across the grid; zero at launch
  int num_tiles = 0;

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
    int idx = 0;
    if (leader)
      idx = stage.loop_offset == 0 ? static_cast<int>(blockIdx.x)
                                   : static_cast<int>(gridDim.x) + atomicAdd(counter, 1);
    WorkTile tile{num_tiles, 0, 0, false};
    if constexpr (requires(Derived const& d) { d.tile_at_warp(0); }) {
      idx = __shfl_sync(0xffffffffu, idx, 0);
      if (idx < num_tiles) tile = static_cast<Derived const&>(*this).tile_at_warp(idx);  // uniform
    } else if (leader && idx < num_tiles) {
      if constexpr (std::is_void_v<Derived>) {
        tile = WorkTile{idx, 0, 0, true};
      } else {
        tile = static_cast<Derived const&>(*this).tile_at(idx);
      }
    }
    if (leader) entries[stage.stage_idx] = tile;
#else
    (void)stage;
#endif
  }

  // Consumer work: the waited stage's entry (every thread reads it: a shared-memory broadcast).
  WL_DEVICE WorkTile next_tile(Consume const& stage) const {
#if defined(__CUDA_ARCH__)
    return entries[stage.stage_idx];
#else
    (void)stage;
    return {};
#endif
  }
};

}  // namespace warploom::ts
