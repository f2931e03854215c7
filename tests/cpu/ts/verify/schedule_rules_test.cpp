// tests/cpu/ts/verify/schedule_rules_test.cpp — rules on each schedule by itself
// (warploom/ts/verify/schedule_rules.hpp): R-B3 loop steps, R-B4 work queues, R-B6 iteration
// blocks inside their loop, R-D5 ops on the right side, R-D9 declared resources used, R-D20 work
// labels. R-B3, R-B6, R-D5 and R-D20 do not compile as C++ schedules (tests/compile_fail), so
// their violating models are built by hand or edited from a captured one.

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../fixtures.hpp"
#include "../model_builder.hpp"

namespace {

using namespace fixtures;
using ts::NodeKind;
using ts::OpKind;
using ts::Role;
using ts::Rule;
using Ids = std::vector<std::string>;
using T = Tiles<>;

bool mentions(std::string const& message, std::string const& part) {
  return message.find(part) != std::string::npos;
}

// One task "spin" on warps 0-3 reading "in" (resource 0) and writing "out" (resource 1), with the
// graph edge out <- in; the test writes the schedule.
constexpr int kIn = 0, kOut = 1;
ts::ManagerModel one_task_model(ScheduleBuilder const& s) {
  ModelBuilder b;
  b.resource("in");
  b.resource("out");
  b.task("spin", 0, 4, {kIn}, {kOut}, s.s);
  b.edge(kOut, kIn);
  return b.m;
}

// A loop body that uses both resources: out.write(in.read()).
void copy_body(ScheduleBuilder& s, int parent) {
  s.work(parent, Role::Consumer, kIn, "read");
  s.work(parent, Role::Producer, kOut, "write");
}

// ---- R-B3
// ------------------------------------------------------------------------------------------

TEST(Verify, R_B3_StaticStepZeroIsRejected) {
  ScheduleBuilder s;
  copy_body(s, s.loop(0, fixed(0), fixed(8), fixed(0)));
  ts::Report r = ts::verify_structure(one_task_model(s));
  ASSERT_EQ(rule_ids(r), Ids{"R-B3"});
  ts::Violation const* v = first_of(r, Rule::B3_LoopStep);
  ASSERT_TRUE(r.has(Rule::B3_LoopStep));
  EXPECT_EQ(v->task, "spin");
  EXPECT_EQ(v->op, "domain_loop");
  EXPECT_EQ(v->message, "the loop step is 0; it never ends");
}

TEST(Verify, R_B3_NegativeUnrollIsRejected) {
  ScheduleBuilder s;
  int loop = s.loop(0, fixed(0), fixed(8), fixed(1));
  s.s.nodes[loop].unroll = -1;
  copy_body(s, loop);
  EXPECT_EQ(rule_ids(ts::verify_structure(one_task_model(s))), Ids{"R-B3"});
}

TEST(Verify, R_B3_NonZeroStepsAreAccepted) {
  ScheduleBuilder s;
  copy_body(s, s.loop(0, fixed(0), fixed(8), fixed(1)));
  copy_body(s, s.loop(0, fixed(8), fixed(0), fixed(-2)));
  copy_body(s, s.loop(0, dynamic(0), dynamic(8), dynamic(3)));
  EXPECT_TRUE(ts::verify_structure(one_task_model(s)).ok());
}

// ---- R-B4
// ------------------------------------------------------------------------------------------

// The store task as a persistent task: takes tiles from each queue in `Queues`.
template <class... Queues>
struct PersistentStore : Store<T> {
  using src = ts::list<Queues..., T>;
  static constexpr void schedule(auto& ctx, auto&... handles) {
    auto all = std::tie(handles...);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (ts::work<&Queues::next_tile>(std::get<I>(all)), ...);
    }
    (std::index_sequence_for<Queues...>{});
    Store<T>::schedule(ctx, std::get<sizeof...(Queues)>(all), std::get<sizeof...(Queues) + 1>(all));
  }
};

