// warploom/ts/verify/walk.hpp
//
// Ways to read a captured schedule: every op node, or the ops in the order one execution runs
// them. An execution fixes each loop's trip count: a compile-time loop runs its real count (capped
// at 3, which keeps first, middle and last iterations distinct), a run-time loop runs `trips`
// times (a tile loop once more: its last fetch finds the queue empty); first/last-iteration blocks
// run where their loop is in that iteration; skippable blocks run unless the execution is one of
// skipped tiles.
#pragma once

#include <vector>

#include "warploom/ts/schedule_ir.hpp"

namespace warploom::ts::verify {

// Run-time trip counts the structural checks try: 0 (the loop is skipped), 1 (first == last),
// 2 and 3 (a middle iteration).
inline constexpr int kTripScenarios[] = {0, 1, 2, 3};

constexpr long long static_trip_count(Node const& loop) {
  long long s = loop.start.value, e = loop.end.value, st = loop.step.value;
  if (st == 0) return 0;
  if (st > 0) return e > s ? (e - s + st - 1) / st : 0;
  return s > e ? (s - e + (-st) - 1) / (-st) : 0;
}

// The trips of a run-time loop for which the verifier picked `trips`: a tile loop's fetches are
// its tiles and the empty fetch that ends it; a loop whose bound is promised at least N trips
// (ts::at_least) runs no fewer.
constexpr int runtime_trip_count(Node const& loop, int trips) {
  if (is_tile_loop(loop)) return tile_loop_trips(trips);
  return trips < loop.end.at_least ? loop.end.at_least : trips;
}

constexpr int trip_count(Node const& loop, int runtime_trips) {
  if (loop.start.is_static && loop.end.is_static && loop.step.is_static) {
    long long n = static_trip_count(loop);
    return static_cast<int>(n > 3 ? 3 : n);
  }
  return runtime_trip_count(loop, runtime_trips);
}

constexpr std::vector<int> op_nodes(Schedule const& s) {
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(s.nodes.size()); ++i)
    if (s.nodes[i].kind == NodeKind::Op) out.push_back(i);
  return out;
}

namespace detail {

struct LoopPosition {
  int loop = -1;
  int iteration = 0;
  int trips = 0;
  int stamp = 0;  // this iteration's number among every loop iteration the execution runs
};

constexpr bool guard_holds(Node const& g, std::vector<LoopPosition> const& where) {
  for (auto const& p : where) {
    if (p.loop != g.loop) continue;
    bool const first = p.iteration == 0, last = p.iteration == p.trips - 1;
    switch (g.kind) {
      case NodeKind::FirstIter:
        return first;
      case NodeKind::LastIter:
        return last;
      case NodeKind::NotFirstIter:
        return !first;
      case NodeKind::NotLastIter:
        return !last;
      default:
        return true;
    }
  }
  return false;  // guard outside its loop (R-B6): never runs
}

// `stamps`, when given, receives for each op the stamp of its innermost loop's iteration (0
// outside loops): two ops with one stamp run in the same iteration of the same loop.
template <class TripsOf>
constexpr void flatten_into(Schedule const& s, int node, TripsOf const& trips_of,
                            std::vector<LoopPosition>& where, std::vector<int>& out,
                            std::vector<int>* stamps, int& iterations, bool skipped_tiles) {
  Node const& n = s.nodes[node];
  switch (n.kind) {
    case NodeKind::Skippable:
      if (skipped_tiles) return;
      break;
    case NodeKind::Op:
      out.push_back(node);
      if (stamps) stamps->push_back(where.empty() ? 0 : where.back().stamp);
      return;
    case NodeKind::Local:
      return;
    case NodeKind::FirstIter:
    case NodeKind::LastIter:
    case NodeKind::NotFirstIter:
    case NodeKind::NotLastIter:
      if (!guard_holds(n, where)) return;
      break;
    case NodeKind::Loop: {
      int const trips = trips_of(node);
      where.push_back({node, 0, trips, 0});
      for (int i = 0; i < trips; ++i) {
        where.back().iteration = i;
        where.back().stamp = ++iterations;
        for (int c : n.children)
          flatten_into(s, c, trips_of, where, out, stamps, iterations, skipped_tiles);
      }
      where.pop_back();
      return;
    }
    case NodeKind::Root:
      break;
  }
  for (int c : n.children)
    flatten_into(s, c, trips_of, where, out, stamps, iterations, skipped_tiles);
}

}  // namespace detail

// The op nodes one execution visits, in order; `trips_of(loop_node)` gives each loop's trip count.
// `stamps`, when given, receives each op's loop-iteration stamp (see detail::flatten_into).
// `skipped_tiles`: every tile is one the queue's skip predicate skips (skippable blocks omitted).
template <class TripsOf>
constexpr std::vector<int> flatten_with(Schedule const& s, TripsOf const& trips_of,
                                        std::vector<int>* stamps = nullptr,
                                        bool skipped_tiles = false) {
  std::vector<int> out;
  std::vector<detail::LoopPosition> where;
  int iterations = 0;
  detail::flatten_into(s, 0, trips_of, where, out, stamps, iterations, skipped_tiles);
  return out;
}

// The op nodes one execution visits, in order, with every run-time loop running `runtime_trips`
// times and compile-time loops capped at 3.
constexpr std::vector<int> flatten(Schedule const& s, int runtime_trips) {
  return flatten_with(s, [&](int node) { return trip_count(s.nodes[node], runtime_trips); });
}

constexpr bool is_runtime_loop(Node const& n) {
  return n.kind == NodeKind::Loop && !(n.start.is_static && n.end.is_static && n.step.is_static);
}

constexpr bool has_skippable(Schedule const& s) {
  for (auto const& n : s.nodes)
    if (n.kind == NodeKind::Skippable) return true;
  return false;
}

constexpr bool has_runtime_loop(Schedule const& s) {
  for (auto const& n : s.nodes)
    if (is_runtime_loop(n)) return true;
  return false;
}

}  // namespace warploom::ts::verify
