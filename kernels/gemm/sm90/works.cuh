// kernels/gemm/sm90/works.cuh
//
// The work bodies of one typed sm90 TS GEMM configuration, as the schedules' resources call them
// (resources.hpp lists the interface): the main loop's (mainloop.cuh) and the epilogue's
// (epilogue.cuh).
#pragma once

#include "gemm/sm90/config.cuh"
#include "gemm/sm90/epilogue.cuh"
#include "gemm/sm90/mainloop.cuh"

namespace warploom::gemm::sm90 {

template <class Cfg>
struct Works : Mainloop<Cfg> {
  using Params = typename Cfg::Params;
  using ElementA = typename Cfg::TA;
  using ElementB = typename Cfg::TB;
  using ElementD = typename Cfg::TD;
  using Accumulator = typename Cfg::Accumulator;

  template <class D>
  static WL_DEVICE void store(D& d, ts::Produce const&, TileCoord tile, Accumulator const& acc) {
    Epilogue<Cfg, D::kSlot>{reinterpret_cast<char*>(d.staging.get()), d.p}.store(tile, acc);
  }
};

}  // namespace warploom::gemm::sm90
