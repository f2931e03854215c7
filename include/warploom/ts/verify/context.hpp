// warploom/ts/verify/context.hpp
//
// Small helpers every check uses to name things in its findings.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "warploom/ts/model.hpp"
#include "warploom/ts/verify/diagnostic.hpp"

namespace warploom::ts::verify {

constexpr std::string_view resource_name(ManagerModel const& m, int r) {
  if (r < 0 || r >= static_cast<int>(m.resources.size())) return "<undeclared resource>";
  return m.resources[r].name;
}

constexpr std::string_view op_name(Node const& n) {
  return n.op == OpKind::Work ? n.label : to_string(n.op);
}

constexpr std::string warp_range(TaskSpec const& s) {
  if (s.num_warps == 1) return "warp " + to_str(s.warp_idx);
  return "warps " + to_str(s.warp_idx) + "-" + to_str(s.warp_idx + s.num_warps - 1);
}

constexpr bool contains(std::vector<int> const& v, int x) {
  for (int y : v)
    if (y == x) return true;
  return false;
}

constexpr bool task_releases(TaskModel const& t, int res) {
  for (auto const& n : t.schedule.nodes)
    if (n.kind == NodeKind::Op && n.resource == res &&
        (n.op == OpKind::Release || n.op == OpKind::Skip))
      return true;
  return false;
}

// The same, where a Merge member is released by a release() of its group (pipeline_group.hpp).
constexpr bool task_releases(ManagerModel const& m, TaskModel const& t, int res) {
  if (task_releases(t, res)) return true;
  int const owner = empty_owner(m, res);
  return owner != res && task_releases(t, owner);
}

// The task waits on `res`, never releases (nor skips) it, and another task releases it: a
// monitor of the resource, which observes the fills while the other tasks free the stages (R-D10;
// the model checker lets it hold a stage only while it reads it). A task that waits and nobody
// releases is no monitor but a stage never released.
constexpr bool monitors(ManagerModel const& m, TaskModel const& t, int res) {
  bool waits = false;
  for (auto const& n : t.schedule.nodes)
    waits = waits || (n.kind == NodeKind::Op && n.resource == res && n.op == OpKind::Wait);
  if (!waits || task_releases(m, t, res)) return false;
  for (auto const& other : m.tasks)
    if (&other != &t && task_releases(m, other, res)) return true;
  return false;
}

// Records a violation. `message` is a callable building the sentence; it is not called in
// constant evaluation, where only the rule matters (and where GCC 12 mis-evaluates some
// std::string operations).
template <class Message>
constexpr void add(Report& r, Rule rule, std::string_view task, std::string_view resource,
                   std::string_view op, Message&& message) {
  Violation v{rule, task, resource, op, {}, {}};
  if (!std::is_constant_evaluated()) v.message = message();
  r.violations.push_back(std::move(v));
}

}  // namespace warploom::ts::verify
