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
//
// Warp roles (`.warp_roles = true`): each warp of the task runs the schedule as a task of its own,
// and the schedule may branch on ctx.warp_idx() around pipeline ops (elsewhere R-D24 refuses that
// in a task of more than one warp):
//
//   struct LoadTask {  // warp 4 fills the A ring, warp 5 the B ring
//     static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 4, .num_warps = 2,
//                                        .warp_roles = true};
//     ...
//     static constexpr void schedule(auto& ctx, auto& in, auto& a, auto& b) {
//       if (ctx.warp_idx() == 4) { ... a.acquire(); ... a.commit(); } else { ... b ... }
//     }
//   };
//
// The verifier checks each warp as its own one-warp task (named "load[warp 4]", ...): its own
// pipeline cursors, arrivals counted per warp that makes them, the producer drain only on the
// rings that warp fills; the task gets no named barrier (ts::sync_task syncs the warp).
//
// A kernel declares only the warps that do work. setmaxnreg is warpgroup-wide, so the warps a
// warpgroup's tasks leave idle must execute the same one: the TaskManager derives that padding
// itself (ts::derive_padding, model.hpp) and the verifier and `warploom verify` show it.
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
  int num_registers = 0;    // per-thread budget set with setmaxnreg; 0 keeps the kernel's count
  bool warp_roles = false;  // each warp runs the schedule as a one-warp task of its own (above)
};

template <class T>
concept Task = requires {
  { T::spec } -> std::convertible_to<TaskSpec>;
  typename T::src;
  typename T::dst;
};

template <class... Ts>
struct Tasks {};

}  // namespace warploom::ts
