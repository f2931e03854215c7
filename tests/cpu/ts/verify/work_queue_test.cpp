// tests/cpu/ts/verify/work_queue_test.cpp — persistent tasks over work queues: what
// ctx.work_tile_loop captures (recorder.hpp, work_tile_loop.hpp), how an execution walks it
// (walk.hpp: once per tile and once more, skippable sections left out for skipped tiles), and the
// rules of warploom/ts/verify/work_queue.hpp (R-A10, R-A11, R-A13, R-D12), each message naming
// the task, resource and op.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../fixtures.hpp"
#include "../model_builder.hpp"
#include "warploom/ts/verify/structural.hpp"
#include "warploom/ts/verify/walk.hpp"

namespace {

using namespace fixtures;
using ts::NodeKind;
using ts::OpKind;
using ts::Role;
using ts::Rule;
namespace verify = ts::verify;
using Ids = std::vector<std::string>;

bool mentions(std::string const& message, std::string const& part) {
  return message.find(part) != std::string::npos;
}

struct MaskedTiles : ts::StaticTileQueue {
  bool masked(ts::WorkTile const& t) const { return t.m % 2 != 0; }
};

// Persistent store of tile items: handshake, then the tile's items unless skipped.
template <bool kSkip>
struct TileStore {
  static constexpr ts::TaskSpec spec{.name = "store", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<MaskedTiles, InputGmem>;
  using dst = ts::list<OutputGmem>;
  static constexpr void body(auto& ctx, auto& queue, auto& in, auto& out, auto& tiles) {
    queue.wait();
    auto tile = ts::work<&MaskedTiles::next_tile>(queue);
    queue.release();
    tiles.if_valid(tile, [&] {
      auto copy = [&] {
        ctx.domain_loop(ts::c<2>, [&](auto&) {
          ts::work<&OutputGmem::store>(out, static_cast<short>(0));
          ts::work<&InputGmem::compute_coords>(in);
        });
      };
      if constexpr (kSkip) {
        tiles.skippable(copy);
      } else {
        copy();
      }
    });
  }
  static constexpr void schedule(auto& ctx, auto& queue, auto& in, auto& out) {
    if constexpr (kSkip) {
      ctx.work_tile_loop(queue, ts::skip_if<&MaskedTiles::masked>,
                         [&](auto& tiles) { body(ctx, queue, in, out, tiles); });
    } else {
      ctx.work_tile_loop(queue, [&](auto& tiles) { body(ctx, queue, in, out, tiles); });
    }
  }
};

template <bool kSkip>
using Persistent = ts::TaskManager<ts::Tasks<TileStore<kSkip>>,
                                   ts::Graph<ts::DependsOn<OutputGmem, InputGmem, MaskedTiles>>>;

int find(ts::Schedule const& s, NodeKind kind) {
  for (int i = 0; i < static_cast<int>(s.nodes.size()); ++i)
    if (s.nodes[i].kind == kind) return i;
  return -1;
}

TEST(WorkQueue, TheTileLoopIsCapturedAsALoopOverTheQueuesFetches) {
  ts::ManagerModel const m = Persistent<true>::model();
  ts::Schedule const& s = m.tasks.at(0).schedule;
  int const loop = find(s, NodeKind::Loop);
  ASSERT_GE(loop, 0);
  ts::Node const& n = s.nodes[loop];
  EXPECT_TRUE(ts::is_tile_loop(n));
  EXPECT_EQ(m.resources.at(n.queue).name, "tile_queue");
  EXPECT_EQ(n.skip_if, n.queue);
  EXPECT_EQ(n.parent, 0);
  // The bound is the queue's fetch count, whatever the queue's fields hold in the probes.
  EXPECT_FALSE(n.end.is_static);
  EXPECT_EQ(n.end.value, ts::tile_loop_bound(n.queue).value);
  EXPECT_EQ(n.end.in_probe(0), n.end.value);
  EXPECT_EQ(n.end.in_probe(1), n.end.value);
  // if_valid: a not-last-iteration block testing the queue's tile; skippable inside it.
  int const valid = find(s, NodeKind::NotLastIter);
  ASSERT_GE(valid, 0);
  EXPECT_EQ(s.nodes[valid].loop, loop);
  ASSERT_GE(s.nodes[valid].tile, 0);
  EXPECT_EQ(s.nodes[s.nodes[valid].tile].label, "next_tile");
  int const skippable = find(s, NodeKind::Skippable);
  ASSERT_GE(skippable, 0);
  EXPECT_EQ(s.nodes[skippable].parent, valid);
  EXPECT_TRUE(ts::verify_structure(m).ok());
}

TEST(WorkQueue, AnExecutionFetchesOnceMoreThanItHasTilesAndSkipsItsSkippableWork) {
  ts::Schedule const s = Persistent<true>::model().tasks.at(0).schedule;
  int const loop = find(s, NodeKind::Loop);
  auto count = [&](std::vector<int> const& ops, std::string_view label) {
    int k = 0;
    for (int id : ops) k += s.nodes[id].label == label;
    return k;
  };
  auto trips = [&](int tiles) {
    return [&s, tiles](int node) { return verify::trip_count(s.nodes[node], tiles); };
  };
  for (int tiles : {0, 1, 3}) {
    std::vector<int> const kept = verify::flatten_with(s, trips(tiles));
    EXPECT_EQ(count(kept, "next_tile"), tiles + 1) << tiles << " tiles";
    EXPECT_EQ(count(kept, "store"), 2 * tiles) << tiles << " tiles";
    std::vector<int> const skipped = verify::flatten_with(s, trips(tiles), nullptr, true);
    EXPECT_EQ(count(skipped, "next_tile"), tiles + 1) << tiles << " skipped tiles";
    EXPECT_EQ(count(skipped, "store"), 0) << tiles << " skipped tiles";
  }
  EXPECT_EQ(verify::trip_count(s.nodes[loop], 2), 3);
}

// A persistent store that keeps each tile's result for the next fetch to store (as the attention
// kernel stores a tile's O under the next tile's first GEMM): the tile before's result in every
// fetch but the first, the last one after the last tile (if_invalid), a set-up in the first.
struct DeferredStore {
  static constexpr ts::TaskSpec spec{.name = "deferred", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<MaskedTiles, InputGmem>;
  using dst = ts::list<OutputGmem>;
  static constexpr void schedule(auto& ctx, auto& queue, auto& in, auto& out) {
    ctx.work_tile_loop(queue, [&](auto& tiles) {
      queue.wait();
      auto tile = ts::work<&MaskedTiles::next_tile>(queue);
      queue.release();
      tiles.first_iter([&] { ts::work<&InputGmem::compute_coords>(in); });
      tiles.if_valid(tile, [&] {
        tiles.not_first_iter([&] { ts::work<&OutputGmem::store>(out, static_cast<short>(1)); });
      });
      tiles.if_invalid(tile, [&] { ts::work<&OutputGmem::store>(out, static_cast<short>(2)); });
    });
  }
};
using Deferred = ts::TaskManager<ts::Tasks<DeferredStore>,
                                 ts::Graph<ts::DependsOn<OutputGmem, InputGmem, MaskedTiles>>>;

TEST(WorkQueue, IfInvalidRunsOnceAfterTheLastTileAndFirstIterOnTheFirstFetch) {
  ts::ManagerModel const m = Deferred::model();
  ts::Schedule const& s = m.tasks.at(0).schedule;
  int const loop = find(s, NodeKind::Loop);
  int const invalid = find(s, NodeKind::LastIter);
  ASSERT_GE(invalid, 0);
  EXPECT_EQ(s.nodes[invalid].loop, loop);
  EXPECT_EQ(s.nodes[invalid].parent, loop);
  ASSERT_GE(s.nodes[invalid].tile, 0);
  EXPECT_EQ(s.nodes[s.nodes[invalid].tile].label, "next_tile");
  EXPECT_EQ(s.nodes[find(s, NodeKind::FirstIter)].loop, loop);
  EXPECT_EQ(s.nodes[find(s, NodeKind::NotFirstIter)].loop, loop);
  EXPECT_TRUE(ts::verify_structure(m).ok()) << ts::verify_structure(m).violations.at(0).message;
  // Per execution: the set-up once (the first fetch, the invalid one for a CTA without a tile),
  // the tile before's store for every tile but the first, the last tile's once.
  auto count = [&](std::vector<int> const& ops, std::string_view label) {
    int k = 0;
    for (int id : ops) k += s.nodes[id].label == label;
    return k;
  };
  for (int tiles : {0, 1, 3}) {
    std::vector<int> const ops =
        verify::flatten_with(s, [&](int node) { return verify::trip_count(s.nodes[node], tiles); });
    EXPECT_EQ(count(ops, "compute_coords"), 1) << tiles << " tiles";
    EXPECT_EQ(count(ops, "store"), tiles == 0 ? 1 : tiles) << tiles << " tiles";
    ASSERT_FALSE(ops.empty());
    EXPECT_EQ(s.nodes[ops.back()].label, "store") << tiles << " tiles";  // if_invalid's, last
  }
}

TEST(WorkQueue, R_D12_IfInvalidTestsTheQueuesTileOnce) {
  // Its tile read from another resource, then a second if_invalid block.
  ts::ManagerModel m = Deferred::model();
  ts::Schedule& s = m.tasks[0].schedule;
  int const invalid = find(s, NodeKind::LastIter);
  int const coords = [&] {
    for (int i = 0; i < static_cast<int>(s.nodes.size()); ++i)
      if (s.nodes[i].label == "compute_coords") return i;
    return -1;
  }();
  ASSERT_GE(coords, 0);
  ts::ManagerModel other = m;
  other.tasks[0].schedule.nodes[invalid].tile = coords;
  ts::Report const r = ts::verify_structure(other);
  ASSERT_EQ(rule_ids(r), Ids{"R-D12"});
  EXPECT_EQ(r.violations[0].op, "if_invalid");
  EXPECT_TRUE(mentions(r.violations[0].message, "pass if_invalid the tile the queue handed out"))
      << r.violations[0].message;

  ts::Node twice = s.nodes[invalid];
  twice.children.clear();
  s.nodes[twice.parent].children.push_back(static_cast<int>(s.nodes.size()));
  s.nodes.push_back(twice);
  ts::Report const two = ts::verify_structure(m);
  ASSERT_EQ(rule_ids(two), Ids{"R-D12"});
  EXPECT_TRUE(mentions(two.violations[0].message, "tests for its invalid tile 2 times"))
      << two.violations[0].message;
}

TEST(WorkQueue, R_A11_TheSkipPredicateOfAnotherResourceIsRejected) {
  ts::ManagerModel m = Persistent<true>::model();
  for (auto& n : m.tasks[0].schedule.nodes)
    if (ts::is_tile_loop(n)) n.skip_if = 1;  // input_gmem
  ts::Report const r = ts::verify_structure(m);
  ASSERT_EQ(rule_ids(r), Ids{"R-A11"});
  EXPECT_EQ(r.violations[0].task, "store");
  EXPECT_EQ(r.violations[0].op, "skip_if");
  EXPECT_TRUE(mentions(r.violations[0].message, "from `input_gmem`")) << r.violations[0].message;
}

TEST(WorkQueue, R_A13_SkippableWithoutASkipPredicateIsRejected) {
  ts::ManagerModel m = Persistent<true>::model();
  for (auto& n : m.tasks[0].schedule.nodes)
    if (ts::is_tile_loop(n)) n.skip_if = -1;
  ts::Report const r = ts::verify_structure(m);
  ASSERT_EQ(rule_ids(r), Ids{"R-A13"});
  EXPECT_EQ(r.violations[0].op, "skippable");
}

// Hand-built: one task, queue (0, static), out (1); `place` puts the handshake's read.
enum class Place { InBody, InsideValidBlock, OutsideTheLoop };
ts::ManagerModel placed(Place place, bool second_task = false) {
  ModelBuilder b;
  int const queue = b.resource("tiles", ts::no_pipeline, ts::ResourceKind::WorkQueue);
  int const out = b.resource("out");
  ScheduleBuilder s;
  int const loop = s.loop(0, fixed(0), ts::tile_loop_bound(queue), fixed(1));
  s.s.nodes[loop].queue = queue;
  int const read_parent = place == Place::OutsideTheLoop ? 0 : loop;
  int const tile = s.work(read_parent, Role::Consumer, queue, "next_tile");
  int const valid = s.block(loop, NodeKind::NotLastIter, loop);
  s.s.nodes[valid].tile = tile;
  if (place == Place::InsideValidBlock) s.work(valid, Role::Consumer, queue, "peek_tile");
  s.work(valid, Role::Producer, out, "store");
  b.task("persistent", 0, 4, {queue}, {out}, s.s);
  if (second_task) {
    ScheduleBuilder plain;
    plain.work(plain.loop(0, fixed(0), dynamic(0), fixed(1)), Role::Producer, out, "store");
    b.task("plain", 4, 1, {}, {out}, plain.s);
  }
  b.edge(out, queue);
  return b.m;
}

TEST(WorkQueue, R_D12_QueueOpsBelongDirectlyInTheTileLoop) {
  EXPECT_TRUE(ts::verify_structure(placed(Place::InBody)).ok());
  ts::Report const inside = ts::verify_structure(placed(Place::InsideValidBlock));
  ASSERT_EQ(rule_ids(inside), Ids{"R-D12"});
  EXPECT_EQ(inside.violations[0].op, "peek_tile");
  EXPECT_TRUE(mentions(inside.violations[0].message, "inside a block or loop"))
      << inside.violations[0].message;
  ts::Report const outside = ts::verify_structure(placed(Place::OutsideTheLoop));
  ASSERT_TRUE(outside.has(Rule::D12_QueuePlacement));
  EXPECT_TRUE(
      mentions(first_of(outside, Rule::D12_QueuePlacement)->message, "outside a work_tile_loop"));
}

TEST(WorkQueue, R_D12_AllTasksArePersistentOrNone) {
  ts::Report const r = ts::verify_structure(placed(Place::InBody, /*second_task=*/true));
  ASSERT_EQ(rule_ids(r), Ids{"R-D12"});
  EXPECT_EQ(r.violations[0].task, "plain");
  EXPECT_TRUE(mentions(r.violations[0].message, "task `persistent` is persistent"))
      << r.violations[0].message;
}

TEST(WorkQueue, R_A10_TheTileLoopIsTheTasksOutermostLoop) {
  ts::ManagerModel m = placed(Place::InBody);
  // Move the tile loop under a new domain loop.
  ts::Schedule& s = m.tasks[0].schedule;
  int const tile_loop = s.nodes[0].children.at(0);
  ts::Node outer{};
  outer.kind = NodeKind::Loop;
  outer.parent = 0;
  outer.start = fixed(0);
  outer.end = fixed(2);
  outer.step = fixed(1);
  s.nodes.push_back(outer);
  int const id = static_cast<int>(s.nodes.size()) - 1;
  s.nodes[0].children = {id};
  s.nodes[id].children = {tile_loop};
  s.nodes[tile_loop].parent = id;
  ts::Report const r = ts::verify_structure(m);
  ASSERT_EQ(rule_ids(r), Ids{"R-A10"});
  EXPECT_EQ(r.violations[0].op, "work_tile_loop");
  EXPECT_TRUE(mentions(r.violations[0].message, "outermost loop")) << r.violations[0].message;
}

}  // namespace
