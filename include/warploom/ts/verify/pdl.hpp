// warploom/ts/verify/pdl.hpp
//
// R-D7, the order of a programmatic dependent launch's wait (ts/pdl.hpp). A resource whose data
// the previous grid writes depends on a ts::PdlWait in the graph; every task that produces it, or
// reads it when it has no pipeline (a pipeline's consumers read what its producer wrote after that
// producer waited), waits for the previous grid — a consumer work on that PdlWait — before its
// first work on the resource. Judged on executions, like R-D10 (bracketing.hpp): every run-time
// loop running 0 to 3 times, independently, except that loops the model checker runs alike (one
// LoopKey, program.hpp: a wait in a loop over the tiles counts before the work of another loop
// over the tiles) run alike here too, so a wait after the work, a wait in a loop that may run no
// trip, or no wait at all is caught.
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

// Task `task`'s run-time loops, each with its index into a trip vector: loops the model checker
// runs alike (one LoopKey: the same depth, bounds of the same quantities) share one. `count`
// receives the number of indices.
constexpr std::vector<int> trip_index(LoopKeys const& keys, int task, int& count) {
  std::vector<int> const& key = keys.node_key[static_cast<std::size_t>(task)];
  std::vector<int> index(key.size(), -1), seen;  // seen: the keys given an index, in order
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (key[i] < 0) continue;
    int at = 0;
    while (at < static_cast<int>(seen.size()) && seen[static_cast<std::size_t>(at)] != key[i]) ++at;
    if (at == static_cast<int>(seen.size())) seen.push_back(key[i]);
    index[i] = at;
  }
  count = static_cast<int>(seen.size());
  return index;
}

}  // namespace detail

constexpr void check_pdl_wait_order(ManagerModel const& m, Report& r) {
  r.checks_run += 1;
  int const num_res = static_cast<int>(m.resources.size());
  auto const waited_for = [&](GraphEdge const& e) {
    return e.upstream >= 0 && e.upstream < num_res && e.downstream >= 0 && e.downstream < num_res &&
           m.resources[e.upstream].kind == ResourceKind::PdlWait;
  };
  bool any = false;
  for (GraphEdge const& e : m.graph) any = any || waited_for(e);
  if (!any) return;  // no PDL wait: nothing to order (and no loop keys to build)
  LoopKeys const keys = loop_keys(m);
  for (GraphEdge const& e : m.graph) {
    if (!waited_for(e)) continue;
    int const pdl = e.upstream, data = e.downstream;
    bool const pipelined = m.resources[data].pipeline.enabled();
    for (int task = 0; task < static_cast<int>(m.tasks.size()); ++task) {
      TaskModel const& t = m.tasks[static_cast<std::size_t>(task)];
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
      std::vector<int> const loop_index = detail::trip_index(keys, task, loops);
      for (std::vector<int> const& trips : detail::trip_vectors(loops)) {
        std::vector<int> const order = flatten_with(s, [&](int node) {
          int const i = loop_index[static_cast<std::size_t>(node)];
          return i >= 0 ? runtime_trip_count(s.nodes[node], trips[static_cast<std::size_t>(i)])
                        : trip_count(s.nodes[node], 0);
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
