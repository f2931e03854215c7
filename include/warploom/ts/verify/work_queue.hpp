// warploom/ts/verify/work_queue.hpp
//
// Rules on persistent tasks and their work queues (work_tile_loop.hpp, work_queue.hpp), the
// reference's R-A10, R-A11, R-A13 and R-D12 adapted to a tree of loops:
//
//   R-A10  a task has at most one work_tile_loop, at the top of its schedule, over a work queue it
//          lists in src; outside it only auxiliary work and signals (PDL, barriers) run, once
//   R-A11  the skip predicate belongs to the queue the loop walks
//   R-A13  skippable() sits in a tile loop with a skip predicate, is not nested, and holds no
//          queue op (every task does the handshake for every tile, skipped or not); auxiliary
//          work on the queue may go anywhere
//   R-D12  all tasks persistent or none; queue ops only in the body of a tile loop over that
//          queue, outside its blocks (once per fetch); each tile loop ends on a tile it reads from
//          its queue (if_valid), and at most one if_invalid block (work after the last tile)
//          tests that tile too; a queue without a pipeline has no producer, one with a pipeline
//          has one (its scheduler)
#pragma once

#include <string>

#include "warploom/ts/model.hpp"
#include "warploom/ts/verify/context.hpp"
#include "warploom/ts/verify/walk.hpp"

namespace warploom::ts::verify {

namespace detail {

// The innermost tile loop enclosing node `id` (-1: none), and whether `id` sits directly in its
// body (no block or loop between).
struct TileLoopPlace {
  int loop = -1;
  bool direct = false;
};

constexpr TileLoopPlace tile_loop_of(Schedule const& s, int id) {
  TileLoopPlace out;
  bool direct = true;
  for (int p = s.nodes[id].parent; p >= 0; p = s.nodes[p].parent) {
    if (is_tile_loop(s.nodes[p])) {
      out.loop = p;
      out.direct = direct;
      return out;
    }
    direct = false;
  }
  return out;
}

constexpr bool is_queue(ManagerModel const& m, int res) {
  return res >= 0 && res < static_cast<int>(m.resources.size()) &&
         m.resources[res].kind == ResourceKind::WorkQueue;
}

constexpr std::vector<int> tile_loops(Schedule const& s) {
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(s.nodes.size()); ++i)
    if (is_tile_loop(s.nodes[i])) out.push_back(i);
  return out;
}

}  // namespace detail

