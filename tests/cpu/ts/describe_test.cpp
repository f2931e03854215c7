// tests/cpu/ts/describe_test.cpp — the ts::ManagerModel a TaskManager describes
// (warploom/ts/describe.hpp): resource table, tasks, graph edges, shared-memory requests and
// alias groups, options.

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "fixtures.hpp"
#include "warploom/ts/describe.hpp"

namespace {

using namespace fixtures;

std::vector<std::string_view> resource_names(ts::ManagerModel const& m) {
  std::vector<std::string_view> out;
  for (auto const& r : m.resources) out.push_back(r.name);
  return out;
}

using Edge = std::pair<int, int>;  // (downstream, upstream)
std::vector<Edge> graph_edges(ts::ManagerModel const& m) {
  std::vector<Edge> out;
  for (auto const& e : m.graph) out.emplace_back(e.downstream, e.upstream);
  return out;
}

// (name, resource, bytes, alignment, alias_group, alias_phase) of each request.
using Request = std::tuple<std::string_view, int, long long, int, int, int>;
std::vector<Request> requests(ts::ManagerModel const& m) {
  std::vector<Request> out;
  for (auto const& r : m.smem)
    out.emplace_back(r.name, r.resource, r.bytes, r.alignment, r.alias_group, r.alias_phase);
  return out;
}

TEST(Describe, CopyManagerModelHasResourcesTasksGraphAndSmem) {
  ts::ManagerModel m = CopyManager::model("copy");
  EXPECT_EQ(m.name, "copy");
  EXPECT_EQ(resource_names(m),
            (std::vector<std::string_view>{"input_gmem", "smem", "output_gmem"}));
  EXPECT_EQ(m.resources[0].kind, ts::ResourceKind::Memory);
  EXPECT_FALSE(m.resources[0].pipeline.enabled());
  ts::PipelineConfig const& p = m.resources[1].pipeline;
  EXPECT_EQ(p.kind, ts::PipelineKind::TmaAsync);
  EXPECT_EQ(p.num_stages, 2);
  EXPECT_EQ(p.num_bytes, 256);
  EXPECT_EQ(p.producer.agent, ts::Agent::Thread);
  EXPECT_EQ(p.producer.size, 1);
  EXPECT_EQ(p.consumer.size, 128);

  ASSERT_EQ(m.tasks.size(), 3u);
  EXPECT_EQ(m.tasks[0].spec.name, "load");
  EXPECT_EQ(m.tasks[0].spec.warp_idx, 4);
  EXPECT_EQ(m.tasks[0].spec.num_registers, 40);
  EXPECT_EQ(m.tasks[0].src, (std::vector<int>{0}));
  EXPECT_EQ(m.tasks[0].dst, (std::vector<int>{1}));
  EXPECT_EQ(m.tasks[1].spec.name, "store");
  EXPECT_EQ(m.tasks[1].src, (std::vector<int>{1}));
  EXPECT_EQ(m.tasks[1].dst, (std::vector<int>{2}));
  // Derived, after the tasks: the load warpgroup's idle warps at its budget.
  EXPECT_FALSE(m.tasks[0].padding);
  EXPECT_FALSE(m.tasks[1].padding);
  EXPECT_EQ(m.tasks[2].spec.name, "padding");
  EXPECT_TRUE(m.tasks[2].padding);
  EXPECT_EQ(m.tasks[2].spec.warp_idx, 5);
  EXPECT_EQ(m.tasks[2].spec.num_warps, 3);
  EXPECT_EQ(m.tasks[2].spec.num_registers, 40);
  EXPECT_EQ(m.tasks[2].barrier, 0);
  EXPECT_TRUE(m.tasks[2].src.empty());
  EXPECT_TRUE(m.tasks[2].dst.empty());

  EXPECT_EQ(graph_edges(m), (std::vector<Edge>{{1, 0}, {2, 1}}));
  EXPECT_EQ(requests(m), (std::vector<Request>{{"tiles", 1, 512, 128, -1, 0}}));
  EXPECT_EQ(m.block_warps, 0);
  EXPECT_EQ(m.smem_capacity, ts::kSmemCapacityBytes);
  EXPECT_EQ(m.launch_warps(), 8);
}

TEST(Describe, DefaultNameIsTaskManager) {
  EXPECT_EQ(CopyManager::model().name, "task_manager");
}

TEST(Describe, OptionsReachTheModel) {
  using M = ts::TaskManager<ts::Tasks<Load<>, Store<>>, CopyGraphOf<>,
                            ts::ManagerOptions{.block_warps = 12, .smem_capacity = 4096}>;
  ts::ManagerModel m = M::model();
  EXPECT_EQ(m.block_warps, 12);
  EXPECT_EQ(m.smem_capacity, 4096);
  EXPECT_EQ(m.launch_warps(), 12);
}

TEST(Describe, MultiUpstreamDependsOnGivesOneEdgePerUpstream) {
  using Graph = ts::Graph<ts::DependsOn<OutputGmem, Tiles<>, InputGmem>>;
  using M = ts::TaskManager<ts::Tasks<Load<>, Store<>>, Graph>;
  ts::ManagerModel m = M::model();
  // Resources: input_gmem 0, smem 1, output_gmem 2 (task src lists, then dst lists).
  EXPECT_EQ(graph_edges(m), (std::vector<Edge>{{2, 1}, {2, 0}}));
}

// Two buffers on one resource, one with its own alignment, and one on another resource.
struct Operands {
  static constexpr ts::ResourceSpec spec{.name = "operands"};
  ts::SmemBuffer<float, 10, 16> scales;  // (10)
  ts::SmemBuffer<short, 1024, 1024> a;   // (1024)
  using smem_buffers = ts::buffers<&Operands::scales, &Operands::a>;
  short read(ts::Consume const&) const { return 0; }
};
struct Staging {
  static constexpr ts::ResourceSpec spec{.name = "staging"};
  ts::SmemBuffer<float, 256> tile;  // (256)
  using smem_buffers = ts::buffers<&Staging::tile>;
  void write(ts::Produce const&, short v) { (void)v; }
};
struct Epilogue {
  static constexpr ts::TaskSpec spec{.name = "epilogue", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<Operands>;
  using dst = ts::list<Staging>;
  static constexpr void schedule(auto&, auto& ops, auto& staging) {
    ts::work<&Staging::write>(staging, ts::work<&Operands::read>(ops));
  }
};
using EpilogueGraph = ts::Graph<ts::DependsOn<Staging, Operands>>;

TEST(Describe, EveryListedBufferBecomesARequestWithItsBytesAndAlignment) {
  using M = ts::TaskManager<ts::Tasks<Epilogue>, EpilogueGraph>;
  EXPECT_EQ(requests(M::model()), (std::vector<Request>{{"scales", 0, 40, 16, -1, 0},
                                                        {"a", 0, 2048, 1024, -1, 0},
                                                        {"tile", 1, 1024, 128, -1, 0}}));
}

TEST(Describe, AliasGroupsNumberGroupsAndPhasesInDeclarationOrder) {
  using M = ts::TaskManager<
      ts::Tasks<Epilogue>, EpilogueGraph, ts::ManagerOptions{},
      ts::Aliases<ts::Alias<&Operands::a, &Staging::tile>, ts::Alias<&Operands::scales>>>;
  EXPECT_EQ(requests(M::model()), (std::vector<Request>{{"scales", 0, 40, 16, 1, 0},
                                                        {"a", 0, 2048, 1024, 0, 0},
                                                        {"tile", 1, 1024, 128, 0, 1}}));
}

TEST(Describe, DescribeResourcesCapturesNoSchedule) {
  ts::ManagerModel m;
  ts::describe_resources<CopyManager::traits>(m);
  EXPECT_EQ(resource_names(m),
            (std::vector<std::string_view>{"input_gmem", "smem", "output_gmem"}));
  EXPECT_EQ(requests(m), (std::vector<Request>{{"tiles", 1, 512, 128, -1, 0}}));
  EXPECT_TRUE(m.tasks.empty());
  EXPECT_TRUE(m.graph.empty());
}

TEST(Describe, TheDataFlowOfANestedWorkCallIsRecorded) {
  using M = ts::TaskManager<ts::Tasks<Epilogue>, EpilogueGraph>;
  ts::Schedule const s = M::model().tasks.at(0).schedule;
  // read (node 1) is evaluated as write's argument before write (node 2) is recorded.
  ASSERT_EQ(s.nodes.size(), 3u);
  EXPECT_EQ(s.nodes[1].label, "read");
  EXPECT_EQ(s.nodes[2].label, "write");
  ASSERT_EQ(s.edges.size(), 1u);
  EXPECT_EQ(s.edges[0].from, 1);
  EXPECT_EQ(s.edges[0].to, 2);
  EXPECT_EQ(s.edges[0].arg, 0);
}

}  // namespace

namespace sizes {

// Two sizes with one default, and a resource carrying a copy of one of them (ts::same_size).
struct Sizes {
  static constexpr ts::ResourceSpec spec{.name = "sizes"};
  int n = 0;
  int m = 0;
};
struct Copy {
  static constexpr ts::ResourceSpec spec{.name = "copy"};
  int n = 0;
  int other = 0;
  using same_sizes = ts::same_sizes<ts::same_size<&Copy::n, &Sizes::n>>;
};

}  // namespace sizes

// The probes give every integer field a value of its own (size_probe.hpp): fields with one default
// differ, a field and its declared copy agree, every probe agrees with itself.
TEST(Describe, ProbesNameRunTimeSizesByTheirField) {
  namespace d = ts::detail;
  for (int probe : {1, 2}) {
    sizes::Sizes const s = d::probe_instance<sizes::Sizes>(probe);
    sizes::Copy const c = d::probe_instance<sizes::Copy>(probe);
    EXPECT_NE(s.n, s.m);
    EXPECT_EQ(c.n, s.n);
    EXPECT_NE(c.other, s.n);
    EXPECT_NE(c.other, s.m);
    EXPECT_EQ(s.n, d::probe_instance<sizes::Sizes>(probe).n);
  }
  EXPECT_NE(d::probe_instance<sizes::Sizes>(1).n, d::probe_instance<sizes::Sizes>(2).n);
  EXPECT_EQ(d::probe_instance<sizes::Sizes>(0).n, 0);  // the default capture
  static_assert(d::probe_instance<sizes::Copy>(1).n == d::probe_instance<sizes::Sizes>(1).n);
}

// A captured loop over a field keeps its probe values; the loop bounds of the copy tutorial's load
// (input rows) and store (the smem's rows, declared the same size) agree in every probe.
TEST(Describe, LoopBoundsCarryTheirProbeValues) {
  ts::ManagerModel const m = ts::describe<CopyManager::traits>();
  std::vector<ts::Bound> ends;
  for (auto const& t : m.tasks)
    for (auto const& n : t.schedule.nodes)
      if (n.kind == ts::NodeKind::Loop) ends.push_back(n.end);
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_TRUE(ends[0].probed);
  EXPECT_NE(ends[0].in_probe(0), ends[0].value);
  EXPECT_EQ(ends[0].in_probe(0), ends[1].in_probe(0));
  EXPECT_EQ(ends[0].in_probe(1), ends[1].in_probe(1));
}

// A task whose warps take roles (TaskSpec::warp_roles) is modelled warp by warp: warp 4 writes
// the ring, warp 5 nothing. Each role is a one-warp task named after its warp, declaring only the
// resources its own capture uses, without a named barrier; warps 6-7 are the warpgroup's padding.
struct RoleWriter {
  static constexpr ts::TaskSpec spec{
      .name = "writer", .warp_idx = 4, .num_warps = 2, .warp_roles = true};
  using src = ts::list<InputGmem>;
  using dst = ts::list<Ring<>>;
  static constexpr void schedule(auto& ctx, auto& in, auto& ring) {
    if (ctx.warp_idx() == spec.warp_idx) {
      ctx.domain_loop(ts::c<4>, [&](auto&) {
        auto row = ts::work<&InputGmem::compute_coords>(in);
        ring.acquire();
        ts::work<&Ring<>::put>(ring, row);
        ring.commit();
      });
    }
  }
};

TEST(Describe, WarpRolesAreOneWarpTasksWithTheirOwnResources) {
  using Manager = ts::TaskManager<ts::Tasks<RingReader<Ring<>>, RoleWriter>, RingGraph<Ring<>>>;
  ts::ManagerModel const m = Manager::model("roles");
  std::vector<std::string_view> names;
  for (auto const& t : m.tasks) names.push_back(t.spec.name);
  ASSERT_EQ(names, (std::vector<std::string_view>{"reader", "writer[warp 4]", "writer[warp 5]",
                                                  m.tasks.back().spec.name}));
  ts::TaskModel const& warp4 = m.tasks[1];
  ts::TaskModel const& warp5 = m.tasks[2];
  EXPECT_EQ(warp4.role, 0);
  EXPECT_EQ(warp5.role, 1);
  EXPECT_EQ(m.tasks[0].role, -1);
  EXPECT_EQ(warp4.spec.warp_idx, 4);
  EXPECT_EQ(warp5.spec.warp_idx, 5);
  EXPECT_EQ(warp4.spec.num_warps, 1);
  EXPECT_EQ(warp5.spec.num_warps, 1);
  EXPECT_EQ(warp4.barrier, 0);
  EXPECT_EQ(warp5.barrier, 0);
  ASSERT_EQ(warp4.src.size(), 1u);
  ASSERT_EQ(warp4.dst.size(), 1u);
  EXPECT_EQ(m.resources[warp4.src[0]].name, "input_gmem");
  EXPECT_EQ(m.resources[warp4.dst[0]].name, "ring");
  EXPECT_TRUE(warp5.src.empty());
  EXPECT_TRUE(warp5.dst.empty());
  ts::TaskModel const& padding = m.tasks.back();
  EXPECT_TRUE(padding.padding);
  EXPECT_EQ(padding.spec.warp_idx, 6);
  EXPECT_EQ(padding.spec.num_warps, 2);
  EXPECT_TRUE(Manager::verify("roles").ok());
}
