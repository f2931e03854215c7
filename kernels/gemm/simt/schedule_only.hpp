// kernels/gemm/simt/schedule_only.hpp
//
// Works without bodies: a SIMT GEMM schedule instantiated with them (Schedule<S, ScheduleOnly>) is
// the schedule itself, independent of every element type. It is what the schedule units verify
// and register, on the host, with a plain C++ compiler. Capture never runs a work, so these bodies
// are never called; the element type only has to give the stages their byte sizes, and the
// operands `a` and `b` only have to exist for GmemAB::load to name them.
#pragma once

#include <cstddef>

#include "gemm/tile_raster.hpp"
#include "warploom/ts/stage_info.hpp"

namespace warploom::gemm::simt {

struct ScheduleOnly {
  struct Operand {};
  struct Values {};
  struct Params {
    Operand a, b;
  };
  struct LoadFragment {
    Values a, b;
  };
  struct Accumulator {};
  using Element = std::byte;

  static constexpr TileCoord tile_at(Params const&, int) { return {}; }
  template <int kRows>
  static constexpr void load_operand(auto const&, Operand const&, int, int, int, Values&) {}
  static constexpr void store_stage(auto const&, ts::Produce const&, LoadFragment const&) {}
  static constexpr void fma(auto const&, ts::Consume const&, Accumulator&) {}
  static constexpr void store_d(auto const&, ts::Produce const&, TileCoord, Accumulator&) {}
};

}  // namespace warploom::gemm::simt