constexpr void check_work_queues(ManagerModel const& m, Report& r) {
  r.checks_run += 4;
  int first_persistent = -1;  // a task with a tile loop, for R-D12's all-or-none
  for (int ti = 0; ti < static_cast<int>(m.tasks.size()); ++ti) {
    TaskModel const& t = m.tasks[ti];
    std::string_view task = t.spec.name;
    Schedule const& s = t.schedule;
    std::vector<int> const loops = detail::tile_loops(s);
    if (!loops.empty() && first_persistent < 0) first_persistent = ti;
    // R-A10: the loop itself.
    if (loops.size() > 1)
      add(r, Rule::A10_TileLoop, task, resource_name(m, s.nodes[loops[1]].queue), "work_tile_loop",
          [&] {
            return "has " + to_str(static_cast<long long>(loops.size())) +
                   " work_tile_loops; a persistent task walks its tiles in one";
          });
    for (int id : loops) {
      Node const& n = s.nodes[id];
      std::string_view const queue = resource_name(m, n.queue);
      if (n.parent != 0)
        add(r, Rule::A10_TileLoop, task, queue, "work_tile_loop", [&] {
          return std::string(
              "sits inside a loop or block; work_tile_loop is the task's outermost loop (open "
              "domain loops inside its body)");
        });
      if (!detail::is_queue(m, n.queue) || !contains(t.src, n.queue))
        add(r, Rule::A10_TileLoop, task, queue, "work_tile_loop", [&] {
          return std::string(detail::is_queue(m, n.queue)
                                 ? "walks a work queue the task does not list in src; list it"
                                 : "walks a resource that is no work queue; give it "
                                   "`.kind = ts::ResourceKind::WorkQueue`");
        });
      // R-A11
      if (n.skip_if >= 0 && n.skip_if != n.queue)
        add(r, Rule::A11_SkipOwner, task, queue, "skip_if", [&] {
          return "takes its skip predicate from `" + std::string(resource_name(m, n.skip_if)) +
                 "`; the predicate must be a member of the queue the loop walks, so that every "
                 "task on the queue skips the same tiles";
        });
      // R-D12: the loop ends on a tile read from its queue (if_valid), and work after the last
      // tile (if_invalid) tests that tile too.
      int valid_blocks = 0, invalid_blocks = 0;
      for (int c : n.children) {
        Node const& b = s.nodes[c];
        bool const valid = b.kind == NodeKind::NotLastIter;
        if ((!valid && b.kind != NodeKind::LastIter) || b.tile < 0) continue;
        ++(valid ? valid_blocks : invalid_blocks);
        std::string_view const op = valid ? "if_valid" : "if_invalid";
        Node const& from = s.nodes[b.tile];
        if (from.kind != NodeKind::Op || from.op != OpKind::Work || from.resource != n.queue ||
            is_producer_side(from.role))
          add(r, Rule::D12_QueuePlacement, task, queue, op, [&] {
            return "tests a tile that no consumer work of the loop's queue returned; pass " +
                   std::string(op) + " the tile the queue handed out in this iteration";
          });
      }
      if (invalid_blocks > 1)
        add(r, Rule::D12_QueuePlacement, task, queue, "if_invalid", [&] {
          return "the tile loop tests for its invalid tile " + to_str(invalid_blocks) +
                 " times; one if_invalid holds the work after the last tile";
        });
      if (valid_blocks != 1)
        add(r, Rule::D12_QueuePlacement, task, queue, "if_valid", [&] {
          return valid_blocks == 0 ? std::string(
                                         "the tile loop never tests its tile with if_valid(tile, "
                                         "...): it would never end")
                                   : "the tile loop tests its tile " + to_str(valid_blocks) +
                                         " times; one if_valid holds the tile's work";
        });
    }
    // R-A10: outside the tile loop, only auxiliary work and signals.
    if (!loops.empty()) {
      for (int id : op_nodes(s)) {
        Node const& n = s.nodes[id];
        if (detail::tile_loop_of(s, id).loop >= 0 || n.op == OpKind::AsyncWait) continue;
        bool const signal = n.resource >= 0 && n.resource < static_cast<int>(m.resources.size()) &&
                            is_barrier(m.resources[n.resource].kind);
        if (signal || detail::is_queue(m, n.resource) ||
            (n.op == OpKind::Work && is_auxiliary(n.role)))
          continue;
        add(r, Rule::A10_TileLoop, task, resource_name(m, n.resource), op_name(n), [&] {
          return std::string(
              "runs outside the task's work_tile_loop: a persistent task's work is per tile, "
              "inside the loop; only auxiliary work (set-up) and signals (PDL, barriers) may run "
              "once before or after it");
        });
        break;
      }
    }
    for (int id = 0; id < static_cast<int>(s.nodes.size()); ++id) {
      Node const& n = s.nodes[id];
      // R-A13
      if (n.kind == NodeKind::Skippable) {
        bool enclosed = false, nested = false;
        for (int p = n.parent; p >= 0; p = s.nodes[p].parent) {
          enclosed = enclosed || (p == n.loop && is_tile_loop(s.nodes[p]));
          nested = nested || s.nodes[p].kind == NodeKind::Skippable;
        }
        if (!enclosed || s.nodes[n.loop].skip_if < 0)
          add(r, Rule::A13_Skippable, task, "", "skippable", [&] {
            return std::string(
                "is not inside a work_tile_loop with a skip predicate; pass "
                "ts::skip_if<&Queue::member> to the loop, or drop skippable()");
          });
        if (nested)
          add(r, Rule::A13_Skippable, task, "", "skippable", [&] {
            return std::string("sits inside another skippable(); one section per skip is enough");
          });
      }
      // Auxiliary work on the queue (reading a tile's fields, say) touches no entry: anywhere.
      if (n.kind != NodeKind::Op || !detail::is_queue(m, n.resource) ||
          (n.op == OpKind::Work && is_auxiliary(n.role)))
        continue;
      for (int p = n.parent; p >= 0; p = s.nodes[p].parent) {
        if (s.nodes[p].kind != NodeKind::Skippable) continue;
        add(r, Rule::A13_Skippable, task, resource_name(m, n.resource), op_name(n), [&] {
          return std::string(
              "is a queue op inside skippable(): a skipped tile would miss its handshake and the "
              "queue's ring would fall out of step; do the handshake before if_valid");
        });
        break;
      }
      // R-D12: queue ops directly in the body of a tile loop over the same queue.
      detail::TileLoopPlace const at = detail::tile_loop_of(s, id);
      if (at.loop < 0 || s.nodes[at.loop].queue != n.resource || !at.direct)
        add(r, Rule::D12_QueuePlacement, task, resource_name(m, n.resource), op_name(n), [&] {
          return std::string(at.loop < 0 ? "runs outside a work_tile_loop over the queue"
                             : s.nodes[at.loop].queue != n.resource
                                 ? "runs in a tile loop over another queue"
                                 : "runs inside a block or loop of the tile loop's body") +
                 "; queue ops belong directly in the body of `ctx.work_tile_loop(queue, ...)`, "
                 "once per fetch, before if_valid (wait; next_tile; release)";
        });
    }
  }
  // R-D12: all tasks persistent or none (padding tasks run no schedule).
  if (first_persistent >= 0) {
    for (auto const& t : m.tasks) {
      if (t.padding || t.schedule.empty() || !detail::tile_loops(t.schedule).empty()) continue;
      add(r, Rule::D12_QueuePlacement, t.spec.name, "", "", [&] {
        return "has no work_tile_loop while task `" +
               std::string(m.tasks[first_persistent].spec.name) +
               "` is persistent: it would run once while the others run once per tile; give it "
               "the same tile loop";
      });
    }
  }
  // R-D12: who fills a queue.
  for (int res = 0; res < static_cast<int>(m.resources.size()); ++res) {
    if (!detail::is_queue(m, res)) continue;
    bool used = false, filled = false;
    for (auto const& t : m.tasks) {
      used = used || contains(t.src, res);
      filled = filled || contains(t.dst, res);
    }
    bool const pipelined = m.resources[res].pipeline.enabled();
    if (!pipelined && filled)
      add(r, Rule::D12_QueuePlacement, "", resource_name(m, res), "", [&] {
        return std::string(
            "has no pipeline (a static queue: each CTA computes its tiles), yet a task lists it "
            "in dst to fill it; give the queue a pipeline (ts::DynamicTileQueue) or drop the "
            "scheduler");
      });
    if (pipelined && used && !filled)
      add(r, Rule::D12_QueuePlacement, "", resource_name(m, res), "", [&] {
        return std::string(
            "has a pipeline (a dynamic queue) but no task fills it: every task would wait for "
            "its first tile forever; add the scheduler task (the queue in its src and dst)");
      });
  }
}

}  // namespace warploom::ts::verify
