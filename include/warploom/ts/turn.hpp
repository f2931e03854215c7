// warploom/ts/turn.hpp
//
// Two tasks taking turns at a shared unit (the tensor cores, in the ping-pong GEMM and attention):
// task 0 runs its section, hands the turn to task 1, which runs its own and hands it back, and so
// on. Each direction is a one-stage pipeline without data (CUTLASS's OrderedSequenceBarrier), so
// the verifier sees the hand-overs as it sees any other pipeline: a turn taken that nobody gives
// is a deadlock it reports, a give that nobody takes leaves a stage it reports unconsumed.
//
//   struct Task0 { using src = ts::list<..., ts::Turn<1>>; using dst = ts::list<..., ts::Turn<0>>;
//     ... ts::take_turn(turn1);  /* the section */  ts::give_turn(turn0); ... };
//
// kWarps: the warps of each task (both arrive with one lane per warp).
#pragma once

#include <string_view>

#include "warploom/config.hpp"
#include "warploom/ts/pipeline_config.hpp"
#include "warploom/ts/resource.hpp"

namespace warploom::ts {

// The turn handed from task kFrom (0 or 1) to the other.
template <int kFrom, int kWarps = 4>
struct Turn {
  static_assert(kFrom == 0 || kFrom == 1, "two tasks take turns");
  static constexpr std::string_view kNames[2] = {"turn0", "turn1"};
  static constexpr ResourceSpec spec{.name = kNames[kFrom],
                                     .pipeline = async_async(1, warps(kWarps), warps(kWarps))};
};

// Waits until the other task handed the turn over (`turn`: its Turn, in this task's src).
WL_HOST_DEVICE constexpr void take_turn(auto& turn) {
  turn.wait();
  turn.release();
}

// Hands the turn to the other task (`turn`: this task's Turn, in its dst).
WL_HOST_DEVICE constexpr void give_turn(auto& turn) {
  turn.acquire();
  turn.commit();
}

}  // namespace warploom::ts
