// tests/cpu/ts/recorder_test.cpp — schedule capture (warploom/ts/recorder.hpp, domain_loop.hpp,
// work.hpp): the tree of nodes a schedule records, loop bounds, iteration blocks, task-local
// variables and data-flow edges.

#include <gtest/gtest.h>

#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "fixtures.hpp"
#include "warploom/ts/describe.hpp"

namespace {

using namespace fixtures;
using ts::NodeKind;
using ts::OpKind;
using ts::Role;

// The schedule of the only task of a one-task manager; resource indices follow the task's
// src list, then its dst list.
template <class Task>
ts::Schedule capture() {
  return ts::describe<ts::ManagerTraits<ts::Tasks<Task>, ts::Graph<>>>().tasks.at(0).schedule;
}

std::vector<NodeKind> kinds(ts::Schedule const& s) {
  std::vector<NodeKind> out;
  for (auto const& n : s.nodes) out.push_back(n.kind);
  return out;
}

std::vector<int> parents(ts::Schedule const& s) {
  std::vector<int> out;
  for (auto const& n : s.nodes) out.push_back(n.parent);
  return out;
}

// The op kinds of the Op nodes, in node order.
std::vector<OpKind> ops(ts::Schedule const& s) {
  std::vector<OpKind> out;
  for (auto const& n : s.nodes)
    if (n.kind == NodeKind::Op) out.push_back(n.op);
  return out;
}

bool same_bound(ts::Bound b, bool is_static, long long value) {
  return b.is_static == is_static && b.value == value;
}

// (from, to, arg) of each data-flow edge, in recording order.
using Edge = std::tuple<int, int, int>;
std::vector<Edge> edges(ts::Schedule const& s) {
  std::vector<Edge> out;
  for (auto const& e : s.edges) out.emplace_back(e.from, e.to, e.arg);
  return out;
}

// ---- The tutorial tasks ------------------------------------------------------------------------

TEST(Recorder, LoadTaskRecordsAuxWorkThenLoopOfConsumeAcquireLoadCommit) {
  ts::ManagerModel m = CopyManager::model();
  ts::Schedule const& s = m.tasks.at(0).schedule;
  ASSERT_EQ(m.tasks[0].spec.name, "load");
  EXPECT_EQ(kinds(s),
            (std::vector<NodeKind>{NodeKind::Root, NodeKind::Op, NodeKind::Loop, NodeKind::Op,
                                   NodeKind::Op, NodeKind::Op, NodeKind::Op, NodeKind::Op}));
  EXPECT_EQ(parents(s), (std::vector<int>{-1, 0, 0, 2, 2, 2, 2, 2}));
  EXPECT_EQ(s.nodes[0].children, (std::vector<int>{1, 2}));
  EXPECT_EQ(s.nodes[2].children, (std::vector<int>{3, 4, 5, 6, 7}));
  EXPECT_EQ(ops(s), (std::vector<OpKind>{OpKind::Work, OpKind::Work, OpKind::TryAcquire,
                                         OpKind::Acquire, OpKind::Work, OpKind::Commit}));
  // Resources: input_gmem 0, smem 1, output_gmem 2.
  EXPECT_EQ(s.nodes[1].label, "init_load_state");
  EXPECT_EQ(s.nodes[1].role, Role::ProducerAux);
  EXPECT_EQ(s.nodes[1].resource, 1);
  EXPECT_EQ(s.nodes[3].label, "compute_coords");
  EXPECT_EQ(s.nodes[3].role, Role::Consumer);
  EXPECT_EQ(s.nodes[3].resource, 0);
  EXPECT_EQ(s.nodes[4].resource, 1);
  EXPECT_EQ(s.nodes[4].role, Role::Producer);  // try_acquire: producer side
  EXPECT_TRUE(s.nodes[4].label.empty());
  EXPECT_EQ(s.nodes[6].label, "tma_load");
  EXPECT_EQ(s.nodes[6].role, Role::Producer);
  EXPECT_EQ(s.nodes[6].resource, 1);
  // The row computed by compute_coords (node 3) is tma_load's (node 6) argument 0.
  EXPECT_EQ(edges(s), (std::vector<Edge>{{3, 6, 0}}));
  EXPECT_FALSE(s.empty());
}

TEST(Recorder, StoreTaskRecordsWaitReadReleaseStoreWithTheValueRouted) {
  ts::ManagerModel m = CopyManager::model();
  ts::Schedule const& s = m.tasks.at(1).schedule;
  EXPECT_EQ(kinds(s),
            (std::vector<NodeKind>{NodeKind::Root, NodeKind::Loop, NodeKind::Op, NodeKind::Op,
                                   NodeKind::Op, NodeKind::Op, NodeKind::Op}));
  EXPECT_EQ(ops(s), (std::vector<OpKind>{OpKind::TryWait, OpKind::Wait, OpKind::Work,
                                         OpKind::Release, OpKind::Work}));
  EXPECT_EQ(s.nodes[2].role, Role::Consumer);  // try_wait: consumer side
  EXPECT_EQ(s.nodes[4].label, "read_smem");
  EXPECT_EQ(s.nodes[4].resource, 1);
  EXPECT_EQ(s.nodes[6].label, "store");
  EXPECT_EQ(s.nodes[6].resource, 2);
  EXPECT_EQ(s.nodes[6].role, Role::Producer);
  EXPECT_EQ(edges(s), (std::vector<Edge>{{4, 6, 0}}));
}

TEST(Recorder, DerivedPaddingHasAnEmptySchedule) {
  ts::ManagerModel m = CopyManager::model();
  ts::Schedule const& s = m.tasks.at(2).schedule;
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.nodes.size(), 1u);
  EXPECT_EQ(s.nodes[0].kind, NodeKind::Root);
  EXPECT_TRUE(s.edges.empty());
}

