// tests/cpu/ts/verify/walk_test.cpp — executions of a schedule (warploom/ts/verify/walk.hpp): trip
// counts of compile-time loops (capped at 3), run-time loops at a chosen trip count, and
// first/last-iteration blocks.

#include <gtest/gtest.h>

#include <vector>

#include "../model_builder.hpp"
#include "warploom/ts/verify/walk.hpp"

namespace {

using namespace fixtures;
using ts::NodeKind;
using ts::OpKind;
using ts::Role;
namespace verify = ts::verify;

ts::Node loop_node(ts::Bound start, ts::Bound end, ts::Bound step) {
  ts::Node n{};
  n.kind = NodeKind::Loop;
  n.start = start;
  n.end = end;
  n.step = step;
  return n;
}

TEST(VerifyWalk, StaticTripCounts) {
  EXPECT_EQ(verify::static_trip_count(loop_node(fixed(0), fixed(8), fixed(1))), 8);
  EXPECT_EQ(verify::static_trip_count(loop_node(fixed(0), fixed(7), fixed(2))), 4);
  EXPECT_EQ(verify::static_trip_count(loop_node(fixed(10), fixed(0), fixed(-3))), 4);  // 10 7 4 1
  EXPECT_EQ(verify::static_trip_count(loop_node(fixed(5), fixed(5), fixed(1))), 0);
  EXPECT_EQ(verify::static_trip_count(loop_node(fixed(5), fixed(0), fixed(1))), 0);
  EXPECT_EQ(verify::static_trip_count(loop_node(fixed(0), fixed(5), fixed(-1))), 0);
  EXPECT_EQ(verify::static_trip_count(loop_node(fixed(0), fixed(5), fixed(0))), 0);
}

TEST(VerifyWalk, TripCountCapsStaticLoopsAt3AndUsesTheScenarioForRunTimeOnes) {
  EXPECT_EQ(verify::trip_count(loop_node(fixed(0), fixed(8), fixed(1)), 0), 3);
  EXPECT_EQ(verify::trip_count(loop_node(fixed(0), fixed(2), fixed(1)), 3), 2);
  EXPECT_EQ(verify::trip_count(loop_node(fixed(0), dynamic(2), fixed(1)), 0), 0);
  EXPECT_EQ(verify::trip_count(loop_node(dynamic(0), fixed(2), fixed(1)), 3), 3);
  EXPECT_EQ(verify::trip_count(loop_node(fixed(0), fixed(2), dynamic(1)), 1), 1);
}

// root: a; loop[0,2) { first{ b } c  last{ d } }; e
struct Blocks {
  ScheduleBuilder s;
  int a, loop, b, c, d, e;
  explicit Blocks(ts::Bound end) {
    a = s.op(0, OpKind::Acquire, 0);
    loop = s.loop(0, fixed(0), end, fixed(1));
    b = s.work(s.block(loop, NodeKind::FirstIter, loop), Role::Producer, 0, "b");
    c = s.work(loop, Role::Producer, 0, "c");
    d = s.work(s.block(loop, NodeKind::LastIter, loop), Role::Producer, 0, "d");
    e = s.op(0, OpKind::Commit, 0);
  }
};

TEST(VerifyWalk, FlattenRunsFirstAndLastBlocksInTheirIterations) {
  Blocks st(fixed(2));
  EXPECT_EQ(verify::flatten(st.s.s, 0), (std::vector<int>{st.a, st.b, st.c, st.c, st.d, st.e}));
  Blocks one(fixed(1));  // first == last
  EXPECT_EQ(verify::flatten(one.s.s, 0), (std::vector<int>{one.a, one.b, one.c, one.d, one.e}));
  Blocks many(fixed(100));  // capped: first, middle, last
  EXPECT_EQ(verify::flatten(many.s.s, 0),
            (std::vector<int>{many.a, many.b, many.c, many.c, many.c, many.d, many.e}));
}

TEST(VerifyWalk, FlattenRunsRunTimeLoopsTheScenarioCount) {
  Blocks rt(dynamic(2));
  EXPECT_TRUE(verify::has_runtime_loop(rt.s.s));
  EXPECT_EQ(verify::flatten(rt.s.s, 0), (std::vector<int>{rt.a, rt.e}));
  EXPECT_EQ(verify::flatten(rt.s.s, 1), (std::vector<int>{rt.a, rt.b, rt.c, rt.d, rt.e}));
  EXPECT_EQ(verify::flatten(rt.s.s, 3),
            (std::vector<int>{rt.a, rt.b, rt.c, rt.c, rt.c, rt.d, rt.e}));
  EXPECT_FALSE(verify::has_runtime_loop(Blocks(fixed(2)).s.s));
}

TEST(VerifyWalk, OuterLoopBlocksInsideAnInnerLoopFollowTheOuterIteration) {
  ScheduleBuilder s;
  int outer = s.loop(0, fixed(0), fixed(2), fixed(1));
  int inner = s.loop(outer, fixed(0), fixed(2), fixed(1));
  int x = s.work(s.block(inner, NodeKind::LastIter, outer), Role::Producer, 0, "x");
  int y = s.work(inner, Role::Producer, 0, "y");
  // outer 0: y y; outer 1 (last): x y x y.
  EXPECT_EQ(verify::flatten(s.s, 0), (std::vector<int>{y, y, x, y, x, y}));
}

TEST(VerifyWalk, StampsTellTheIterationOfTheInnermostLoop) {
  Blocks st(fixed(2));
  std::vector<int> stamps;
  std::vector<int> const ops = verify::flatten_with(
      st.s.s, [&](int node) { return verify::trip_count(st.s.s.nodes[node], 0); }, &stamps);
  ASSERT_EQ(ops, (std::vector<int>{st.a, st.b, st.c, st.c, st.d, st.e}));
  // a and e outside the loop; b c in the first iteration, c d in the second.
  EXPECT_EQ(stamps, (std::vector<int>{0, 1, 1, 2, 2, 0}));
}

TEST(VerifyWalk, BlocksOutsideTheirLoopNeverRunAndLocalsAreNotOps) {
  ScheduleBuilder s;
  int loop = s.loop(0, fixed(0), fixed(2), fixed(1));
  int in_loop = s.work(loop, Role::Producer, 0, "in_loop");
  s.work(s.block(0, NodeKind::FirstIter, loop), Role::Producer, 0, "stray");
  ts::Node local{};
  local.kind = NodeKind::Local;
  local.parent = 0;
  s.s.add(local);
  EXPECT_EQ(verify::flatten(s.s, 0), (std::vector<int>{in_loop, in_loop}));
  EXPECT_EQ(verify::op_nodes(s.s), (std::vector<int>{2, 4}));
}

}  // namespace
