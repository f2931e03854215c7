// warploom/ts/schedule_ir.hpp
//
// The captured form of a schedule: a tree, not a flat list. A task's root holds ops (reserved
// pipeline operations and work calls), domain loops, first/last-iteration blocks and task-local
// variable declarations; loops nest and may follow each other. A persistent task's tile loop
// (work_tile_loop, ts/work_queue.hpp) is a loop too, over its queue's fetches; its valid-tile
// block is a not-last-iteration block, and its skippable sections are blocks of their own.
// Data-flow edges connect the work call that produced a value to every later call that consumed it.
//
// Everything here is usable in constant expressions, so a schedule can be captured and checked
// while the kernel compiles.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "warploom/ts/stage_info.hpp"

namespace warploom::ts {

// AsyncWait is not a resource op: it retires the task's asynchronous reads (wgmma.wait_group),
// keeping the `keep` most recent ones in flight.
enum class OpKind : std::uint8_t {
  TryAcquire,
  Acquire,
  Commit,
  TryWait,
  Wait,
  Release,
  Skip,
  Work,
  AsyncWait
};

constexpr std::string_view to_string(OpKind k) {
  switch (k) {
    case OpKind::TryAcquire:
      return "try_acquire";
    case OpKind::Acquire:
      return "acquire";
    case OpKind::Commit:
      return "commit";
    case OpKind::TryWait:
      return "try_wait";
    case OpKind::Wait:
      return "wait";
    case OpKind::Release:
      return "release";
    case OpKind::Skip:
      return "skip";
    case OpKind::AsyncWait:
      return "async_wait";
    case OpKind::Work:
      return "work";
  }
  return "?";
}

// Reserved operations belong to one side of a pipeline.
constexpr bool is_producer_op(OpKind k) {
  return k == OpKind::TryAcquire || k == OpKind::Acquire || k == OpKind::Commit;
}

enum class NodeKind : std::uint8_t {
  Root,
  Op,
  Loop,
  FirstIter,
  LastIter,
  NotFirstIter,
  NotLastIter,
  Local,
  // Work a skipped tile omits (work_tile_loop with ts::skip_if): runs only for tiles the queue's
  // skip predicate keeps.
  Skippable
};

// A block guarded on its loop's iteration.
constexpr bool is_iteration_block(NodeKind k) {
  return k == NodeKind::FirstIter || k == NodeKind::LastIter || k == NodeKind::NotFirstIter ||
         k == NodeKind::NotLastIter;
}

// A loop bound: a compile-time constant, or a run-time value (with the value it had at capture).
struct Bound {
  bool is_static = false;
  long long value = 0;
  int source = -1;  // a data bound: the work step whose result it is (else -1)
  // A run-time bound the schedule promises is a multiple of this (ts::multiple_of).
  int multiple = 1;
  // A run-time or data bound the schedule promises gives at least this many trips (ts::at_least).
  int at_least = 0;
  // A run-time bound that may differ between the CTAs of a cluster (ts::per_cta): the verifier
  // also tries scenarios in which some CTAs run one iteration fewer than the others.
  bool per_cta = false;
  // The bound in the two probe captures, which set every integer field of every resource to a
  // value of its own (size_probe.hpp): which run-time sizes the bound is read from. Read through
  // in_probe: a bound the probes did not capture (`probed` false) has `value` there.
  bool probed = false;
  long long probes[2] = {0, 0};
  constexpr long long in_probe(int probe) const { return probed ? probes[probe] : value; }
};

struct Node {
  NodeKind kind = NodeKind::Root;
  int parent = -1;
  std::vector<int> children;

  // NodeKind::Op
  OpKind op = OpKind::Work;
  Role role = Role::Producer;  // for OpKind::Work
  int resource = -1;           // index into the TaskManager's resource table
  std::string_view label;      // work name, or the local's type-free name "local"
  // OpKind::Work: which member function, as an address unique to it (detail::work_tag): two works
  // may share a label (next_share<0> and next_share<1> both read "next_share").
  void const* work = nullptr;