// ---- Loops
// ---------------------------------------------------------------------------------------

struct Counter {
  static constexpr ts::ResourceSpec spec{.name = "counter"};
  int n = 5;
  int next(ts::Consume const&) const { return 0; }
  void put(ts::Produce const&, int a, short b) { (void)a, (void)b; }
  void put1(ts::Produce const&, int a) { (void)a; }
  void touch(ts::ProduceAux const&) {}
  void accumulate(ts::Produce const&, int& sum) { (void)sum; }
};

struct NestedLoopsTask {
  static constexpr ts::TaskSpec spec{.name = "nested"};
  using src = ts::list<>;
  using dst = ts::list<Counter>;
  static constexpr void schedule(auto& ctx, auto& c) {
    ctx.domain_loop(ts::c<2>, [&](auto&) {    // node 1
      ts::work<&Counter::touch>(c);           // node 2
      ctx.domain_loop(ts::c<3>, [&](auto&) {  // node 3
        ts::work<&Counter::touch>(c);         // node 4
      });
      ts::work<&Counter::touch>(c);  // node 5
    });
    ctx.domain_loop(ts::c<4>, [&](auto&) {  // node 6: a sibling of node 1
      ts::work<&Counter::touch>(c);         // node 7
    });
  }
};

TEST(Recorder, NestedAndSiblingLoopsFormATree) {
  ts::Schedule s = capture<NestedLoopsTask>();
  EXPECT_EQ(kinds(s),
            (std::vector<NodeKind>{NodeKind::Root, NodeKind::Loop, NodeKind::Op, NodeKind::Loop,
                                   NodeKind::Op, NodeKind::Op, NodeKind::Loop, NodeKind::Op}));
  EXPECT_EQ(parents(s), (std::vector<int>{-1, 0, 1, 1, 3, 1, 0, 6}));
  EXPECT_EQ(s.nodes[0].children, (std::vector<int>{1, 6}));
  EXPECT_EQ(s.nodes[1].children, (std::vector<int>{2, 3, 5}));
  EXPECT_EQ(s.nodes[3].children, (std::vector<int>{4}));
  EXPECT_TRUE(same_bound(s.nodes[3].end, true, 3));
  EXPECT_TRUE(same_bound(s.nodes[6].end, true, 4));
}

