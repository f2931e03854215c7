// kernels/gemm/sm90/works.cuh
//
// The work bodies of one typed sm90 TS GEMM configuration, as the schedules' resources call them
// (resources.hpp lists the interface): the main loop's (mainloop.cuh) and the epilogue's
// (epilogue.cuh).
#pragma once

#include "gemm/sm90/config.cuh"
#include "gemm/sm90/epilogue.cuh"
#include "gemm/sm90/mainloop.cuh"
#include "gemm/sm90/split_k_fold.cuh"
#include "gemm/sm90/stream_k.cuh"

namespace warploom::gemm::sm90 {

template <class Cfg>
struct Works : Mainloop<Cfg> {
  using Params = typename Cfg::Params;
  using ElementA = typename Cfg::TA;
  using ElementB = typename Cfg::TB;
  using ElementD = typename Cfg::TD;
  using Accumulator = typename Cfg::Accumulator;

  // The task's accumulator, to read (or, stream-K's owner, add into) with no read hoisted above
  // the schedule's wgmma wait: the fence takes the registers as in-out operands, hence the cast.
  static WL_DEVICE Accumulator& fenced(Accumulator const& acc) {
    auto& sum = const_cast<Accumulator&>(acc);
    auto accum = sum.tensor();
    cute::warpgroup_fence_operand(accum);
    return sum;
  }

  // A stream-K piece (Cfg::kStreamK) writes its partial sums, or, owning its tile, adds
  // those of the pieces after it first: in place, into the task's accumulator, which only this
  // epilogue reads before the next tile's first K tile overwrites it — the data flow the schedule
  // declares (the accumulator read here) is unchanged.
  // A split-K slice that adds the slices up itself (Cfg::kSplitKFold, Params::split_k active)
  // writes its partial sums instead of D, and, where it is the tile's last, D: the accumulator is
  // only read, here as in the epilogue.
  template <class D>
  static WL_DEVICE void store(D& d, ts::Produce const& s, TileCoord tile, Accumulator const& acc) {
    if constexpr (Cfg::kSplitKFold) {
      if (d.p->split_k.active()) {  // uniform: a kernel parameter
        SplitKFoldTile<Cfg>::run(d.p->split_k, d.p->raster, tile, accumulator_scale(*d.p),
                                 fenced(acc), s.context);
        return;
      }
    }
    if constexpr (Cfg::kStreamK) {
      if (tile.peers != 0) {  // uniform across the task
        Accumulator& sum = fenced(acc);
        int const cta = static_cast<int>(blockIdx.x);
        if (tile.peers < 0) {
          StreamKFixup<Cfg>::publish(d.p->stream_k, cta, sum, s.context);
          return;
        }
        StreamKFixup<Cfg>::add_peers(d.p->stream_k, cta, tile.peers, sum, s.context);
      }
    }
    Epilogue<Cfg, D::kSlot>{reinterpret_cast<char*>(d.staging.get()), d.p, s.context}.store(tile,
                                                                                            acc);
  }
  // The epilogue split between the MMA threads and a finish task (resources.hpp, Staged).
  static WL_DEVICE int subtiles(Params const&, TileCoord) { return Cfg::kEpiTiles; }
  template <class D>
  static WL_DEVICE void stage(D& d, ts::Produce const& s, TileCoord tile, Accumulator const& acc) {
    Epilogue<Cfg, D::kSlot>{reinterpret_cast<char*>(d.staging.get()), d.p, s.context}.stage(
        tile, acc, s.loop_offset, s.stage_idx);
  }
  template <class D>
  static WL_DEVICE void finish(D& d, ts::Consume const& s, TileCoord tile) {
    Epilogue<Cfg, D::kSlot>{reinterpret_cast<char*>(d.staging.get()), d.p, s.context}
        .template finish_subtile<D::kFinishWarp, D::kFinishThreads>(tile, s.loop_offset,
                                                                    s.stage_idx);
  }
};

}  // namespace warploom::gemm::sm90
