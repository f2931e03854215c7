// kernels/attention/sm90/schedule_only.hpp
//
// Works without bodies: the attention schedule instantiated with them (Forward<S, ScheduleOnly>)
// is the schedule itself, independent of the element type and the mask. It is what the schedule
// units verify and register on the host; capture never runs a work, so these bodies never run and
// the element type only gives the buffers their byte sizes.
#pragma once

#include <cstddef>

#include "attention/sm90/tile.hpp"
#include "warploom/ts/stage_info.hpp"

namespace warploom::attention::sm90 {

struct ScheduleOnly {
  struct Params {};
  struct Scores {};
  struct OutputState {};
  struct PTile {};
  struct OutputTile {};
  using Element = std::byte;

  static constexpr TileInfo tile_at(Params const&, int) { return {}; }
  static constexpr void load_q(auto&, ts::Produce const&, TileInfo) {}
  static constexpr void load_k(auto&, ts::Produce const&, TileInfo, int) {}
  static constexpr void load_v(auto&, ts::Produce const&, TileInfo) {}
  static constexpr void qk(auto const&, ts::Consume const&, Scores&, int) {}
  static constexpr void online_softmax(auto&, ts::Produce const&, Scores&, OutputState&, TileInfo) {
  }
  static constexpr void finish_softmax(auto&, ts::Produce const&, Scores const&, PTile&,
                                       OutputState&) {}
  static constexpr void pv(auto const&, ts::Consume const&, PTile const&, OutputState&) {}
  static constexpr void normalize(auto&, ts::Produce const&, OutputState const&, OutputTile&) {}
  static constexpr void store(auto&, ts::Produce const&, OutputTile const&, TileInfo) {}
  static constexpr void write(auto&, ts::Produce const&, OutputState const&, TileInfo) {}
};

}  // namespace warploom::attention::sm90
