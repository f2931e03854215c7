// warploom/ts/manager_traits.hpp
//
// The compile-time shape of a TaskManager: its tasks, dependency graph, resource table, options
// and shared-memory alias groups. Both the host description (describe.hpp) and the device
// lowering (task_manager.hpp) are derived from it.
#pragma once

#include <type_traits>

#include "warploom/ts/dependency_graph.hpp"
#include "warploom/ts/model.hpp"
#include "warploom/ts/pipeline_group.hpp"
#include "warploom/ts/pipeline_ops.hpp"
#include "warploom/ts/task.hpp"
#include "warploom/ts/type_list.hpp"

namespace warploom::ts {

// Where a TaskManager's compile-time check runs (schedule_unit.hpp). KernelUnit: in every
// translation unit that lowers it (setup_resources_and_tasks). ScheduleUnit: once, in the unit of
// the schedule it shares with other instances; the kernel launches with that unit's proof.
enum class VerifiedIn { KernelUnit, ScheduleUnit };

struct ManagerOptions {
  int block_warps = 0;  // warps per CTA; 0: derived from the tasks (rounded up to a warpgroup)
  long long smem_capacity = kSmemCapacityBytes;
  // Capture and check the schedules while the kernel compiles (turn off only for schedules so
  // large that constant evaluation is slow; ts::launch still verifies on the host).
  bool compile_time_checks = true;
  VerifiedIn verified_in = VerifiedIn::KernelUnit;
  // States the compile-time model check may explore per scenario before leaving the verdict to
  // the host check.
  long long compile_time_model_check_states = 2000;
};

// Buffers that share one shared-memory region, one phase each (e.g. the mainloop's operand
// stages and the epilogue's staging tile): ts::Alias<&SmemAB::tiles, &Epilogue::staging>.
template <auto... kMembers>
struct Alias {};
template <class... Groups>
struct Aliases {};

template <class TaskList, class GraphT, ManagerOptions kOptions = ManagerOptions{},
          class AliasList = Aliases<>>
struct ManagerTraits;

template <class... Ts, class GraphT, ManagerOptions kOptions, class AliasList>
struct ManagerTraits<Tasks<Ts...>, GraphT, kOptions, AliasList> {
  static_assert((Task<Ts> && ...),
                "R-B1: every task needs `static constexpr ts::TaskSpec spec`, `using src = "
                "ts::list<...>`, `using dst = ts::list<...>` and a static schedule function");
  using tasks = list<Ts...>;
  using graph = GraphT;
  using aliases = AliasList;
  // Every resource a task or the graph names, and the members of every pipeline group among them.
  using resources = with_group_members_t<
      unique_t<concat_t<typename Ts::src..., typename Ts::dst..., typename GraphT::resources>>>;
  static_assert(check_group_membership<resources>());
  static constexpr ManagerOptions options = kOptions;
  static constexpr int num_tasks = sizeof...(Ts);

  template <class R>
  static constexpr int resource_index = index_of_v<R, resources>;
};

// Which side of resource R task T is on.
template <class T, class R>
inline constexpr Access access_v =
    contains_v<R, typename T::src>&& contains_v<R, typename T::dst> ? Access::Both
    : contains_v<R, typename T::src>                                ? Access::Source
                                                                    : Access::Destination;

}  // namespace warploom::ts