struct BoundsTask {
  static constexpr ts::TaskSpec spec{.name = "bounds"};
  using src = ts::list<Counter>;
  using dst = ts::list<>;
  static constexpr void schedule(auto& ctx, auto& c) {
    auto body = [&](auto&) { ts::work<&Counter::next>(c); };
    ctx.domain_loop(ts::c<8>, body);                                          // node 1
    ctx.domain_loop(2, 10, body);                                             // node 3
    ctx.domain_loop(ts::c<8>, ts::c<0>, ts::c<-2>, body);                     // node 5
    ctx.domain_loop(std::integral_constant<int, 1>{}, c->n, ts::c<4>, body);  // node 7
    ctx.domain_loop(0L, 6u, 3, body);                                         // node 9
    ctx.domain_loop(ctx.grid_dim(), body);                                    // node 11
    ctx.domain_loop(0, ts::multiple_of<4>(2 * c->n), ts::c<2>, body);         // node 13
  }
};

TEST(Recorder, CompileTimeBoundsAreStaticAndRunTimeBoundsKeepTheirCaptureValue) {
  ts::Schedule s = capture<BoundsTask>();
  ASSERT_EQ(s.nodes.size(), 15u);
  ts::Node const& end_only = s.nodes[1];  // (end): start 0 and step 1 are compile-time
  EXPECT_EQ(end_only.kind, NodeKind::Loop);
  EXPECT_TRUE(same_bound(end_only.start, true, 0));
  EXPECT_TRUE(same_bound(end_only.end, true, 8));
  EXPECT_TRUE(same_bound(end_only.step, true, 1));

  ts::Node const& start_end = s.nodes[3];  // (start, end) as ints: run-time; step 1 static
  EXPECT_TRUE(same_bound(start_end.start, false, 2));
  EXPECT_TRUE(same_bound(start_end.end, false, 10));
  EXPECT_TRUE(same_bound(start_end.step, true, 1));

  ts::Node const& down = s.nodes[5];  // all static, negative step
  EXPECT_TRUE(same_bound(down.start, true, 8));
  EXPECT_TRUE(same_bound(down.end, true, 0));
  EXPECT_TRUE(same_bound(down.step, true, -2));

  ts::Node const& mixed = s.nodes[7];  // std::integral_constant, a resource field, ts::c
  EXPECT_TRUE(same_bound(mixed.start, true, 1));
  EXPECT_TRUE(same_bound(mixed.end, false, 5));  // Counter::n of the default instance
  EXPECT_TRUE(same_bound(mixed.step, true, 4));

  ts::Node const& other_ints = s.nodes[9];  // long, unsigned, int: all run-time
  EXPECT_TRUE(same_bound(other_ints.start, false, 0));
  EXPECT_TRUE(same_bound(other_ints.end, false, 6));
  EXPECT_TRUE(same_bound(other_ints.step, false, 3));

  ts::Node const& from_ctx = s.nodes[11];  // CTA coordinates are placeholders: run-time
  EXPECT_TRUE(same_bound(from_ctx.end, false, 1));

  ts::Node const& promised = s.nodes[13];  // ts::multiple_of: run-time, with its promise
  EXPECT_TRUE(same_bound(promised.end, false, 10));
  EXPECT_EQ(promised.end.multiple, 4);
  EXPECT_EQ(other_ints.end.multiple, 1);
}

// A consumer work's integer result bounds a loop (a dynamic domain, e.g. a grouped GEMM's K tiles
// per problem): a run-time bound that names the step it came from; a resource field names none.
struct DataBoundTask {
  static constexpr ts::TaskSpec spec{.name = "data_bound"};
  using src = ts::list<Counter>;
  using dst = ts::list<>;
  static constexpr void schedule(auto& ctx, auto& c) {
    auto n = ts::work<&Counter::next>(c);                                // node 1
    ctx.domain_loop(n, [&](auto&) { ts::work<&Counter::next>(c); });     // nodes 2, 3
    ctx.domain_loop(c->n, [&](auto&) { ts::work<&Counter::next>(c); });  // nodes 4, 5
  }
};