// Fills a queue: the scheduler warp of a dynamic queue (it fetches tile indices and hands them
// to the persistent tasks).
template <int kWarp = 5, char kSuffix = 0>
struct QueueFiller {
  static constexpr char kName[] = {'s', 'c', 'h', 'e', 'd', 'u', 'l', 'e', 'r', kSuffix, 0};
  static constexpr ts::TaskSpec spec{.name = kName, .warp_idx = kWarp};
  using src = ts::list<>;
  using dst = ts::list<TileQueue<0>>;
  static constexpr void schedule(auto&, auto& q) { ts::work<&TileQueue<0>::push_tile>(q); }
};

template <class... Queues>
using QueueGraph = ts::Graph<ts::DependsOn<T, InputGmem>, ts::DependsOn<OutputGmem, T, Queues...>>;

// These managers take tiles outside a tile loop, which R-D12 refuses too (work_queue_test.cpp and
// the corpus's work_queues.cpp check placement); here only R-B4's verdict is read.
TEST(Verify, R_B4_OneWorkQueueAsSourceIsAccepted) {
  using M =
      ts::TaskManager<ts::Tasks<Load<T>, PersistentStore<TileQueue<0>>>, QueueGraph<TileQueue<0>>>;
  ts::ManagerModel m = M::model();
  ASSERT_EQ(m.resources.at(1).name, "tile_queue");  // load's src, then store's
  ASSERT_EQ(m.resources.at(1).kind, ts::ResourceKind::WorkQueue);
  EXPECT_FALSE(ts::verify_structure(m).has(Rule::B4_WorkQueue));
}

TEST(Verify, R_B4_TwoWorkQueuesInOneTaskAreRejected) {
  using M = ts::TaskManager<ts::Tasks<Load<T>, PersistentStore<TileQueue<0>, TileQueue<1>>>,
                            QueueGraph<TileQueue<0>, TileQueue<1>>>;
  ts::Report r = verify_manager<M>();
  ASSERT_TRUE(r.has(Rule::B4_WorkQueue));
  ts::Violation const* v = first_of(r, Rule::B4_WorkQueue);
  EXPECT_EQ(v->task, "store");
  EXPECT_TRUE(mentions(v->message, "lists 2 work queues in src")) << v->message;
}

TEST(Verify, R_B4_SchedulerFillingTheQueueIsAccepted) {
  using M = ts::TaskManager<ts::Tasks<Load<T>, PersistentStore<TileQueue<0>>, QueueFiller<>>,
                            QueueGraph<TileQueue<0>>>;
  ts::Report r = verify_manager<M>();
  EXPECT_FALSE(r.has(Rule::B4_WorkQueue));
}

TEST(Verify, R_B4_TwoTasksFillingOneQueueAreRejected) {
  using M = ts::TaskManager<
      ts::Tasks<Load<T>, PersistentStore<TileQueue<0>>, QueueFiller<>, QueueFiller<6, 'b'>>,
      QueueGraph<TileQueue<0>>>;
  ts::Report r = verify_manager<M>();
  ASSERT_TRUE(r.has(Rule::B4_WorkQueue));
  ts::Violation const* v = first_of(r, Rule::B4_WorkQueue);
  EXPECT_EQ(v->task, "schedulerb");
  EXPECT_EQ(v->resource, "tile_queue");
  EXPECT_TRUE(mentions(v->message, "task `scheduler` fills too")) << v->message;
}

// ---- R-B6
// ------------------------------------------------------------------------------------------

TEST(Verify, R_B6_BlockGuardedOnASiblingLoopIsRejected) {
  ScheduleBuilder s;
  int first = s.loop(0, fixed(0), fixed(4), fixed(1));
  copy_body(s, first);
  int second = s.loop(0, fixed(0), fixed(4), fixed(1));
  copy_body(s, s.block(second, NodeKind::FirstIter, first));
  ts::Report r = ts::verify_structure(one_task_model(s));
  ASSERT_EQ(rule_ids(r), Ids{"R-B6"});
  EXPECT_EQ(first_of(r, Rule::B6_BlockStructure)->op, "first_iter");
  EXPECT_EQ(first_of(r, Rule::B6_BlockStructure)->task, "spin");
}

