// warploom/ts/verify/schedule_rules.hpp
//
// Rules each task's schedule must satisfy on its own: R-D5 ops on the right side of each
// resource, R-D9 every declared resource used, R-D20 every work named, R-B3 loop steps,
// R-B4 work queues (one per consumer, one scheduler filling each), R-B6 iteration blocks inside
// their loop, R-D24 no pipeline op counted from the thread index.
//
// Most of these are compile errors for schedules written in C++ (a producer op on a src handle
// does not compile); the model-level checks catch models built any other way.
#pragma once

#include "warploom/ts/model.hpp"
#include "warploom/ts/verify/context.hpp"
#include "warploom/ts/verify/walk.hpp"

namespace warploom::ts::verify {

constexpr void check_stage_roles(ManagerModel const& m, Report& r) {
  r.checks_run += 2;
  for (auto const& t : m.tasks) {
    std::string_view task = t.spec.name;
    auto const& s = t.schedule;
    for (int id : op_nodes(s)) {
      Node const& n = s.nodes[id];
      if (n.op == OpKind::AsyncWait) continue;  // not a resource op
      bool producer = n.op == OpKind::Work ? is_producer_side(n.role) : is_producer_op(n.op);
      bool in_src = contains(t.src, n.resource), in_dst = contains(t.dst, n.resource);
      if (!in_src && !in_dst) {
        add(r, Rule::D5_StageRoles, task, resource_name(m, n.resource), op_name(n), [&] {
          return std::string(
              "the schedule uses a resource the task does not declare; add it to the task's " +
              std::string(producer ? "dst" : "src"));
        });
      } else if (producer && !in_dst) {
        add(r, Rule::D5_StageRoles, task, resource_name(m, n.resource), op_name(n), [&] {
          return std::string(
              "producer-side op on a resource the task lists only in src; list it in dst");
        });
      } else if (!producer && !in_src) {
        add(r, Rule::D5_StageRoles, task, resource_name(m, n.resource), op_name(n), [&] {
          return std::string(
              "consumer-side op on a resource the task lists only in dst; list it in src");
        });
      }
      if (n.op == OpKind::Work && n.label.empty()) {
        add(r, Rule::D20_WorkLabels, task, resource_name(m, n.resource), "work",
            [&] { return std::string("a work call names no declared work"); });
      }
    }
    auto uses = [&](int res) {
      for (int id : op_nodes(s))
        if (s.nodes[id].resource == res) return true;
      return false;
    };
    for (int res : t.src)
      if (!uses(res))
        add(r, Rule::D9_ScheduleCoverage, task, resource_name(m, res), "", [&] {
          return std::string(
              "is declared in src but the schedule never uses it; remove it or call its work");
        });
    for (int res : t.dst)
      if (!uses(res) && !contains(t.src, res))
        add(r, Rule::D9_ScheduleCoverage, task, resource_name(m, res), "", [&] {
          return std::string(
              "is declared in dst but the schedule never uses it; remove it or call its work");
        });
  }
}

// R-D25: the shared side of a pipeline group (pipeline_group.hpp) moves by the group op alone. A
// Merge member's stages are released by release() of the group, which arrives once on the shared
// empty barrier for every member; a release of the member itself would arrive on that barrier
// again (a phase completing early: the other members' producers refill stages still read) and
// move only that member's cursor. Likewise a Fork member's commit() besides the group's. The group
// takes no other op: its members are waited on (Merge) and acquired (Fork) one by one.
constexpr void check_group_ops(ManagerModel const& m, Report& r) {
  r.checks_run += 1;
  for (auto const& t : m.tasks) {
    std::string_view task = t.spec.name;
    for (int id : op_nodes(t.schedule)) {
      Node const& n = t.schedule.nodes[id];
      if (n.kind != NodeKind::Op || n.resource < 0 ||
          n.resource >= static_cast<int>(m.resources.size()))
        continue;
      ResourceModel const& res = m.resources[n.resource];
      if (res.group >= 0) {
        GroupMode const mode = m.resources[res.group].group_mode;
        bool const merge_release = mode == GroupMode::Merge && n.op == OpKind::Release;
        bool const fork_commit = mode == GroupMode::Fork && n.op == OpKind::Commit;
        if (!merge_release && !fork_commit) continue;
        add(r, Rule::D25_GroupOps, task, res.name, op_name(n), [&] {
          std::string const group(m.resources[res.group].name);
          return "member `" + std::string(res.name) + "` of " + (merge_release ? "merge" : "fork") +
                 " group `" + group + "`: " +
                 (merge_release ? "release the group (`" + group +
                                      ".release()`), once per stage waited on in each member"
                                : "commit the group (`" + group +
                                      ".commit()`), once per stage acquired in each member");
        });
      } else if (res.kind == ResourceKind::Group) {
        OpKind const allowed =
            res.group_mode == GroupMode::Merge ? OpKind::Release : OpKind::Commit;
        if (n.op == allowed) continue;
        add(r, Rule::D25_GroupOps, task, res.name, op_name(n), [&] {
          bool const merge = res.group_mode == GroupMode::Merge;
          return std::string(merge ? "a merge" : "a fork") + " group takes one op, " +
                 (merge ? "release()" : "commit()") + "; " +
                 (merge ? "wait on its members" : "acquire its members") +
                 " one by one (it has no stages or works of its own)";
        });
      }
    }
  }
}

constexpr void check_schedule_structure(ManagerModel const& m, Report& r) {
  r.checks_run += 3;
  for (auto const& t : m.tasks) {
    std::string_view task = t.spec.name;
    auto const& s = t.schedule;
    for (int id = 0; id < static_cast<int>(s.nodes.size()); ++id) {
      Node const& n = s.nodes[id];
      if (n.kind == NodeKind::Loop) {
        if (n.step.is_static && n.step.value == 0)
          add(r, Rule::B3_LoopStep, task, "", "domain_loop",
              [&] { return std::string("the loop step is 0; it never ends"); });
        if (n.unroll < 0)
          add(r, Rule::B3_LoopStep, task, "", "domain_loop",
              [&] { return std::string("the unroll factor must be >= 1"); });
      }
      if (is_iteration_block(n.kind)) {
        bool enclosed = false;
        for (int p = n.parent; p >= 0; p = s.nodes[p].parent)
          if (p == n.loop && s.nodes[p].kind == NodeKind::Loop) enclosed = true;
        if (!enclosed)
          add(r, Rule::B6_BlockStructure, task, "",
              n.kind == NodeKind::FirstIter      ? "first_iter"
              : n.kind == NodeKind::LastIter     ? "last_iter"
              : n.kind == NodeKind::NotFirstIter ? "not_first_iter"
                                                 : "not_last_iter",
              [&] {
                return std::string(
                    "the block is not inside the loop it is guarded on; open it inside that loop's "
                    "body");
              });
      }
    }
    int queues = 0;
    for (int res : t.src)
      if (m.resources[res].kind == ResourceKind::WorkQueue) ++queues;
    if (queues > 1)
      add(r, Rule::B4_WorkQueue, task, "", "", [&] {
        return std::string(
            "lists " + to_str(queues) +
            " work queues in src; a persistent task takes its tiles from exactly one");
      });
  }
  // A queue in a task's dst is filled by that task: the scheduler warp of a dynamic queue (it
  // fetches tile indices and hands them to the consumers). Two fillers would hand out one tile
  // sequence twice, interleaved in no defined order.
  for (int res = 0; res < static_cast<int>(m.resources.size()); ++res) {
    if (m.resources[res].kind != ResourceKind::WorkQueue) continue;
    int first = -1;
    for (auto const& t : m.tasks) {
      if (!contains(t.dst, res)) continue;
      if (first < 0) {
        first = static_cast<int>(&t - m.tasks.data());
        continue;
      }
      add(r, Rule::B4_WorkQueue, t.spec.name, resource_name(m, res), "", [&] {
        return "fills the work queue that task `" + std::string(m.tasks[first].spec.name) +
               "` fills too; one scheduler task fills a queue";
      });
    }
  }
}

// R-D24: every thread of a task arrives on (or waits for) a barrier phase the same number of times.
// The capture marks each reserved op whose count changes when the schedule runs as another lane,
// or as another warp (Schedule::divergent): a loop bound or a guard computed from
// ctx.thread_idx() / task_thread_idx() / warp_idx(). The warp index is uniform inside a one-warp
// task, so only the lane variant counts there.
constexpr void check_divergent_counts(ManagerModel const& m, Report& r) {
  r.checks_run += 1;
  for (auto const& t : m.tasks) {
    for (Divergence const& d : t.schedule.divergent) {
      if (d.warp && t.spec.num_warps <= 1) continue;
      add(r, Rule::D24_DivergentCount, t.spec.name, resource_name(m, d.resource), to_string(d.op),
          [&] {
            return std::string(d.in_loop ? "runs in a loop whose bounds"
                                         : "sits behind a guard that") +
                   " depend on the " + (d.warp ? "warp" : "lane (thread)") +
                   " index, so the task's " + (d.warp ? "warps" : "threads") +
                   " arrive or wait a different number of times and the barrier phases never "
                   "balance; compute the count from values uniform across the task (tile "
                   "counts, ts::c<N>) and keep lane-dependent work inside works" +
                   (d.warp ? "; or, where each warp has pipeline ops of its own, declare the "
                             "task's warps as roles (TaskSpec::warp_roles)"
                           : "");
          });
    }
  }
}

}  // namespace warploom::ts::verify
