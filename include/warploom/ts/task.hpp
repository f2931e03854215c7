// warploom/ts/task.hpp
//
// A task is the unit of warp specialisation: a contiguous warp range, an optional register budget
// and one schedule, plus the resources it reads (src: consumer side) and writes (dst: producer
// side).
//
//   struct LoadTask {
//     static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 4, .num_warps = 1,
//                                        .num_registers = 40};
//     using src = ts::list<InputGmem>;
//     using dst = ts::list<SmemTiles>;
//     static constexpr void schedule(auto& ctx, auto& in, auto& smem) { ... }
//   };
//
// `schedule` receives the context and one handle per resource, src first, then dst, in list
// order. It is instantiated twice: with the capturing context on the host (the verifier reads it)
// and with the device context in the kernel (it *is* the task's code).
#pragma once

#include <concepts>
#include <string_view>

#include "warploom/config.hpp"
#include "warploom/ts/type_list.hpp"

namespace warploom::ts {

struct TaskSpec {
  std::string_view name;
  int warp_idx = 0;
  int num_warps = 1;
  int num_registers = 0;  // per-thread budget set with setmaxnreg; 0 keeps the kernel's count
  bool is_padding = false;
};

template <class T>
concept Task = requires {
  { T::spec } -> std::convertible_to<TaskSpec>;
  typename T::src;
  typename T::dst;
};

// Gives the warps of a warpgroup that no task uses the group's register budget (R-D2), with an
// empty schedule. Register reconfiguration is warpgroup-wide, so a load task on warp 4 with 40
// registers needs warps 5-7 covered with 40 as well: ts::PaddingTask<5, 3, 40>.
template <int kWarpIdx, int kNumWarps, int kRegisters = 0>
struct PaddingTask {
  static constexpr TaskSpec spec{.name = "padding",
                                 .warp_idx = kWarpIdx,
                                 .num_warps = kNumWarps,
                                 .num_registers = kRegisters,
                                 .is_padding = true};
  using src = list<>;
  using dst = list<>;
  WL_HOST_DEVICE static constexpr void schedule(auto&) {}
};

template <class... Ts>
struct Tasks {};

}  // namespace warploom::ts
