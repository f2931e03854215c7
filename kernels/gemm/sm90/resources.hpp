// kernels/gemm/sm90/resources.hpp
//
// The resources of the sm90 TS GEMMs (cooperative.hpp, pingpong.hpp) as their schedules see them —
// names, pipelines, shared-memory buffers and the works each declares — and the schedule pieces
// both designs run. No element type appears here: every work forwards to the kernel's works `W`
// (works.cuh: TMA, wgmma and the epilogue for one dtype and layout; schedule_only.hpp: no bodies,
// for verification on the host), so one schedule serves every instance.
//
//   Tiles      which output tile comes next (persistent raster order, clusters)
//   TileQueue  which output tile comes next, decided at run time (a scheduler warp and a counter)
//   SmemAB     one TMA -> wgmma pipeline of A and B tiles
//   GmemD      the epilogue: the accumulator through shared-memory staging to D
//   Staged     the epilogue split in two (a finish task, shape.hpp): the MMA threads stage each
//              subtile of z in shared memory, the finish task completes and stores it
//
// What `W` provides: the types Params, ElementA, ElementB, ElementD and Accumulator, and
//   TileCoord W::tile_at(Params const&, int cluster_tile)
//   int W::k_tiles(Params const&, TileCoord)
//   void W::tma_load(SmemAB&, ts::Produce const&, TileCoord)
//   void W::mma(SmemAB const&, ts::Consume const&, Accumulator&, TileCoord)
//   void W::store(GmemD&, ts::Produce const&, TileCoord, Accumulator const&)
//   int W::subtiles(Params const&, TileCoord)
//   void W::stage(Staged&, ts::Produce const&, TileCoord, Accumulator const&)
//   void W::finish(Staged&, ts::Consume const&, TileCoord)
#pragma once

#include <string_view>
#include <type_traits>

#include "gemm/sm90/schedule_only.hpp"
#include "gemm/tile_raster.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::gemm::sm90 {

namespace ts = warploom::ts;

// Which output tile comes next. The persistent loop walks cluster tiles first, first + stride, ...
// in raster order; W maps a cluster tile to this CTA's own tile of it. A consumer with a share of a
// loop iteration (ping-pong's second warpgroup) asks for the cluster tile `share` x stride further
// on. A cluster tile index past the last one is a phantom tile: its batch coordinate is past the
// last batch, so its TMA loads fill zeros, its MMA is skipped and its stores are dropped — it only
// keeps the pipelines (and the CTAs of a cluster) in step.
//
// How many K tiles a tile has is read per tile (k_tiles_of), not per kernel: the problems of a
// grouped GEMM each have their own K, so the K loops over a tile are a dynamic domain whose bound
// comes from the data (the dense GEMM's is the same for every tile).
template <class S, class W>
struct Tiles {
  static constexpr ts::ResourceSpec spec{.name = "tiles"};
  typename W::Params const* p = nullptr;
  int first = 0;      // this CTA's cluster index
  int stride = 1;     // clusters in the grid
  int num_tiles = 0;  // cluster tiles in the problem

  WL_DEVICE TileCoord next(ts::Consume const& s) const { return W::tile_at(*p, s.loop_offset); }
  template <int kShare>
  WL_DEVICE TileCoord next_share(ts::Consume const& s) const {
    return W::tile_at(*p, s.loop_offset + kShare * stride);
  }
  WL_DEVICE int k_tiles_of(ts::Consume const&, TileCoord tile) const {
    return W::k_tiles(*p, tile);
  }
  // Tile kShare of a pair a dynamic queue handed out (pingpong_dynamic.hpp); a second tile past the
  // last one (an odd count) is the phantom tile.
  template <int kShare>
  WL_DEVICE TileCoord share_of(ts::Consume const&, ts::WorkTilePair const& pair) const {
    ts::WorkTile const& t = kShare == 0 ? static_cast<ts::WorkTile const&>(pair) : pair.second;
    return t.valid ? TileCoord{t.m, t.n, t.l} : W::tile_at(*p, num_tiles);
  }
  // Epilogue subtiles per tile: 128-byte columns of D, so their number depends on D's type, which
  // a schedule does not know (a bound from the data, as k_tiles_of).
  WL_DEVICE int subtiles_of(ts::Consume const&, TileCoord tile) const {
    return W::subtiles(*p, tile);
  }
};

