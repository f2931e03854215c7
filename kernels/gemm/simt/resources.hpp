// kernels/gemm/simt/resources.hpp
//
// The resources of the SIMT TS GEMM (schedule.hpp) as its schedule sees them — names, the stage
// pipeline, shared-memory buffers and the works each declares. No element type appears here:
// every work forwards to the kernel's works `W` (works.cuh: loads, FMA and epilogue for one type
// pair; schedule_only.hpp: no bodies, for verification on the host), so one schedule serves every
// type pair with the same accumulator. (GmemAB::load forwards each operand separately; see there.)
//
//   Tiles   which output tile comes next (persistent raster order)
//   GmemAB  A and B in global memory, read by the load task
//   SmemAB  the stages: A and B in the compute type, threads -> threads
//   GmemD   D (and C), written from the math threads' registers
//
// What `W` provides: the types Params, Element (the compute type), Accumulator and LoadFragment,
// and
//   TileCoord W::tile_at(Params const&, int tile)
//   void W::load_operand<kRows>(GmemAB const&, Operand const&, int row0, int k0, int l, Values&)
//       for (Params::a, LoadFragment::a) and (Params::b, LoadFragment::b)
//   void W::store_stage(SmemAB const&, ts::Produce const&, LoadFragment const&)
//   void W::fma(SmemAB const&, ts::Consume const&, Accumulator&)
//   void W::store_d(GmemD const&, ts::Produce const&, TileCoord, Accumulator&)
#pragma once

#include "gemm/simt/schedule_only.hpp"
#include "gemm/tile_raster.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::gemm::simt {

namespace ts = warploom::ts;

// Which output tile comes next: the persistent loop's index in raster order.
template <class W>
struct Tiles {
  static constexpr ts::ResourceSpec spec{.name = "tiles"};
  typename W::Params const* p = nullptr;
  int num_tiles = 0;
  int k_tiles = 0;

  WL_DEVICE TileCoord next(ts::Consume const& s) const { return W::tile_at(*p, s.loop_offset); }
};

// A and B in global memory, read by the load task.
template <class S, class W>
struct GmemAB {
  static constexpr ts::ResourceSpec spec{.name = "gmem_ab"};
  typename W::Params const* p = nullptr;

  // This thread's values of K tile `s.loop_offset` of `tile`, zero outside the matrix: its share
  // of the tile's (BLK_M, BLK_K) block of A and (BLK_N, BLK_K) block of B. The work splits into
  // the operands itself instead of forwarding whole to W like the others: forwarded whole, the
  // loads sit one inlined call deeper, nvcc folds their K bound (k - k0 - k of the thread) into
  // the address arithmetic and allocates the load task's registers anew (fp32: 8 instructions
  // fewer, ~1400 of 6224 changed) — no longer the kernel measured in docs/kernels/simt_gemm.md.
  WL_DEVICE typename W::LoadFragment load(ts::Consume const& s, TileCoord tile) const {
    typename W::LoadFragment f;
    int const k0 = s.loop_offset * S::kTileK;
    W::template load_operand<S::kTileM>(*this, p->a, tile.m * S::kTileM, k0, tile.l, f.a);
    W::template load_operand<S::kTileN>(*this, p->b, tile.n * S::kTileN, k0, tile.l, f.b);
    return f;
  }
};

// The stages: A as (K, M) and B as (K, N), in the compute type. Written by the load threads,
// read by the math threads straight into registers, so a stage is free again once the math work
// returns. Every thread arrives (commit, release) for itself: each arrival orders that thread's
// own accesses, which compute-sanitizer's racecheck can follow (it does not follow the
// __syncwarp-then-one-lane arrival of ts::warps groups), at 256 + 128 arrivals per stage.
template <class S, class W>
struct SmemAB {
  static constexpr ts::ResourceSpec spec{
      .name = "smem_ab",
      .pipeline =
          ts::async_async(S::kStages, ts::threads(S::kLoadThreads), ts::threads(S::kMathThreads))};
  using Element = typename W::Element;
  static_assert(S::kStageBytesA % sizeof(Element) == 0 && S::kStageBytesB % sizeof(Element) == 0);

  template <int kStageBytes>
  using Ring = ts::SmemBuffer<Element, S::kStages * kStageBytes / sizeof(Element)>;

  typename W::Params const* p = nullptr;
  Ring<S::kStageBytesA> a;  // (STAGES, BLK_K, BLK_M + PAD)
  Ring<S::kStageBytesB> b;  // (STAGES, BLK_K, BLK_N + PAD)
  using smem_buffers = ts::buffers<&SmemAB::a, &SmemAB::b>;

  // Widens this thread's values and writes them to the acquired stage.
  WL_DEVICE void store(ts::Produce const& s, typename W::LoadFragment const& f) const {
    W::store_stage(*this, s, f);
  }
  // One K tile of the thread's block: the stage into registers, FMA into `acc`.
  WL_DEVICE void fma(ts::Consume const& s, typename W::Accumulator& acc) const {
    W::fma(*this, s, acc);
  }
};

// D (and C), row-major, written from the math threads' registers.
template <class W>
struct GmemD {
  static constexpr ts::ResourceSpec spec{.name = "gmem_d"};
  typename W::Params const* p = nullptr;

  // Writes the thread's block of `tile` (alpha, beta, predicated on M and N) and clears the
  // accumulator for the next tile.
  WL_DEVICE void store(ts::Produce const& s, TileCoord tile, typename W::Accumulator& acc) const {
    W::store_d(*this, s, tile, acc);
  }
};

}  // namespace warploom::gemm::simt