struct NotANumber {};
static_assert(ts::LoopBound<ts::Token<int>> && ts::LoopBound<ts::Token<long>>);
static_assert(!ts::LoopBound<ts::Token<NotANumber>>, "only an integer result bounds a loop");

TEST(Recorder, AWorksIntegerResultBoundsALoopAndNamesItsStep) {
  ts::Schedule s = capture<DataBoundTask>();
  ASSERT_EQ(s.nodes.size(), 6u);
  ts::Node const& data = s.nodes[2];
  EXPECT_EQ(data.kind, NodeKind::Loop);
  EXPECT_FALSE(data.end.is_static);
  EXPECT_EQ(data.end.source, 1);
  EXPECT_TRUE(same_bound(data.start, true, 0));
  ts::Node const& field = s.nodes[4];
  EXPECT_TRUE(same_bound(field.end, false, 5));
  EXPECT_EQ(field.end.source, -1);
}

struct UnrollTask {
  static constexpr ts::TaskSpec spec{.name = "unroll"};
  using src = ts::list<Counter>;
  using dst = ts::list<>;
  static constexpr void schedule(auto& ctx, auto& c) {
    auto body = [&](auto&) { ts::work<&Counter::next>(c); };
    ctx.domain_loop(ts::c<8>, ts::unroll<4>, body);                      // node 1
    ctx.domain_loop(0, 8, ts::unroll<2>, body);                          // node 3
    ctx.domain_loop(ts::c<0>, ts::c<8>, ts::c<2>, ts::unroll<1>, body);  // node 5
    ctx.domain_loop(ts::c<8>, body);                                     // node 7
  }
};

TEST(Recorder, UnrollFactorIsRecordedAndZeroMeansCompilerChoice) {
  ts::Schedule s = capture<UnrollTask>();
  ASSERT_EQ(s.nodes.size(), 9u);
  EXPECT_EQ(s.nodes[1].unroll, 4);
  EXPECT_EQ(s.nodes[3].unroll, 2);
  EXPECT_TRUE(same_bound(s.nodes[3].start, false, 0));
  EXPECT_TRUE(same_bound(s.nodes[3].end, false, 8));
  EXPECT_EQ(s.nodes[5].unroll, 1);
  EXPECT_TRUE(same_bound(s.nodes[5].step, true, 2));
  EXPECT_EQ(s.nodes[7].unroll, 0);
}

// ---- Iteration blocks
// -----------------------------------------------------------------------------

struct IterationBlocksTask {
  static constexpr ts::TaskSpec spec{.name = "blocks"};
  using src = ts::list<>;
  using dst = ts::list<Tiles<>>;
  static constexpr void schedule(auto& ctx, auto& smem) {
    ctx.domain_loop(ts::c<4>, [&](auto& outer) {    // node 1
      outer.first_iter([&] { smem.acquire(); });    // node 2, 3
      ctx.domain_loop(ts::c<2>, [&](auto& inner) {  // node 4
        outer.last_iter([&] {                       // node 5: guarded on the outer loop
          ts::work<&Tiles<>::tma_load>(smem, 1);    // node 6
        });
        inner.first_iter([&] {});  // node 7: empty block
      });
      outer.last_iter([&] { smem.commit(); });  // node 8, 9
    });
  }
};