// A tile as the dynamic queue hands it out: a ts::WorkTile (what a tile loop tests) that the works
// take as the TileCoord it holds.
struct QueuedTile : ts::WorkTile {
  WL_HOST_DEVICE constexpr operator TileCoord() const { return {m, n, l}; }
};
static_assert(sizeof(QueuedTile) == sizeof(ts::WorkTile));

// Which output tile comes next, decided at run time (cooperative_dynamic.hpp): a scheduler warp
// takes tile indices from a counter in global memory and broadcasts each tile, looked up once
// (W::tile_at), to the kConsumerWarps warps that run it through a ring of two entries
// (ts::DynamicTileQueue). kTilesPerEntry = 2: each entry a pair of tiles (pingpong_dynamic.hpp).
// The counter must be zero at launch.
template <class W, int kConsumerWarps, int kTilesPerEntry = 1>
struct TileQueue
    : ts::DynamicTileQueue<2, kConsumerWarps, TileQueue<W, kConsumerWarps, kTilesPerEntry>,
                           kTilesPerEntry> {
  using Base = ts::DynamicTileQueue<2, kConsumerWarps, TileQueue, kTilesPerEntry>;
  typename W::Params const* p = nullptr;

  // The scheduler warp's lookup of a taken index (Base::fetch_tile): by one thread, or by the
  // whole warp where the works have a warp's lookup (the grouped GEMM's search of its problems).
  WL_DEVICE ts::WorkTile tile_at(int index) const {
    TileCoord const t = W::tile_at(*p, index);
    return {t.m, t.n, t.l, true};
  }
  WL_DEVICE ts::WorkTile tile_at_warp(int index) const requires
      requires(typename W::Params const& q) {
    W::tile_at_warp(q, 0);
  }
  {
    TileCoord const t = W::tile_at_warp(*p, index);
    return {t.m, t.n, t.l, true};
  }
  // Consumer work: the waited entry's tile (or pair: Tiles::share_of takes each of its tiles).
  using Entry = std::conditional_t<kTilesPerEntry == 1, QueuedTile, ts::WorkTilePair>;
  WL_DEVICE Entry next_tile(ts::Consume const& stage) const { return {Base::next_tile(stage)}; }
};

// Tile kShare (0 or 1) of a queued pair, as the works take it (a work: see Tiles::share_of).
template <int kShare>
WL_HOST_DEVICE constexpr auto share_of(auto& tiles, auto const& pair) {
  using T = typename std::remove_cvref_t<decltype(tiles)>::resource;
  return ts::work<&T::template share_of<kShare>>(tiles, pair);
}

// The number of K tiles of `tile`, as a loop bound (a work's value: see Tiles). At least one: K is
// at least 1 (gemm() refuses less), and a grouped tile with nothing to compute still runs one
// (GroupedWorks::k_tiles), so that ping-pong's last K iteration always hands the turn over.
WL_HOST_DEVICE constexpr auto k_tiles_of(auto& tiles, auto const& tile) {
  using T = typename std::remove_cvref_t<decltype(tiles)>::resource;
  return ts::at_least<1>(ts::work<&T::k_tiles_of>(tiles, tile));
}

// The number of epilogue subtiles of `tile`, as a loop bound.
WL_HOST_DEVICE constexpr auto subtiles_of(auto& tiles, auto const& tile) {
  using T = typename std::remove_cvref_t<decltype(tiles)>::resource;
  return ts::work<&T::subtiles_of>(tiles, tile);
}

// The A and B tiles of each K step, filled by TMA (multicast in a cluster) and read by wgmma
// straight from shared memory. Each stage is released by the kMmaWarpgroups warpgroups of one
// accumulator tile (all MMA warps in the cooperative kernel; in ping-pong the warpgroup whose turn
// it is). A stage is written by every CTA of a cluster, so in a cluster SmemAB is a multicast
// pipeline: each release reaches the stage's empty barrier in every CTA.
template <class S, class W, int kMmaWarpgroups>
struct SmemAB {
  static constexpr ts::ResourceSpec spec{
      .name = "smem_ab",
      .pipeline =
          ts::tma_wgmma(S::kStages, S::kStageBytes, ts::threads(1), ts::warps(kMmaWarpgroups * 4))
              .with_advance_on_wait()
              .with_multicast(S::kClusterSize)};
  using ElementA = typename W::ElementA;
  using ElementB = typename W::ElementB;
  static_assert(S::kBytesA % sizeof(ElementA) == 0 && S::kBytesB % sizeof(ElementB) == 0);