  // NodeKind::Loop
  Bound start, end, step;
  int unroll = 0;  // 0: the compiler chooses
  // A tile loop (work_tile_loop): the work queue whose tiles it walks (-1: a domain loop), and the
  // resource whose member is its skip_if predicate (-1: none; R-B5 wants the queue itself).
  int queue = -1;
  int skip_if = -1;

  // Iteration blocks (FirstIter, LastIter, NotFirstIter, NotLastIter) and Skippable: the loop
  // whose iteration the block is guarded on
  int loop = -1;
  // A tile loop's valid-tile block (if_valid: a NotLastIter block, the last fetch being the
  // invalid one): the work whose result, the tile, it tests (-1: an ordinary block)
  int tile = -1;

  // OpKind::AsyncWait: which unit's asynchronous reads retire (AsyncReader), and how many of the
  // most recent stay in flight
  int unit = 0;
  int keep = 0;

  // OpKind::Work: arguments passed as plain values (not a ts::Token or a task-local), which the
  // capture does not follow; two calls with the same data-flow arguments are the same call only
  // if neither has one.
  int plain_args = 0;
};

// A value produced by node `from` (a consumer work or a local's default) read by node `to`
// as its argument `arg`; arg == -1 marks a write of `from`'s value into local `to`.
struct DataEdge {
  int from = -1;
  int to = -1;
  int arg = -1;
};

// A reserved op whose count depends on the thread index (R-D24): the schedule, captured again
// with another lane's (`warp` false) or another warp's (`warp` true) coordinates, runs it a
// different number of times: a loop bound or a guard computed from ctx.thread_idx(),
// task_thread_idx() or warp_idx(). `node` is the op in this capture, or -1 when only the other
// capture runs it; `in_loop` tells a loop bound from a guard.
struct Divergence {
  bool warp = false;
  bool in_loop = false;
  int node = -1;
  OpKind op = OpKind::Work;
  int resource = -1;
};

// The run-time bound of the tile loops over work queue `queue` (resource index): the queue's
// fetch count, one quantity for every task on the queue whatever its fields, so the verifier runs
// their loops alike (program.hpp, LoopKeys). The value is a marker no resource field takes.
constexpr Bound tile_loop_bound(int queue) {
  long long const v = -(1LL << 40) - queue;
  return {.is_static = false,
          .value = v,
          .source = -1,
          .multiple = 1,
          .probed = true,
          .probes = {v, v}};
}

constexpr bool is_tile_loop(Node const& n) {
  return n.kind == NodeKind::Loop && n.queue >= 0;
}

// A tile loop runs once per tile and once more: the fetch that finds the queue empty (its
// invalid entry ends the loop). `tiles` is what the verifier picks for the run-time bound.
constexpr int tile_loop_trips(int tiles) {
  return tiles + 1;
}

struct Schedule {
  std::vector<Node> nodes{Node{}};  // nodes[0] is the root
  std::vector<DataEdge> edges;
  std::vector<Divergence> divergent;  // filled by the capture (describe.hpp)

  constexpr int add(Node n) {
    nodes.push_back(n);
    int id = static_cast<int>(nodes.size()) - 1;
    if (n.parent >= 0) nodes[n.parent].children.push_back(id);
    return id;
  }
  constexpr Node const& root() const { return nodes[0]; }
  constexpr bool empty() const { return nodes[0].children.empty(); }
};

// Whether `s` fills stages of the resource with index `resource` (acquires or commits one): the
// pipelines a warp of a task whose warps take roles drains at its end (TaskSpec::warp_roles; the
// TaskManager and the verifier's model alike).
constexpr bool fills(Schedule const& s, int resource) {
  for (Node const& n : s.nodes)
    if (n.kind == NodeKind::Op && n.resource == resource && is_producer_op(n.op)) return true;
  return false;
}

}  // namespace warploom::ts
