// warploom/ts/task_barrier.hpp
//
// Named barriers owned by the framework. Every task of more than one warp gets a hardware barrier
// of its own (bar.sync <id>, <its threads>), handed out by its TaskManager in task order from 1
// (0 is __syncthreads'), so a kernel never picks an id another task's barrier, or __syncthreads,
// also uses. A one-warp task has none: it syncs with __syncwarp; so does each warp of a task whose
// warps take roles (TaskSpec::warp_roles). A work syncs its task's threads
// with ts::sync_task(stage.context):
//
//   WL_DEVICE void store(ts::Produce const& stage, ...) {
//     ...  // every thread of the task writes its part of the staging buffer
//     ts::sync_task(stage.context);
//     ...  // one thread stores the whole buffer
//   }
//
// The verifier's model records each task's barrier (ts::TaskModel::barrier; `warploom verify`
// prints it), and the TaskManager refuses, at compile time, more barriers than the hardware has.
#pragma once

#include <cstddef>
#include <type_traits>

#include "warploom/config.hpp"
#include "warploom/ts/stage_info.hpp"
#include "warploom/ts/task.hpp"
#include "warploom/ts/type_list.hpp"

namespace warploom::ts {

// Hardware named barriers per CTA (PTX bar.sync: ids 0-15).
inline constexpr int kNamedBarriers = 16;

constexpr bool needs_task_barrier(TaskSpec const& s) {
  return s.num_warps > 1 && !s.warp_roles;  // a warp role syncs its one warp
}

// The named barrier of task T among `Ts` (a TaskManager's tasks, in order); 0 for none.
template <class T, class... Ts>
constexpr int task_barrier(list<Ts...>) {
  if (!needs_task_barrier(T::spec)) return 0;
  constexpr bool is_t[] = {std::is_same_v<T, Ts>...};
  constexpr TaskSpec specs[] = {Ts::spec...};
  int id = 0;
  for (std::size_t i = 0; i < sizeof...(Ts); ++i) {
    if (needs_task_barrier(specs[i])) ++id;
    if (is_t[i]) return id;
  }
  return 0;
}

// How many named barriers the tasks `Ts` take, __syncthreads' included.
template <class... Ts>
constexpr int named_barriers_used(list<Ts...>) {
  return 1 + (static_cast<int>(needs_task_barrier(Ts::spec)) + ... + 0);
}

#if defined(__CUDACC__)
// Every thread of the calling task waits for the others (and orders their shared-memory accesses
// as __syncthreads does, among them only).
WL_DEVICE void sync_task(ResourceContext const& task) {
  if (task.task_barrier == 0) {
    __syncwarp();
  } else {
    asm volatile("bar.sync %0, %1;" ::"r"(task.task_barrier), "r"(task.task_threads) : "memory");
  }
}

// sync_task, which also tells every thread of the task whether `pred` held on any of them (the
// barrier's own reduction, bar.red.or: no shared memory to broadcast through).
WL_DEVICE bool sync_task_or(ResourceContext const& task, bool pred) {
  if (task.task_barrier == 0) {
    __syncwarp();
    return __any_sync(0xffffffffu, pred);
  }
  unsigned any = 0;
  asm volatile(
      "{\n"
      "  .reg .pred p, q;\n"
      "  setp.ne.u32 p, %1, 0;\n"
      "  bar.red.or.pred q, %2, %3, p;\n"
      "  selp.u32 %0, 1, 0, q;\n"
      "}\n"
      : "=r"(any)
      : "r"(static_cast<unsigned>(pred)), "r"(task.task_barrier), "r"(task.task_threads)
      : "memory");
  return any != 0;
}
#endif

}  // namespace warploom::ts