  typename W::Params const* p = nullptr;
  ts::SmemBuffer<ElementA, S::kStages * S::kBytesA / sizeof(ElementA), 1024> a;  // (M, K, STAGE)
  ts::SmemBuffer<ElementB, S::kStages * S::kBytesB / sizeof(ElementB), 1024> b;  // (N, K, STAGE)
  using smem_buffers = ts::buffers<&SmemAB::a, &SmemAB::b>;

  // Both TMA loads of K tile `stage.loop_offset` of `tile`; their bytes complete the stage.
  WL_DEVICE void tma_load(ts::Produce const& stage, TileCoord tile) {
    W::tma_load(*this, stage, tile);
  }
  // Issues (without waiting) the wgmma batch of one K tile of `tile` into `acc`; the first K
  // tile overwrites it.
  WL_DEVICE void mma(ts::Consume const& stage, typename W::Accumulator& acc, TileCoord tile) const {
    W::mma(*this, stage, acc, tile);
  }
};

// Writes alpha * scale_a * scale_b * acc + beta * C to D through kStagingBuffers shared-memory
// subtiles. kSlot of kSlots: which accumulator tile (ping-pong has one per warpgroup).
template <class S, class W, int kSlot_ = 0, int kSlots = 1>
struct GmemD {
  static constexpr int kSlot = kSlot_;
  static constexpr std::string_view kNames[3] = {"gmem_d", "gmem_d0", "gmem_d1"};
  static_assert(kSlots <= 2 && kSlot < kSlots);
  static constexpr ts::ResourceSpec spec{.name = kNames[kSlots == 1 ? 0 : 1 + kSlot]};
  using ElementD = typename W::ElementD;

  typename W::Params const* p = nullptr;
  ts::SmemBuffer<ElementD, S::kStagingBuffers * S::kStagingBytes / sizeof(ElementD), 1024>
      staging;  // (BUFFER, M, 128 bytes)
  using smem_buffers = ts::buffers<&GmemD::staging>;

  WL_DEVICE void store(ts::Produce const& stage, TileCoord tile,
                       typename W::Accumulator const& acc) {
    W::store(*this, stage, tile, acc);
  }
};

// The epilogue in two tasks: the MMA threads of accumulator tile kSlot write z (alpha * acc +
// beta * C, the row and column terms of a fused chain) subtile by subtile into the staging
// buffers; the finish task runs the chain's second pass over each staged subtile (activation,
// residual, pre-activation output), and stores it with TMA, which reads the buffer asynchronously:
// the stage goes back to the MMA threads only once that read retired (async_tma, R-D13). Every
// thread of both sides arrives (a warp's elected lane after __syncwarp is an edge racecheck does
// not follow). Every subtile of every tile passes through the pipeline, phantom tiles and subtiles
// beyond N included (their works do nothing), so both sides count alike.
template <class S, class W, int kSlot_, int kFinishWarp_, int kFinishWarps>
struct Staged {
  static constexpr int kSlot = kSlot_;
  static constexpr int kFinishWarp = kFinishWarp_;  // the finish task's first warp
  static constexpr int kFinishThreads = 32 * kFinishWarps;
  static constexpr std::string_view kNames[2] = {"staged0", "staged1"};
  static constexpr ts::ResourceSpec spec{
      .name = kNames[kSlot],
      .pipeline = ts::async_tma(S::kStagingBuffers, ts::threads(128), ts::threads(kFinishThreads))};
  using ElementD = typename W::ElementD;

  typename W::Params const* p = nullptr;
  ts::SmemBuffer<ElementD, S::kStagingBuffers * S::kStagingBytes / sizeof(ElementD), 1024>
      staging;  // (BUFFER, M, 128 bytes)
  using smem_buffers = ts::buffers<&Staged::staging>;