TEST(Recorder, FirstAndLastIterationBlocksNameTheirLoopAndNest) {
  ts::Schedule s = capture<IterationBlocksTask>();
  EXPECT_EQ(kinds(s),
            (std::vector<NodeKind>{NodeKind::Root, NodeKind::Loop, NodeKind::FirstIter,
                                   NodeKind::Op, NodeKind::Loop, NodeKind::LastIter, NodeKind::Op,
                                   NodeKind::FirstIter, NodeKind::LastIter, NodeKind::Op}));
  EXPECT_EQ(parents(s), (std::vector<int>{-1, 0, 1, 2, 1, 4, 5, 4, 1, 8}));
  EXPECT_EQ(s.nodes[2].loop, 1);
  EXPECT_EQ(s.nodes[3].op, OpKind::Acquire);
  EXPECT_EQ(s.nodes[5].loop, 1);  // the outer loop, though opened inside the inner one
  EXPECT_EQ(s.nodes[6].label, "tma_load");
  EXPECT_EQ(s.nodes[7].loop, 4);
  EXPECT_TRUE(s.nodes[7].children.empty());
  EXPECT_EQ(s.nodes[8].loop, 1);
  EXPECT_EQ(s.nodes[9].op, OpKind::Commit);
  EXPECT_EQ(s.nodes[1].children, (std::vector<int>{2, 4, 8}));
  // A constant argument records no edge.
  EXPECT_TRUE(s.edges.empty());
}

// ---- Data flow
// ------------------------------------------------------------------------------------

struct DataFlowTask {
  static constexpr ts::TaskSpec spec{.name = "flow"};
  using src = ts::list<InputGmem>;
  using dst = ts::list<Counter>;
  static constexpr void schedule(auto&, auto& in, auto& c) {
    auto a = ts::work<&InputGmem::compute_coords>(in);  // node 1
    auto b = ts::work<&InputGmem::compute_coords>(in);  // node 2
    ts::work<&Counter::put>(c, a, short{3});            // node 3: a -> arg 0
    ts::work<&Counter::put>(c, 7, b);                   // node 4: b -> arg 1 (int into short)
    ts::work<&Counter::put>(c, b, a);                   // node 5: b -> arg 0, a -> arg 1
  }
};

TEST(Recorder, TokensBecomeEdgesToTheArgumentTheyFeed) {
  ts::Schedule s = capture<DataFlowTask>();
  EXPECT_EQ(edges(s), (std::vector<Edge>{{1, 3, 0}, {2, 4, 1}, {2, 5, 0}, {1, 5, 1}}));
  // Plain values are counted, not followed (a repeated call is judged only without them).
  EXPECT_EQ(s.nodes[3].plain_args, 1);
  EXPECT_EQ(s.nodes[4].plain_args, 1);
  EXPECT_EQ(s.nodes[5].plain_args, 0);
}

struct LocalsTask {
  static constexpr ts::TaskSpec spec{.name = "locals"};
  using src = ts::list<InputGmem>;
  using dst = ts::list<Counter>;
  static constexpr void schedule(auto& ctx, auto& in, auto& c) {
    auto row = ctx.local(0);                           // node 1
    ts::work<&Counter::put1>(c, row);                  // node 2: reads the default
    ctx.domain_loop(ts::c<3>, [&](auto&) {             // node 3
      row = ts::work<&InputGmem::compute_coords>(in);  // node 4 -> local 1
      ts::work<&Counter::put1>(c, row);                // node 5: reads node 4's value
    });
    ts::work<&Counter::put1>(c, row);  // node 6: the last writer is node 4
  }
};

TEST(Recorder, LocalsRecordTheirDeclarationAndRouteTheLastWrittenValue) {
  ts::Schedule s = capture<LocalsTask>();
  EXPECT_EQ(kinds(s),
            (std::vector<NodeKind>{NodeKind::Root, NodeKind::Local, NodeKind::Op, NodeKind::Loop,
                                   NodeKind::Op, NodeKind::Op, NodeKind::Op}));
  EXPECT_EQ(s.nodes[1].label, "local");
  EXPECT_EQ(s.nodes[1].parent, 0);
  EXPECT_EQ(s.nodes[4].parent, 3);
  EXPECT_EQ(edges(s), (std::vector<Edge>{{1, 2, 0},     // default value -> put1
                                         {4, 1, -1},    // compute_coords writes the local
                                         {4, 5, 0},     // ... and put1 in the loop reads it
                                         {4, 6, 0}}));  // ... as does put1 after the loop
}

