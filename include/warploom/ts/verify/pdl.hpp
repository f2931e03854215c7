// warploom/ts/verify/pdl.hpp
//
// R-D7, the order of a programmatic dependent launch's wait (ts/pdl.hpp). A resource whose data
// the previous grid writes depends on a ts::PdlWait in the graph; every task that produces it, or
// reads it when it has no pipeline (a pipeline's consumers read what its producer wrote after that
// producer waited), waits for the previous grid — a consumer work on that PdlWait — before its
// first work on the resource. Judged on executions, like R-D10 (bracketing.hpp): every run-time
// loop running 0 to 3 times, independently, except that loops over one quantity run alike (a wait
// in a loop over the tiles counts before the work of another loop over the tiles), so a wait
// after the work, a wait in a loop that may run no trip, or no wait at all is caught.
#pragma once

#include <string>
#include <vector>

#include "warploom/ts/model.hpp"
#include "warploom/ts/verify/bracketing.hpp"
#include "warploom/ts/verify/context.hpp"
#include "warploom/ts/verify/program.hpp"
#include "warploom/ts/verify/walk.hpp"

namespace warploom::ts::verify {

namespace detail {

// The task's run-time loops, each with its index into a trip vector: loops whose bounds are the
// same quantities (same_quantity) share one. `count` receives the number of indices.
constexpr std::vector<int> quantity_loop_index(Schedule const& s, int& count) {
  std::vector<int> index(s.nodes.size(), -1);
  std::vector<int> firsts;  // the first loop of each index
  count = 0;
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    Node const& n = s.nodes[i];
    if (!is_runtime_loop(n)) continue;
    for (int f : firsts) {
      Node const& o = s.nodes[static_cast<std::size_t>(f)];
      if (same_quantity(n.start, o.start) && same_quantity(n.end, o.end) &&
          same_quantity(n.step, o.step)) {
        index[i] = index[static_cast<std::size_t>(f)];
        break;
      }
    }
    if (index[i] < 0) {
      index[i] = count++;
      firsts.push_back(static_cast<int>(i));
    }
  }
  return index;
}

}  // namespace detail

constexpr void check_pdl_wait_order(ManagerModel const& m, Report& r) {
  r.checks_run += 1;
  int const num_res = static_cast<int>(m.resources.size());
  for (GraphEdge const& e : m.graph) {
    if (e.upstream < 0 || e.upstream >= num_res || e.downstream < 0 || e.downstream >= num_res)
      continue;
    if (m.resources[e.upstream].kind != ResourceKind::PdlWait) continue;
    int const pdl = e.upstream, data = e.downstream;
    bool const pipelined = m.resources[data].pipeline.enabled();
    for (TaskModel const& t : m.tasks) {
      Schedule const& s = t.schedule;
      auto const guarded = [&](Node const& n) {
        return n.kind == NodeKind::Op && n.op == OpKind::Work && n.resource == data &&
               (is_producer_side(n.role) || !pipelined);
      };
      auto const waits = [&](Node const& n) {
        return n.kind == NodeKind::Op && n.op == OpKind::Work && n.resource == pdl &&
               !is_producer_side(n.role);
      };
      bool has_wait = false, has_guarded = false;
      for (int id : op_nodes(s)) {
        has_wait = has_wait || waits(s.nodes[static_cast<std::size_t>(id)]);
        has_guarded = has_guarded || guarded(s.nodes[static_cast<std::size_t>(id)]);
      }
      if (!has_guarded) continue;
      if (!has_wait) {
        add(r, Rule::D7_PdlWaitOrder, t.spec.name, resource_name(m, data), "", [&] {
          return "holds data of the previous grid (it depends on `" +
                 std::string(resource_name(m, pdl)) +
                 "`), but the task never waits for that grid; list the PdlWait in its src and "
                 "call wait_griddep before its first work on the resource";
        });
        continue;
      }
      int loops = 0;
      std::vector<int> const loop_index = detail::quantity_loop_index(s, loops);
      for (std::vector<int> const& trips : detail::trip_vectors(loops)) {
        std::vector<int> const order = flatten_with(s, [&](int node) {
          int const i = loop_index[static_cast<std::size_t>(node)];
          return i >= 0 ? trips[static_cast<std::size_t>(i)] : trip_count(s.nodes[node], 0);
        });
        int early = -1;
        for (int id : order) {
          Node const& n = s.nodes[static_cast<std::size_t>(id)];
          if (waits(n)) break;
          if (guarded(n)) {
            early = id;
            break;
          }
        }
        if (early < 0) continue;
        add(r, Rule::D7_PdlWaitOrder, t.spec.name, resource_name(m, data),
            s.nodes[static_cast<std::size_t>(early)].label, [&] {
              return "runs before the task waited for the previous grid (`" +
                     std::string(resource_name(m, pdl)) +
                     "`'s wait_griddep), whose writes it may miss" + detail::scenario(trips) +
                     "; call wait_griddep first, outside any loop that may run no trip";
            });
        break;
      }
    }
  }
}

}  // namespace warploom::ts::verify
