// warploom/ts/verify/bracketing.hpp
//
// R-D10 work bracketing, R-D11 try-before-blocking and R-D23 value order, judged on executions of
// each task (every run-time loop running 0, 1, 2 and 3 times, each independently of the task's
// other run-time loops, see trip_vectors) rather than on the schedule's text, so an acquire in a
// first-iteration block paired with a commit in a last-iteration block is understood, and a
// bracket a zero-trip loop skips — or an empty inner loop under a running outer one — is caught.
//
// On a pipelined resource, producer work needs an acquired, not yet committed stage; consumer work
// a waited, not yet released one. Every acquire is committed and every wait released before the
// task ends, except by a monitor (a task that waits on a resource and never releases it, which
// needs advance_on_wait); skip() (passing a stage to another consumer task) only with no waited
// stage open. Auxiliary work and resources without a pipeline are exempt.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "warploom/ts/model.hpp"
#include "warploom/ts/verify/context.hpp"
#include "warploom/ts/verify/walk.hpp"

namespace warploom::ts::verify {

namespace detail {

// trips[i]: the trip count of the task's i-th run-time loop (schedule order).
constexpr std::string scenario(std::vector<int> const& trips) {
  if (trips.empty()) return "";
  bool alike = true;
  for (int v : trips) alike = alike && v == trips.front();
  if (alike)
    return " (with run-time loops running " + to_str(trips.front()) + " time" +
           (trips.front() == 1 ? "" : "s") + ")";
  std::string text = " (with its run-time loops running ";
  for (std::size_t i = 0; i < trips.size(); ++i) text += (i ? ", " : "") + to_str(trips[i]);
  return text + " times)";
}

// The executions each task is judged on: every run-time loop running each of kTripScenarios
// times, independently of the task's other run-time loops (so an outer loop running while the
// inner one is empty is tried), all alike first; with more than three run-time loops, only alike
// (4^k executions would be too many).
constexpr std::vector<std::vector<int>> trip_vectors(int loops) {
  std::vector<std::vector<int>> out;
  if (loops == 0) {  // one execution: compile-time loops run their own counts
    out.push_back({});
    return out;
  }
  for (int v : kTripScenarios) out.push_back(std::vector<int>(static_cast<std::size_t>(loops), v));
  if (loops < 2 || loops > 3) return out;
  std::vector<int> idx(static_cast<std::size_t>(loops), 0);
  int const n = static_cast<int>(sizeof(kTripScenarios) / sizeof(kTripScenarios[0]));
  while (true) {
    std::vector<int> v;
    bool alike = true;
    for (int i : idx) {
      v.push_back(kTripScenarios[i]);
      alike = alike && i == idx.front();
    }
    if (!alike) out.push_back(v);
    int k = 0;
    while (k < loops && ++idx[static_cast<std::size_t>(k)] == n)
      idx[static_cast<std::size_t>(k++)] = 0;
    if (k == loops) break;
  }
  return out;
}

struct SideState {
  int open = 0;  // stages acquired (waited) and not committed (released)
  bool try_pending = false;
};

}  // namespace detail

constexpr void check_bracketing(ManagerModel const& m, Report& r) {
  r.checks_run += 3;
  for (auto const& t : m.tasks) {
    std::string_view task = t.spec.name;
    auto const& s = t.schedule;
    int num_res = static_cast<int>(m.resources.size());
    // The task's run-time loops, each with its index into a trip vector.
    std::vector<int> loop_index(s.nodes.size(), -1);
    int loops = 0;
    for (std::size_t i = 0; i < s.nodes.size(); ++i)
      if (is_runtime_loop(s.nodes[i])) loop_index[i] = loops++;
    // R-D23: for each node, the op nodes whose value it reads (recorded value edges).
    std::vector<std::vector<int>> reads(s.nodes.size());
    for (DataEdge const& e : s.edges)
      if (e.arg >= 0 && e.from >= 0 && e.to >= 0 && s.nodes[e.from].kind == NodeKind::Op)
        reads[static_cast<std::size_t>(e.to)].push_back(e.from);
    // Executions of kept tiles, then (a task with skippable sections) of skipped ones.
    std::vector<std::pair<std::vector<int>, bool>> executions;
    for (bool skipped : {false, true}) {
      if (skipped && !has_skippable(s)) break;
      for (std::vector<int> const& trips : detail::trip_vectors(loops))
        executions.push_back({trips, skipped});
    }
    for (auto const& execution : executions) {
      std::vector<int> const& trips = execution.first;
      bool const skipped = execution.second;
      std::vector<detail::SideState> prod(num_res), cons(num_res);
      std::vector<bool> ran(s.nodes.size(), false);
      bool reported = false;
      // `msg` is a literal (the sentence is built only off the constant-evaluation path, see
      // add()).
      auto report = [&](Rule rule, int res, std::string_view op, std::string_view msg) {
        add(r, rule, task, resource_name(m, res), op, [&] {
          return std::string(msg) + detail::scenario(trips) +
                 (skipped ? " (every tile skipped)" : "");
        });
        reported = true;
      };
      std::vector<int> const order = flatten_with(
          s,
          [&](int node) {
            int const i = loop_index[static_cast<std::size_t>(node)];
            return i >= 0 ? runtime_trip_count(s.nodes[node], trips[static_cast<std::size_t>(i)])
                          : trip_count(s.nodes[node], 0);
          },
          nullptr, skipped);
      // Where each node first runs in this execution (-1: never).
      std::vector<int> first_run(s.nodes.size(), -1);
      for (int i = static_cast<int>(order.size()) - 1; i >= 0; --i)
        first_run[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = i;
      for (int at = 0; at < static_cast<int>(order.size()); ++at) {
        int const id = order[static_cast<std::size_t>(at)];
        Node const& n = s.nodes[id];
        // A value is read only after the work that produces it ran (R-D23): a recorded edge
        // from a work that runs only later in the execution reads a value that does not exist
        // yet. (A work that never runs, e.g. in a loop with no iteration, leaves the reader its
        // local's earlier value: not this rule.)
        for (int from : reads[static_cast<std::size_t>(id)]) {
          if (ran[static_cast<std::size_t>(from)] || first_run[static_cast<std::size_t>(from)] < at)
            continue;
          add(r, Rule::D23_ValueOrder, task, resource_name(m, n.resource), op_name(n), [&] {
            return "reads the value of `" + std::string(op_name(s.nodes[from])) +
                   "` before that work runs" + detail::scenario(trips);
          });
          reported = true;
          break;
        }
        if (reported) break;
        ran[static_cast<std::size_t>(id)] = true;
        if (n.op == OpKind::AsyncWait || n.resource < 0 || n.resource >= num_res ||
            !m.resources[n.resource].pipeline.enabled())
          continue;
        // A group op closes one open stage of every member: release() of a Merge group the
        // stage each member was waited on, commit() of a Fork group the one each was acquired
        // for. The group balance rule (R-D1): a member without an open stage means the task
        // waited on (acquired) it fewer times than it releases (commits) the group.
        if (m.resources[n.resource].kind == ResourceKind::Group &&
            (n.op == OpKind::Release || n.op == OpKind::Commit)) {
          bool const merge = n.op == OpKind::Release;
          for (int member : members_of(m, n.resource)) {
            int& open = merge ? cons[member].open : prod[member].open;
            if (open > 0) {
              --open;
              continue;
            }
            add(r, Rule::D1_FillsTaken, task, resource_name(m, member), op_name(n), [&] {
              std::string const group(resource_name(m, n.resource));
              return std::string(merge ? "release" : "commit") + "() of group `" + group +
                     "` finds no " + (merge ? "waited" : "acquired") + " stage of member `" +
                     std::string(resource_name(m, member)) + "` open: " +
                     (merge ? "a merge consumer releases the group once for every stage it "
                              "waited on in each member"
                            : "a fork producer commits the group once for every stage it "
                              "acquired in each member") +
                     detail::scenario(trips) + (skipped ? " (every tile skipped)" : "");
            });
            reported = true;
            break;
          }
          if (reported) break;
          continue;
        }
        // A member-level release of a Merge member (commit of a Fork member) is R-D25's; it
        // closes no stage here, so the group op's balance is judged on its own.
        if (int const g = m.resources[n.resource].group; g >= 0) {
          GroupMode const mode = m.resources[g].group_mode;
          if ((mode == GroupMode::Merge && n.op == OpKind::Release) ||
              (mode == GroupMode::Fork && n.op == OpKind::Commit))
            continue;
        }
        auto& p = prod[n.resource];
        auto& c = cons[n.resource];
        switch (n.op) {
          case OpKind::TryAcquire:
            if (p.try_pending)
              report(Rule::D11_TryBeforeBlocking, n.resource, "try_acquire",
                     "a second try_acquire before the first was followed by acquire()");
            p.try_pending = true;
            break;
          case OpKind::Acquire:
            p.try_pending = false;
            ++p.open;
            break;
          case OpKind::Commit:
            if (p.try_pending)
              report(Rule::D11_TryBeforeBlocking, n.resource, "try_acquire",
                     "try_acquire is not followed by acquire() before commit()");
            if (p.open == 0)
              report(Rule::D10_WorkBracketing, n.resource, "commit",
                     "commit() without an acquired stage; call acquire() first");
            else
              --p.open;
            break;
          case OpKind::TryWait:
            if (c.try_pending)
              report(Rule::D11_TryBeforeBlocking, n.resource, "try_wait",
                     "a second try_wait before the first was followed by wait()");
            c.try_pending = true;
            break;
          case OpKind::Wait:
            c.try_pending = false;
            if (monitors(m, t, n.resource) && !m.resources[n.resource].pipeline.advance_on_wait)
              report(Rule::D10_WorkBracketing, n.resource, "wait",
                     "the task waits on the resource and never releases it (a monitor), but "
                     "without advance_on_wait its wait cursor moves only at release: every wait "
                     "after the first would pass on the same stage; give the pipeline "
                     "with_advance_on_wait()");
            ++c.open;
            break;
          case OpKind::Release:
            if (c.try_pending)
              report(Rule::D11_TryBeforeBlocking, n.resource, "try_wait",
                     "try_wait is not followed by wait() before release()");
            if (c.open == 0)
              report(Rule::D10_WorkBracketing, n.resource, "release",
                     "release() without a waited stage; call wait() first");
            else
              --c.open;
            break;
          case OpKind::Skip:
            // The cursors that release uses move too: a stage still open would be released late,
            // on the wrong stage.
            if (c.try_pending)
              report(Rule::D11_TryBeforeBlocking, n.resource, "try_wait",
                     "try_wait is not followed by wait() before skip()");
            if (c.open > 0)
              report(Rule::D10_WorkBracketing, n.resource, "skip",
                     "skip() while a waited stage is not released; release it first (skip() "
                     "moves the cursor release() uses)");
            break;
          case OpKind::AsyncWait:
            break;
          case OpKind::Work:
            if (is_auxiliary(n.role)) break;
            if (is_producer_side(n.role) && p.open == 0)
              report(Rule::D10_WorkBracketing, n.resource, n.label,
                     "producer work outside acquire()..commit(); the stage it writes is not owned");
            if (!is_producer_side(n.role) && c.open == 0)
              report(Rule::D10_WorkBracketing, n.resource, n.label,
                     "consumer work outside wait()..release(); the stage it reads is not full");
            break;
        }
        if (reported) break;
      }
      if (!reported) {
        for (int res = 0; res < num_res; ++res) {
          if (prod[res].try_pending)
            report(Rule::D11_TryBeforeBlocking, res, "try_acquire",
                   "try_acquire is never followed by acquire()");
          if (cons[res].try_pending)
            report(Rule::D11_TryBeforeBlocking, res, "try_wait",
                   "try_wait is never followed by wait()");
          if (prod[res].open > 0)
            report(Rule::D10_WorkBracketing, res, "acquire",
                   "an acquired stage is never committed by the task's end");
          // A task that waits on a resource and never releases it is a monitor: it observes
          // the fills (e.g. to pace itself) while other tasks release the stages. The model check
          // decides whether it is ever lapped or reads a stage being refilled.
          if (cons[res].open > 0 && !monitors(m, t, res))
            report(Rule::D10_WorkBracketing, res, "wait",
                   "a waited stage is never released by the task's end");
        }
      }
      if (reported) break;  // one finding per task is enough to act on
    }
  }
}

}  // namespace warploom::ts::verify