struct InOutLocalTask {
  static constexpr ts::TaskSpec spec{.name = "in_out"};
  using src = ts::list<InputGmem>;
  using dst = ts::list<Counter>;
  static constexpr void schedule(auto& ctx, auto&, auto& c) {
    auto sum = ctx.local(0);                   // node 1
    ctx.domain_loop(ts::c<3>, [&](auto&) {     // node 2
      ts::work<&Counter::accumulate>(c, sum);  // node 3: reads and updates the local
    });
    ts::work<&Counter::put1>(c, sum);  // node 4: reads what node 3 left
  }
};

TEST(Recorder, ANonConstReferenceParameterUpdatesTheLocalInPlace) {
  ts::Schedule s = capture<InOutLocalTask>();
  EXPECT_EQ(edges(s), (std::vector<Edge>{{1, 3, 0},     // accumulate reads the default
                                         {3, 1, -1},    // ... and writes the local
                                         {3, 4, 0}}));  // put1 reads accumulate's value
}

// ---- Labels, roles and the recorder's placeholders
// --------------------------------------------------

TEST(Recorder, WorkTraitsReadRoleArityAndLabelFromTheMemberPointer) {
  using Load = ts::work_traits<&SmemTiles::tma_load>;
  static_assert(Load::is_work);
  static_assert(Load::role == Role::Producer);
  static_assert(Load::arity == 1);
  static_assert(std::is_same_v<Load::resource, SmemTiles>);
  static_assert(std::is_same_v<ts::work_arg_t<&SmemTiles::tma_load, 0>, int>);
  using Read = ts::work_traits<&SmemTiles::read_smem>;  // a const member
  static_assert(Read::is_work && Read::role == Role::Consumer && Read::arity == 0);
  static_assert(std::is_same_v<ts::work_result_t<&SmemTiles::read_smem>, short>);
  static_assert(ts::work_traits<&SmemTiles::init_load_state>::role == Role::ProducerAux);
  EXPECT_EQ(Load::label, "tma_load");
  EXPECT_EQ(Read::label, "read_smem");
  EXPECT_EQ(ts::work_traits<&InputGmem::compute_coords>::label, "compute_coords");
}

struct NotAWork {
  int plain(int x) { return x; }
  int data = 0;
};

TEST(Recorder, MembersWithoutAStageParameterAreNotWorks) {
  static_assert(ts::work_traits<&NotAWork::plain>::is_member_fn);
  static_assert(!ts::work_traits<&NotAWork::plain>::is_work);
  static_assert(!ts::work_traits<&NotAWork::data>::is_member_fn);
  static_assert(!ts::work_traits<&NotAWork::data>::is_work);
  SUCCEED();
}

TEST(Recorder, CapturesInConstantExpressions) {
  constexpr auto summary = [] {
    ts::ManagerModel m = ts::describe<CopyManager::traits>();
    auto const& s = m.tasks[0].schedule;
    return std::pair<int, int>(static_cast<int>(s.nodes.size()), s.edges[0].to);
  }();
  static_assert(summary.first == 8 && summary.second == 6);
  EXPECT_EQ(summary.first, 8);
}

// A schedule is one source for host capture and device execution: everything a schedule may ask
// its context on the device, the recorder answers too.
struct TaskThreadTask {
  static constexpr ts::TaskSpec spec{.name = "lanes"};
  using src = ts::list<>;
  using dst = ts::list<Counter>;
  static constexpr void schedule(auto& ctx, auto& c) {
    ts::work<&Counter::put1>(c, ctx.task_thread_idx());
  }
};

TEST(Recorder, CapturesEverythingTheDeviceContextOffers) {
  ts::Schedule s = capture<TaskThreadTask>();
  EXPECT_EQ(ops(s), (std::vector<OpKind>{OpKind::Work}));
}

}  // namespace
