// kernels/gemm/sm90/schedule_only.hpp
//
// Works without bodies: a GEMM schedule instantiated with them (Cooperative<S, ScheduleOnly>) is
// the schedule itself, independent of every element type and layout. It is what the schedule units
// verify and register, on the host, with a plain C++ compiler. Capture never runs a work, so these
// bodies are never called; the element types only have to give the buffers their byte sizes.
#pragma once

#include <cstddef>

#include "gemm/tile_raster.hpp"
#include "warploom/ts/stage_info.hpp"

namespace warploom::gemm::sm90 {

struct ScheduleOnly {
  struct Params {};
  struct Accumulator {};
  using ElementA = std::byte;
  using ElementB = std::byte;
  using ElementD = std::byte;

  static constexpr TileCoord tile_at(Params const&, int) { return {}; }
  static constexpr int k_tiles(Params const&, TileCoord) { return 0; }
  static constexpr void tma_load(auto&, ts::Produce const&, TileCoord) {}
  static constexpr void mma(auto const&, ts::Consume const&, Accumulator&, TileCoord) {}
  static constexpr void store(auto&, ts::Produce const&, TileCoord, Accumulator const&) {}
  static constexpr int subtiles(Params const&, TileCoord) { return 0; }
  static constexpr void stage(auto&, ts::Produce const&, TileCoord, Accumulator const&) {}
  static constexpr void finish(auto&, ts::Consume const&, TileCoord) {}
};

}  // namespace warploom::gemm::sm90
