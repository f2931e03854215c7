// warploom/ts/model.hpp
//
// ts::ManagerModel: everything the verifier knows about a TaskManager — its resources, tasks with
// their captured schedules, the dependency graph and the shared-memory requests. It is plain data,
// so tests and the schedule corpus can also build models by hand, and usable in constant
// expressions, so a kernel can be verified while it compiles.
#pragma once

#include <string_view>
#include <vector>

#include "warploom/ts/pipeline_config.hpp"
#include "warploom/ts/resource.hpp"
#include "warploom/ts/schedule_ir.hpp"
#include "warploom/ts/task.hpp"

namespace warploom::ts {

// Hopper limits the verifier checks against.
inline constexpr long long kSmemCapacityBytes = 232448;  // 227 KiB opt-in per block
inline constexpr int kRegistersPerSm = 65536;
inline constexpr int kMaxWarpsPerBlock = 32;
inline constexpr int kWarpsPerWarpgroup = 4;
inline constexpr int kThreadsPerWarp = 32;

struct ResourceModel {
  std::string_view name;
  ResourceKind kind = ResourceKind::Memory;
  PipelineConfig pipeline{};
  GroupMode group_mode = GroupMode::None;  // a pipeline group (ResourceKind::Group): how it shares
  int group = -1;                          // a group's member: the group's index (-1: none)
  int group_rank = 0;  // a group's member: its position in the group's declaration (0: primary)
};

struct TaskModel {
  TaskSpec spec;
  std::vector<int> src;  // resource indices
  std::vector<int> dst;
  Schedule schedule;
  int barrier = 0;  // the task's named barrier (task_barrier.hpp); 0: none
  // A warp of a task whose warps take roles (TaskSpec::warp_roles) is a one-warp task of its own,
  // declaring the resources it uses (describe.hpp): `role` is its warp within the task, -1 for a
  // whole task.
  int role = -1;
  // Derived by the TaskManager (derive_padding), never written by a kernel: warps of a warpgroup
  // no task owns, at the warpgroup's register budget, with an empty schedule.
  bool padding = false;
};

// `downstream` depends on `upstream`; upstream -1: `downstream` is in the graph with no upstream
// (ts::DependsOn<R>, the seed's `{r: []}`).
struct GraphEdge {
  int downstream = -1;
  int upstream = -1;
};

// One shared-memory buffer to place. Buffers with the same alias_group >= 0 overlap: each
// alias_phase starts at the group's base, buffers within a phase follow each other.
struct SmemRequest {
  std::string_view name;
  int resource = -1;
  long long bytes = 0;
  int alignment = 128;
  int alias_group = -1;
  int alias_phase = 0;
};

struct ManagerModel {
  std::string_view name;
  std::vector<ResourceModel> resources;
  std::vector<TaskModel> tasks;
  std::vector<GraphEdge> graph;
  std::vector<SmemRequest> smem;
  int block_warps = 0;  // 0: the highest warp any task uses, rounded up to a warpgroup
  long long smem_capacity = kSmemCapacityBytes;

  // Warps the kernel is launched with.
  constexpr int launch_warps() const {
    if (block_warps > 0) return block_warps;
    int end = 0;
    for (auto const& t : tasks)
      end = end > t.spec.warp_idx + t.spec.num_warps ? end : t.spec.warp_idx + t.spec.num_warps;
    return (end + kWarpsPerWarpgroup - 1) / kWarpsPerWarpgroup * kWarpsPerWarpgroup;
  }
};

// The members of pipeline group `g`, in the group's declaration order (ts::Fork<"t", A, B>: A
// first, whatever the order of the TaskManager's resources): the first is the primary member, the
// one whose acquire arms a TMA fork's shared full barrier, in the verifier and on the device alike.
constexpr std::vector<int> members_of(ManagerModel const& m, int g) {
  std::vector<int> out;
  for (int rank = 0;; ++rank) {
    int found = -1;
    for (int r = 0; r < static_cast<int>(m.resources.size()) && found < 0; ++r)
      if (m.resources[r].group == g && m.resources[r].group_rank == rank) found = r;
    if (found < 0) return out;
    out.push_back(found);
  }
}

// The resource whose empty (consumer -> producer) barriers resource r uses: a Merge member's are
// its group's, shared by every member; anything else's are its own.
constexpr int empty_owner(ManagerModel const& m, int r) {
  int const g = r >= 0 ? m.resources[r].group : -1;
  return g >= 0 && m.resources[g].group_mode == GroupMode::Merge ? g : r;
}
// The resource whose full (producer -> consumer) barriers resource r uses: a Fork member's are its
// group's; anything else's are its own.
constexpr int full_owner(ManagerModel const& m, int r) {
  int const g = r >= 0 ? m.resources[r].group : -1;
  return g >= 0 && m.resources[g].group_mode == GroupMode::Fork ? g : r;
}

// Pads the warps of the block that no task owns, one padding task per idle run of warps within a
// warpgroup, at the register budget of the warpgroup's first task that sets one (0: none; R-D2
// makes every task of a warpgroup agree). setmaxnreg is warpgroup-wide: the lowering gives each
// warpgroup one branch that executes its setmaxnreg before it picks the task, so idle warps
// execute it too and then exit (task_manager.hpp); the padding tasks show those warps to the
// verifier and in `warploom verify`. A warpgroup without any task below the highest task is
// padded as well, and refused by R-W3. Idempotent: padded warps are owned.
constexpr void derive_padding(ManagerModel& m) {
  int const block = m.launch_warps();
  if (block > kMaxWarpsPerBlock) return;  // R-W2 refuses the block; nothing to pad
  std::vector<TaskModel> padding;
  for (int lo = 0; lo < block; lo += kWarpsPerWarpgroup) {
    int const hi = lo + kWarpsPerWarpgroup < block ? lo + kWarpsPerWarpgroup : block;
    int budget = 0;
    for (auto const& t : m.tasks) {
      auto const& s = t.spec;
      if (budget == 0 && s.num_registers != 0 && s.warp_idx < hi && s.warp_idx + s.num_warps > lo)
        budget = s.num_registers;
    }
    auto owned = [&](int w) {
      for (auto const& t : m.tasks)
        if (w >= t.spec.warp_idx && w < t.spec.warp_idx + t.spec.num_warps) return true;
      return false;
    };
    for (int w = lo; w < hi;) {
      if (owned(w)) {
        ++w;
        continue;
      }
      int end = w + 1;
      while (end < hi && !owned(end)) ++end;
      TaskModel p;
      p.spec = {.name = "padding", .warp_idx = w, .num_warps = end - w, .num_registers = budget};
      p.padding = true;
      padding.push_back(p);
      w = end;
    }
  }
  for (auto& p : padding) m.tasks.push_back(p);
}

// The per-thread register count a kernel of `warps` warps is entered with under
// __launch_bounds__(threads, 1): the register file split evenly, in setmaxnreg's granularity of 8,
// at most 255, the hardware maximum per thread.
constexpr int entry_registers(int warps) {
  if (warps <= 0) return 256;
  int per_thread = kRegistersPerSm / (warps * kThreadsPerWarp) / 8 * 8;
  return per_thread > 255 ? 255 : per_thread;  // 255: the most a thread can be entered with
}

}  // namespace warploom::ts
