// tests/cpu/ts/verify/graph_test.cpp — the resource dependency graph
// (warploom/ts/verify/graph.hpp): R-D6 every edge realised by a task (plain, ping-pong self edge,
// relaxed edge on a Barrier resource), R-D8 every task resource in the graph.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../fixtures.hpp"

namespace {

using namespace fixtures;
using ts::Rule;
using Ids = std::vector<std::string>;
using T = Tiles<>;

// ---- R-D6: plain edges
// --------------------------------------------------------------------------------

TEST(Verify, R_D6_EdgeNoTaskRealisesIsRejected) {
  // output <- input: no task consumes input_gmem and produces output_gmem.
  using Graph = ts::Graph<ts::DependsOn<T, InputGmem>, ts::DependsOn<OutputGmem, T, InputGmem>>;
  using M = ts::TaskManager<ts::Tasks<Load<T>, Store<T>>, Graph>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D6"});
  ts::Violation const* v = first_of(r, Rule::D6_GraphRealizable);
  EXPECT_EQ(v->task, "");
  EXPECT_EQ(v->resource, "output_gmem");
  EXPECT_EQ(v->message,
            "depends on `input_gmem` but no task consumes `input_gmem` (src) and produces "
            "`output_gmem` (dst); fix the edge or the tasks' src/dst");
}

TEST(Verify, R_D6_EdgesRealisedByTasksAreAccepted) {
  using M = ts::TaskManager<ts::Tasks<Load<T>, Store<T>>, CopyGraphOf<T>>;
  EXPECT_TRUE(verify_manager<M>().ok());
}

TEST(Verify, R_D6_GraphResourceNoTaskUsesIsRejected) {
  // ring is only in the graph: unused, and its edge is realised by nothing.
  using Graph = ts::Graph<ts::DependsOn<T, InputGmem>, ts::DependsOn<OutputGmem, T, Ring<>>>;
  using M = ts::TaskManager<ts::Tasks<Load<T>, Store<T>>, Graph>;
  ts::ManagerModel m = M::model();
  ASSERT_EQ(m.resources.back().name, "ring");  // graph-only resources come last
  ts::Report r = ts::verify_structure(m);
  ASSERT_EQ(rule_ids(r), (Ids{"R-D6", "R-D6"}));
  EXPECT_EQ(r.violations[0].resource, "ring");
  EXPECT_EQ(r.violations[0].message,
            "appears in the dependency graph but no task uses it; remove the edge or add the "
            "resource to a task");
  EXPECT_EQ(r.violations[1].resource, "output_gmem");
}

// ---- R-D6: ping-pong self edges
// -------------------------------------------------------------------------

using R = Ring<>;
template <class... Tasks>
using SelfEdge =
    ts::TaskManager<ts::Tasks<Tasks...>,
                    ts::Graph<ts::DependsOn<R, InputGmem, R>, ts::DependsOn<OutputGmem, R>>>;

TEST(Verify, R_D6_SelfEdgeWithProducerAndConsumerIsAccepted) {
  using M = SelfEdge<RingWriter<R>, RingReader<R>>;
  EXPECT_TRUE(verify_manager<M>().ok());
}

TEST(Verify, R_D6_SelfEdgeWithoutAConsumerIsRejected) {
  // Only the writer (on warp 0): nothing consumes the ring.
  using Graph = ts::Graph<ts::DependsOn<R, InputGmem, R>>;
  using M = ts::TaskManager<ts::Tasks<RingWriter<R, 0>>, Graph>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D6"});
  EXPECT_EQ(first_of(r, Rule::D6_GraphRealizable)->resource, "ring");
}

TEST(Verify, R_D6_SelfEdgeWithoutAProducerIsRejected) {
  using Graph = ts::Graph<ts::DependsOn<OutputGmem, R>, ts::DependsOn<R, R>>;
  using M = ts::TaskManager<ts::Tasks<RingReader<R>>, Graph>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D6"});
  EXPECT_EQ(first_of(r, Rule::D6_GraphRealizable)->resource, "ring");
}

// ---- R-D6: relaxed edges on Barrier resources
// ---------------------------------------------------------

// A signal the store task raises after storing; `kKind` decides whether edges on it are relaxed.
template <ts::ResourceKind kKind>
struct Done {
  static constexpr ts::ResourceSpec spec{.name = "done", .kind = kKind};
  void signal(ts::Produce const&) {}
};

template <class D>
struct SignallingStore : Store<T> {
  using dst = ts::list<OutputGmem, D>;
  static constexpr void schedule(auto& ctx, auto& smem, auto& out, auto& done) {
    Store<T>::schedule(ctx, smem, out);
    ts::work<&D::signal>(done);
  }
};

// done <- output: the store task produces both, and consumes neither.
template <class D>
using Signalled =
    ts::TaskManager<ts::Tasks<Load<T>, SignallingStore<D>>,
                    ts::Graph<ts::DependsOn<T, InputGmem>, ts::DependsOn<OutputGmem, T>,
                              ts::DependsOn<D, OutputGmem>>>;

TEST(Verify, R_D6_BarrierEdgeBackedByOneTaskOnBothEndsIsAccepted) {
  EXPECT_TRUE(verify_manager<Signalled<Done<ts::ResourceKind::Barrier>>>().ok());
}

TEST(Verify, R_D6_SameEdgeOnAMemoryResourceIsRejected) {
  ts::Report r = verify_manager<Signalled<Done<ts::ResourceKind::Memory>>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D6"});
  EXPECT_EQ(first_of(r, Rule::D6_GraphRealizable)->resource, "done");
}

// ---- R-D8
// ---------------------------------------------------------------------------------------------

TEST(Verify, R_D8_TaskResourceMissingFromTheGraphIsRejected) {
  using M = ts::TaskManager<ts::Tasks<Load<T>, Store<T>>, ts::Graph<ts::DependsOn<T, InputGmem>>>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D8"});
  ts::Violation const* v = first_of(r, Rule::D8_GraphCoverage);
  EXPECT_EQ(v->task, "store");
  EXPECT_EQ(v->resource, "output_gmem");
  EXPECT_EQ(ts::format(*v),
            "R-D8 task `store` resource `output_gmem`: is used by the task but missing from the "
            "dependency graph; add an edge (or ts::DependsOn<output_gmem> with no upstreams)");
}

TEST(Verify, R_D8_EveryTaskResourceInTheGraphIsAccepted) {
  EXPECT_TRUE(verify_manager<CopyManager>().ok());
}

// ts::DependsOn<R> with no upstreams puts R in the graph (the seed's `{r: []}`), as the R-D8
// message suggests.
TEST(Verify, R_D8_DependsOnWithoutUpstreamsCoversTheResource) {
  using Graph = ts::Graph<ts::DependsOn<T, InputGmem>, ts::DependsOn<OutputGmem>>;
  using M = ts::TaskManager<ts::Tasks<Load<T>, Store<T>>, Graph>;
  static_assert(ts::contains_v<OutputGmem, Graph::resources>);
  EXPECT_EQ(rule_ids(verify_manager<M>()), Ids{});
}

}  // namespace
