// warploom/ts/verify/graph.hpp
//
// Rules on the resource dependency graph: R-D6 every edge realisable by some task, R-D8 every
// resource a task uses appears in the graph.
#pragma once

#include "warploom/ts/model.hpp"
#include "warploom/ts/verify/context.hpp"

namespace warploom::ts::verify {

constexpr void check_dependency_graph(ManagerModel const& m, Report& r) {
  r.checks_run += 2;
  auto used_by_task = [&](int res) {
    for (auto const& t : m.tasks)
      if (contains(t.src, res) || contains(t.dst, res)) return true;
    return false;
  };
  auto relaxed = [&](int res) { return is_barrier(m.resources[res].kind); };
  for (auto const& e : m.graph) {
    for (int res : {e.downstream, e.upstream}) {
      if (res < 0) continue;
      if (!used_by_task(res))
        add(r, Rule::D6_GraphRealizable, "", resource_name(m, res), "", [&] {
          return std::string(
              "appears in the dependency graph but no task uses it; remove the edge or add the "
              "resource to a task");
        });
    }
    if (e.upstream < 0) continue;  // a node without upstreams needs no task to realise it
    bool backed = false;
    if (e.downstream == e.upstream) {
      // Ping-pong: some task produces it and some task consumes it.
      bool p = false, c = false;
      for (auto const& t : m.tasks) {
        p = p || contains(t.dst, e.downstream);
        c = c || contains(t.src, e.downstream);
      }
      backed = p && c;
    } else {
      for (auto const& t : m.tasks) {
        if (contains(t.src, e.upstream) && contains(t.dst, e.downstream)) backed = true;
        if ((relaxed(e.upstream) || relaxed(e.downstream)) &&
            (contains(t.src, e.upstream) || contains(t.dst, e.upstream)) &&
            (contains(t.src, e.downstream) || contains(t.dst, e.downstream)))
          backed = true;
      }
    }
    if (!backed)
      add(r, Rule::D6_GraphRealizable, "", resource_name(m, e.downstream), "", [&] {
        return "depends on `" + std::string(resource_name(m, e.upstream)) +
               "` but no task consumes `" + std::string(resource_name(m, e.upstream)) +
               "` (src) and produces `" + std::string(resource_name(m, e.downstream)) +
               "` (dst); fix the edge or the tasks' src/dst";
      });
  }
  for (auto const& t : m.tasks) {
    auto check = [&](int res) {
      // A pipeline group holds no data: its members' edges say where the data flows.
      if (m.resources[res].kind == ResourceKind::Group) return;
      for (auto const& e : m.graph)
        if (e.downstream == res || e.upstream == res) return;
      add(r, Rule::D8_GraphCoverage, t.spec.name, resource_name(m, res), "", [&] {
        return std::string(
            "is used by the task but missing from the dependency graph; add an edge (or "
            "ts::DependsOn<" +
            std::string(resource_name(m, res)) + "> with no upstreams)");
      });
    };
    for (int res : t.src) check(res);
    for (int res : t.dst)
      if (!contains(t.src, res)) check(res);
  }
}

}  // namespace warploom::ts::verify