TEST(Verify, R_B6_BlockOutsideEveryLoopIsRejected) {
  ScheduleBuilder s;
  int loop = s.loop(0, fixed(0), fixed(4), fixed(1));
  copy_body(s, loop);
  s.block(0, NodeKind::LastIter, loop);
  ts::Report r = ts::verify_structure(one_task_model(s));
  ASSERT_EQ(rule_ids(r), Ids{"R-B6"});
  EXPECT_EQ(first_of(r, Rule::B6_BlockStructure)->op, "last_iter");
}

TEST(Verify, R_B6_BlocksInsideTheirLoopOrANestedOneAreAccepted) {
  ScheduleBuilder s;
  int outer = s.loop(0, fixed(0), fixed(4), fixed(1));
  copy_body(s, s.block(outer, NodeKind::FirstIter, outer));
  int inner = s.loop(outer, fixed(0), fixed(2), fixed(1));
  copy_body(s, s.block(inner, NodeKind::LastIter, outer));
  EXPECT_TRUE(ts::verify_structure(one_task_model(s)).ok());
}

// ---- R-D5
// ------------------------------------------------------------------------------------------

// CopyManager's resources: input_gmem 0, smem 1, output_gmem 2; tasks load 0, store 1.
constexpr int kInput = 0, kSmem = 1, kOutput = 2;

TEST(Verify, R_D5_ProducerOpsOnASourceOnlyResourceAreRejected) {
  ts::ManagerModel m = CopyManager::model();
  m.tasks[0].src = {kInput, kSmem};  // load now lists smem as a source only
  m.tasks[0].dst = {};
  ts::Report r = ts::verify_structure(m);
  // init_load_state, try_acquire, acquire, tma_load, commit; and nothing produces smem (R-D6).
  ASSERT_EQ(rule_ids(r), (Ids{"R-D5", "R-D5", "R-D5", "R-D5", "R-D5", "R-D6"}));
  ts::Violation const* v = first_of(r, Rule::D5_StageRoles);
  EXPECT_EQ(v->task, "load");
  EXPECT_EQ(v->resource, "smem");
  EXPECT_EQ(v->op, "init_load_state");
  EXPECT_EQ(v->message,
            "producer-side op on a resource the task lists only in src; list it in dst");
  EXPECT_EQ(r.violations[1].op, "try_acquire");
  EXPECT_EQ(r.violations[3].op, "tma_load");
}

TEST(Verify, R_D5_ConsumerOpsOnADestinationOnlyResourceAreRejected) {
  ts::ManagerModel m = CopyManager::model();
  m.tasks[1].src = {};
  m.tasks[1].dst = {kSmem, kOutput};
  ts::Report r = ts::verify_structure(m);
  ASSERT_EQ(rule_ids(r), (Ids{"R-D5", "R-D5", "R-D5", "R-D5", "R-D6"}));
  EXPECT_EQ(r.violations[0].op, "try_wait");
  EXPECT_EQ(r.violations[2].op, "read_smem");
  EXPECT_EQ(r.violations[0].message,
            "consumer-side op on a resource the task lists only in dst; list it in src");
}

TEST(Verify, R_D5_OpsOnAnUndeclaredResourceAreRejected) {
  ts::ManagerModel m = CopyManager::model();
  m.tasks[0].src = {};  // load reads input_gmem without declaring it
  ts::Report r = ts::verify_structure(m);
  // And input_gmem, now used by no task, leaves the graph edge smem <- input_gmem unrealised.
  ASSERT_EQ(rule_ids(r), (Ids{"R-D5", "R-D6", "R-D6"}));
  ASSERT_TRUE(r.has(Rule::D5_StageRoles));
  ts::Violation const* v = first_of(r, Rule::D5_StageRoles);
  EXPECT_EQ(v->resource, "input_gmem");
  EXPECT_EQ(v->op, "compute_coords");
  EXPECT_EQ(v->message,
            "the schedule uses a resource the task does not declare; add it to the task's src");
}

TEST(Verify, R_D5_OpsOnTheirOwnSideAreAccepted) {
  EXPECT_TRUE(ts::verify_structure(CopyManager::model()).ok());
}