  // z of subtile `stage.loop_offset` of `tile` into buffer `stage.stage_idx`.
  WL_DEVICE void stage(ts::Produce const& stage, TileCoord tile,
                       typename W::Accumulator const& acc) {
    W::stage(*this, stage, tile, acc);
  }
  // The second pass over the staged subtile, then its store.
  WL_DEVICE void finish(ts::Consume const& stage, TileCoord tile) { W::finish(*this, stage, tile); }
};

// ---- Schedule pieces both designs run -----------------------------------------------------------

// Load side: every K tile of `tile` into the ring (acquire a stage, TMA A and B into it, commit).
template <class Ring>
WL_HOST_DEVICE constexpr void load_k_tiles(auto& ctx, auto& tiles, auto& smem, auto const& tile) {
  ctx.domain_loop(k_tiles_of(tiles, tile), [&](auto&) {
    smem.acquire();
    ts::work<&Ring::tma_load>(smem, tile);
    smem.commit();
  });
}

// MMA side: the wgmma batch of every K tile of `tile` into `acc`, one batch kept in flight
// (`wgmma_wait<1>`) and each stage released once the batch after it was issued (the lagged
// release the verifier checks under R-D13); the last stage after the last batch retired.
// `after_last_issue` runs once the last K tile's batch is issued, before it retires (ping-pong
// hands the tensor cores to the other warpgroup there, as CUTLASS's ordered barrier does).
template <class Ring>
WL_HOST_DEVICE constexpr void mma_k_tiles(auto& ctx, auto& tiles, auto& smem, auto& acc,
                                          auto const& tile, auto&& after_last_issue) {
  ctx.domain_loop(k_tiles_of(tiles, tile), [&](auto& k) {
    smem.wait();
    ts::work<&Ring::mma>(smem, acc, tile);
    ts::wgmma_wait<1>(ctx);                     // the previous K tile's reads retired
    k.not_first_iter([&] { smem.release(); });  // ... so its stage goes back to TMA
    k.last_iter([&] {
      after_last_issue();
      ts::wgmma_wait<0>(ctx);
      smem.release();
    });
  });
  // Again, unconditionally: ptxas cannot tell that last_iter ran, and to keep the epilogue from
  // reading accumulators still in flight it would otherwise put a full wgmma wait on every K
  // iteration (C7517), ending the overlap of consecutive batches.
  ts::wgmma_wait<0>(ctx);
}
template <class Ring>
WL_HOST_DEVICE constexpr void mma_k_tiles(auto& ctx, auto& tiles, auto& smem, auto& acc,
                                          auto const& tile) {
  mma_k_tiles<Ring>(ctx, tiles, smem, acc, tile, [] {});
}

// Ping-pong's MMA side for the other warpgroup's tile: its K tiles' stages passed without waiting
// (skip(): the cursor moves on; the turns make that safe, pingpong.hpp).
WL_HOST_DEVICE constexpr void pass_k_tiles(auto& ctx, auto& tiles, auto& smem, auto const& other) {
  ctx.domain_loop(k_tiles_of(tiles, other), [&](auto&) { smem.skip(); });
}

// Epilogue side of a finish task's pipeline: every subtile of `tile` staged (acquire a buffer,
// write z into it, commit). The work may also finish and store a subtile itself (epilogue.cuh,
// Epilogue::stage): its TMA store has read the buffer before the commit hands it on.
template <class Out>
WL_HOST_DEVICE constexpr void stage_subtiles(auto& ctx, auto& tiles, auto& out, auto& acc,
                                             auto const& tile) {
  ctx.domain_loop(subtiles_of(tiles, tile), [&](auto&) {
    out.acquire();
    ts::work<&Out::stage>(out, tile, acc);
    ts::bulk_wait_read<0>(ctx);
    out.commit();
  });
}

// Finish side: every subtile of `tile` completed and stored, its buffer released once the TMA
// store read it.
template <class Out>
WL_HOST_DEVICE constexpr void finish_subtiles(auto& ctx, auto& tiles, auto& out, auto const& tile) {
  ctx.domain_loop(subtiles_of(tiles, tile), [&](auto&) {
    out.wait();
    ts::work<&Out::finish>(out, tile);
    ts::bulk_wait_read<0>(ctx);
    out.release();
  });
}

}  // namespace warploom::gemm::sm90
