// warploom/ts/verify/arrivals.hpp
//
// R-D15: a pipeline's cooperative groups must match the tasks that arrive on its barriers, or a
// phase never completes (too few arrivals: hang) or completes early (too many: a race).
//
//   producer side  TMA kinds: one elected lane per warp of every task that acquires the
//                  resource arms the stage (group size = those warps);
//                  AsyncAsync: every thread (Agent::Thread) or warp (Agent::Warp) of every task
//                  that commits.
//   consumer side  every thread / warp of every task that releases — or, when the releasing tasks
//                  take turns (they skip() the stages the others take), of one of them: each
//                  stage is released by one task, so they must all arrive alike.
//
// R-D22: a multicast pipeline (PipelineConfig::with_multicast) has producers in several CTAs of a
// cluster writing into each other's stages; only TMA can do that, and a cluster has 1 to 16 CTAs.
#pragma once

#include "warploom/ts/model.hpp"
#include "warploom/ts/verify/context.hpp"
#include "warploom/ts/verify/walk.hpp"

namespace warploom::ts::verify {

namespace detail {

constexpr bool task_has_op(TaskModel const& t, int res, OpKind op) {
  for (int id : op_nodes(t.schedule)) {
    Node const& n = t.schedule.nodes[id];
    if (n.resource == res && n.kind == NodeKind::Op && n.op == op) return true;
  }
  return false;
}

constexpr std::string group_text(CooperativeGroup g) {
  return std::string(g.agent == Agent::Thread ? "ts::threads(" : "ts::warps(") + to_str(g.size) +
         ")";
}

}  // namespace detail

constexpr void check_arrival_counts(ManagerModel const& m, Report& r) {
  r.checks_run += 1;
  for (int res = 0; res < static_cast<int>(m.resources.size()); ++res) {
    auto const& p = m.resources[res].pipeline;
    if (!p.enabled()) continue;
    // Per barrier array: a Merge member's empty array is its group's, which counts the group's
    // releases; a Fork member's full array is its group's, which counts the group's commits (or,
    // on a TMA fork, the arming of its first member's acquires: one fill for every member).
    bool const counts_full = full_owner(m, res) == res;
    bool const counts_empty = empty_owner(m, res) == res;
    GroupMode const mode = m.resources[res].group_mode;
    int const armed =
        mode == GroupMode::Fork && p.tma_producer() ? members_of(m, res).front() : res;
    int prod_warps = 0, cons_warps = 0;
    bool turns = false;  // consumers taking turns: some releasing task skips stages
    int turn_warps = -1, mixed_turn_warps = 0;
    auto producing = [&](TaskModel const& t) {
      return counts_full && (p.tma_producer() ? detail::task_has_op(t, armed, OpKind::Acquire)
                                              : detail::task_has_op(t, res, OpKind::Commit));
    };
    auto releasing = [&](TaskModel const& t) {
      return counts_empty && detail::task_has_op(t, res, OpKind::Release);
    };
    for (auto const& t : m.tasks) {
      if (producing(t)) prod_warps += t.spec.num_warps;
      if (!releasing(t)) continue;
      cons_warps += t.spec.num_warps;
      turns = turns || detail::task_has_op(t, res, OpKind::Skip);
      if (turn_warps >= 0 && turn_warps != t.spec.num_warps) mixed_turn_warps = t.spec.num_warps;
      turn_warps = t.spec.num_warps;
    }
    if (turns) cons_warps = turn_warps;
    // "load (warp 4), store (warps 0-3)": built only for a finding.
    auto list_tasks = [&](auto pred) {
      std::string out;
      for (auto const& t : m.tasks) {
        if (!pred(t)) continue;
        if (!out.empty()) out += ", ";
        out += std::string(t.spec.name) + " (" + warp_range(t.spec) + ")";
      }
      return out;
    };
    int want_prod = p.tma_producer() || p.producer.agent == Agent::Warp
                        ? prod_warps
                        : prod_warps * kThreadsPerWarp;
    int want_cons = p.consumer.agent == Agent::Warp ? cons_warps : cons_warps * kThreadsPerWarp;
    if (prod_warps > 0 && p.producer.size != want_prod) {
      add(r, Rule::D15_ArrivalCounts, "", resource_name(m, res), "producer group", [&] {
        return std::string(
            "the producer group " + detail::group_text(p.producer) + " expects " +
            to_str(p.producer.size) + " arrivals per stage, but the producing tasks " +
            list_tasks(producing) + " make " + to_str(want_prod) +
            (p.tma_producer() ? " (one elected lane per warp arms a TMA stage)" : "") +
            "; set the group size to " + to_str(want_prod));
      });
    }
    if (turns && mixed_turn_warps != 0) {
      add(r, Rule::D15_ArrivalCounts, "", resource_name(m, res), "consumer group", [&] {
        return std::string("the releasing tasks " + list_tasks(releasing) +
                           " take turns (skip()), so each stage is released by one of them, but "
                           "they have different warp counts: no one group size fits every stage");
      });
    } else if (turns && p.consumer.size != want_cons) {
      add(r, Rule::D15_ArrivalCounts, "", resource_name(m, res), "consumer group", [&] {
        return std::string("the consumer group " + detail::group_text(p.consumer) + " expects " +
                           to_str(p.consumer.size) +
                           " arrivals per stage, but the releasing tasks " + list_tasks(releasing) +
                           " take turns (skip()), each stage released by one of them with " +
                           to_str(want_cons) + "; set the group size to " + to_str(want_cons));
      });
    } else if (cons_warps > 0 && p.consumer.size != want_cons) {
      add(r, Rule::D15_ArrivalCounts, "", resource_name(m, res), "consumer group", [&] {
        return std::string("the consumer group " + detail::group_text(p.consumer) + " expects " +
                           to_str(p.consumer.size) +
                           " arrivals per stage, but the releasing tasks " + list_tasks(releasing) +
                           " make " + to_str(want_cons) + "; set the group size to " +
                           to_str(want_cons));
      });
    }
    if (p.multicast_ctas != 1 && !p.tma_producer()) {
      add(r, Rule::D22_Multicast, "", resource_name(m, res), "with_multicast", [&] {
        return std::string("a ") + std::string(to_string(p.kind)) + " pipeline multicasts to " +
               to_str(p.multicast_ctas) +
               " CTAs, but only TMA writes into another CTA's shared memory; use tma_async or "
               "tma_wgmma, or drop with_multicast";
      });
    }
    if (p.multicast_ctas < 1 || p.multicast_ctas > 16) {
      add(r, Rule::D22_Multicast, "", resource_name(m, res), "with_multicast", [&] {
        return "with_multicast(" + to_str(p.multicast_ctas) +
               "): a cluster has 1 to 16 CTAs (more than 8 needs the non-portable cluster size)";
      });
    }
    if (p.num_stages < 1) {
      add(r, Rule::D15_ArrivalCounts, "", resource_name(m, res), "num_stages",
          [&] { return std::string("a pipeline needs at least one stage"); });
    }
  }
}

}  // namespace warploom::ts::verify