// One task on both sides of a ring: it may produce and consume it.
using PingPongRing = Ring<ts::async_async(2, ts::threads(32), ts::threads(32))>;
struct PingPong {
  static constexpr ts::TaskSpec spec{.name = "pingpong", .warp_idx = 0};
  using src = ts::list<PingPongRing>;
  using dst = ts::list<PingPongRing>;
  static constexpr void schedule(auto& ctx, auto& in, auto& out) {
    ctx.domain_loop(ts::c<4>, [&](auto&) {
      in.wait();
      auto v = ts::work<&PingPongRing::take>(in);
      in.release();
      out.acquire();
      ts::work<&PingPongRing::put>(out, v);
      out.commit();
    });
  }
};

TEST(Verify, R_D5_BothSidesOfAResourceInSrcAndDstAreAccepted) {
  using M =
      ts::TaskManager<ts::Tasks<PingPong>, ts::Graph<ts::DependsOn<PingPongRing, PingPongRing>>>;
  ts::ManagerModel m = M::model();
  ASSERT_EQ(m.resources.size(), 1u);
  EXPECT_EQ(m.tasks[0].src, (std::vector<int>{0}));
  EXPECT_EQ(m.tasks[0].dst, (std::vector<int>{0}));
  EXPECT_TRUE(ts::verify_structure(m).ok());
}

// ---- R-D9
// ------------------------------------------------------------------------------------------

// The store task with an extra resource it never touches, on its src or dst side.
template <class Extra>
struct StoreWithUnusedSource : Store<T> {
  using src = ts::list<T, Extra>;
  static constexpr void schedule(auto& ctx, auto& smem, auto&, auto& out) {
    Store<T>::schedule(ctx, smem, out);
  }
};
template <class Extra>
struct StoreWithUnusedDestination : Store<T> {
  using dst = ts::list<OutputGmem, Extra>;
  static constexpr void schedule(auto& ctx, auto& smem, auto& out, auto&) {
    Store<T>::schedule(ctx, smem, out);
  }
};

TEST(Verify, R_D9_UnusedSourceIsRejected) {
  using M = CopyOf<T, Load<T>, StoreWithUnusedSource<InputGmem>>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D9"});
  ts::Violation const* v = first_of(r, Rule::D9_ScheduleCoverage);
  EXPECT_EQ(v->task, "store");
  EXPECT_EQ(v->resource, "input_gmem");
  EXPECT_EQ(v->message,
            "is declared in src but the schedule never uses it; remove it or call its work");
}

TEST(Verify, R_D9_UnusedDestinationIsRejected) {
  using Graph = ts::Graph<ts::DependsOn<T, InputGmem>, ts::DependsOn<OutputGmem, T>,
                          ts::DependsOn<Ring<>, T>>;
  using M = ts::TaskManager<ts::Tasks<Load<T>, StoreWithUnusedDestination<Ring<>>>, Graph>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D9"});
  EXPECT_EQ(first_of(r, Rule::D9_ScheduleCoverage)->resource, "ring");
}

TEST(Verify, R_D9_EveryDeclaredResourceUsedIsAccepted) {
  using M = CopyOf<T, Load<T>, Store<T>>;
  EXPECT_TRUE(verify_manager<M>().ok());
}

// ---- R-D20
// -----------------------------------------------------------------------------------------

TEST(Verify, R_D20_WorkWithoutALabelIsRejected) {
  ts::ManagerModel m = CopyManager::model();
  ts::Node& tma_load = m.tasks[0].schedule.nodes[6];
  ASSERT_EQ(tma_load.label, "tma_load");
  tma_load.label = {};
  ts::Report r = ts::verify_structure(m);
  ASSERT_EQ(rule_ids(r), Ids{"R-D20"});
  ts::Violation const* v = first_of(r, Rule::D20_WorkLabels);
  EXPECT_EQ(v->task, "load");
  EXPECT_EQ(v->resource, "smem");
  EXPECT_EQ(v->op, "work");
}

TEST(Verify, R_D20_LabelledWorksAreAccepted) {
  ts::ManagerModel m = CopyManager::model();
  for (auto const& t : m.tasks)
    for (auto const& n : t.schedule.nodes) {
      if (n.kind == NodeKind::Op && n.op == OpKind::Work) {
        EXPECT_FALSE(n.label.empty());
      }
    }
  EXPECT_FALSE(ts::verify_structure(m).has(Rule::D20_WorkLabels));
}

}  // namespace
