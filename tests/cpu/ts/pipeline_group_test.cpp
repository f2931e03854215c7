// tests/cpu/ts/pipeline_group_test.cpp — pipeline groups (warploom/ts/pipeline_group.hpp): what
// ts::Merge and ts::Fork declare, the resource table a manager derives from them, and the model's
// view of members and the barrier arrays they share. tests/compile_fail/ts_groups.cpp without a
// CASE_ define is the compile-pass control of the R-C2 compile-fail cases.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../compile_fail/ts_groups.cpp"
#include "warploom/ts/describe.hpp"
#include "warploom/ts/smem_layout.hpp"

namespace {

using namespace cf_groups;

// A resource table as ManagerTraits derives it: the groups, then their members.
struct GroupTraits {
  using resources = ts::with_group_members_t<ts::list<Inputs, Tile>>;
  using aliases = ts::Aliases<>;
  static constexpr ts::ManagerOptions options{};
  template <class R>
  static constexpr int resource_index = ts::index_of_v<R, resources>;
};

TEST(PipelineGroup, MergeDeclaresAGroupOverItsMembers) {
  static_assert(Inputs::spec.name == "inputs");
  static_assert(Inputs::spec.kind == ts::ResourceKind::Group);
  static_assert(Inputs::spec.group == ts::GroupMode::Merge);
  static_assert(std::is_same_v<Inputs::members, ts::list<Operands, Residual>>);
  // The shared (empty) side's config: the members' common stages and consumer group.
  static_assert(Inputs::spec.pipeline.num_stages == 4);
  static_assert(Inputs::spec.pipeline.consumer.size == 128);
  EXPECT_TRUE(ts::is_barrier(Inputs::spec.kind));
  EXPECT_FALSE(ts::drains_at_exit(Inputs::spec.kind, Inputs::spec.pipeline));
}

TEST(PipelineGroup, ForkDeclaresAGroupOverItsMembers) {
  static_assert(Tile::spec.name == "tile");
  static_assert(Tile::spec.group == ts::GroupMode::Fork);
  static_assert(std::is_same_v<Tile::members, ts::list<ForMma, ForStore>>);
  // The shared (full) side's config: one fill of the members' common bytes.
  static_assert(Tile::spec.pipeline.num_bytes == kBytes);
  static_assert(Tile::spec.pipeline.tma_producer());
}

TEST(PipelineGroup, ResourceTableListsTheMembers) {
  static_assert(std::is_same_v<GroupTraits::resources,
                               ts::list<Inputs, Tile, Operands, Residual, ForMma, ForStore>>);
  // A member a task names already is not listed twice.
  static_assert(std::is_same_v<ts::with_group_members_t<ts::list<Residual, Inputs>>,
                               ts::list<Residual, Inputs, Operands>>);
}

TEST(PipelineGroup, ModelNamesGroupsAndMembers) {
  ts::ManagerModel m;
  ts::describe_resources<GroupTraits>(m);
  ASSERT_EQ(m.resources.size(), 6u);
  EXPECT_EQ(m.resources[0].group_mode, ts::GroupMode::Merge);
  EXPECT_EQ(m.resources[1].group_mode, ts::GroupMode::Fork);
  EXPECT_EQ(m.resources[2].group, 0);  // ops in inputs
  EXPECT_EQ(m.resources[3].group, 0);  // res in inputs
  EXPECT_EQ(m.resources[4].group, 1);  // for_mma in tile
  EXPECT_EQ(m.resources[5].group, 1);  // for_store in tile
  EXPECT_EQ(ts::members_of(m, 0), (std::vector<int>{2, 3}));
  EXPECT_EQ(ts::members_of(m, 1), (std::vector<int>{4, 5}));
  // Merge members share the group's empty barriers and keep their full ones; Fork the reverse.
  EXPECT_EQ(ts::empty_owner(m, 2), 0);
  EXPECT_EQ(ts::full_owner(m, 2), 2);
  EXPECT_EQ(ts::empty_owner(m, 4), 4);
  EXPECT_EQ(ts::full_owner(m, 4), 1);
  EXPECT_EQ(ts::empty_owner(m, 0), 0);
}

// A task that names for_store before for_mma puts it first in the resource table.
struct ReorderedTraits : GroupTraits {
  using resources = ts::with_group_members_t<ts::list<ForStore, Tile, ForMma>>;
  template <class R>
  static constexpr int resource_index = ts::index_of_v<R, resources>;
};

TEST(PipelineGroup, MembersAreInTheGroupsOrderNotTheTables) {
  // The group's primary member (its acquire arms a TMA fork's shared full barrier) is still
  // for_mma, the first of ts::Fork<"tile", ForMma, ForStore>.
  ts::ManagerModel m;
  ts::describe_resources<ReorderedTraits>(m);
  EXPECT_EQ(ts::members_of(m, 1), (std::vector<int>{2, 0}));
  EXPECT_EQ(m.resources[2].group_rank, 0);
  EXPECT_EQ(m.resources[0].group_rank, 1);
}

// Each barrier array once: a Merge group holds its members' shared empty array and each member its
// own full array; a Fork group the shared full array and each member its own empty array.
TEST(PipelineGroup, LayoutHoldsEachSharedArrayOnce) {
  ts::ManagerModel m;
  ts::describe_resources<GroupTraits>(m);
  ts::SmemLayout const l = ts::layout_smem(m);
  constexpr long long kMerge = 4 * ts::kMbarrierBytes;  // an array of inputs' 4 stages
  constexpr long long kFork = 2 * ts::kMbarrierBytes;   // ... of tile's 2
  // inputs, tile, ops, res, for_mma, for_store: one array each, in resource order.
  EXPECT_EQ(l.barrier_bytes, 3 * kMerge + 3 * kFork);
  std::vector<std::pair<bool, bool>> sides;
  for (auto const& p : l.placements)
    if (p.barriers) {
      ts::BarrierArrays const& own = l.barrier_arrays[static_cast<std::size_t>(p.resource)];
      sides.emplace_back(own.owns_full, own.owns_empty);
    }
  EXPECT_EQ(sides, (std::vector<std::pair<bool, bool>>{{false, true},
                                                       {true, false},
                                                       {true, false},
                                                       {true, false},
                                                       {false, true},
                                                       {false, true}}));
  auto const& a = l.barrier_arrays;
  long long const inputs = l.barriers_of(0)->offset;
  long long const tile = inputs + kMerge, ops = tile + kFork, res = ops + kMerge;
  long long const for_mma = res + kMerge, for_store = for_mma + kFork;
  // Merge: the members' empty side is the group's array; their full sides are their own.
  EXPECT_EQ(a[0].empty, inputs);
  EXPECT_EQ(a[0].full, -1);
  EXPECT_EQ(a[2].full, ops);
  EXPECT_EQ(a[2].empty, inputs);
  EXPECT_EQ(a[3].full, res);
  EXPECT_EQ(a[3].empty, inputs);
  EXPECT_TRUE(a[2].owns_full && !a[2].owns_empty && a[0].owns_empty && !a[0].owns_full);
  // Fork: the members' full side is the group's array; their empty sides are their own.
  EXPECT_EQ(a[1].full, tile);
  EXPECT_EQ(a[1].empty, -1);
  EXPECT_EQ(a[4].full, tile);
  EXPECT_EQ(a[4].empty, for_mma);
  EXPECT_EQ(a[5].full, tile);
  EXPECT_EQ(a[5].empty, for_store);
  EXPECT_TRUE(a[4].owns_empty && !a[4].owns_full && a[1].owns_full && !a[1].owns_empty);
}

TEST(PipelineGroup, PlainPipelinesKeepBothArrays) {
  ts::ManagerModel m;
  m.resources = {
      {"ring", ts::ResourceKind::Memory, ts::async_async(2, ts::threads(32), ts::threads(32))}};
  ts::SmemLayout const l = ts::layout_smem(m);
  ASSERT_EQ(l.barrier_arrays.size(), 1u);
  EXPECT_EQ(l.barrier_arrays[0].full, 0);
  EXPECT_EQ(l.barrier_arrays[0].empty, 2 * ts::kMbarrierBytes);
  EXPECT_TRUE(l.barrier_arrays[0].owns_full && l.barrier_arrays[0].owns_empty);
  EXPECT_EQ(l.barrier_bytes, 4 * ts::kMbarrierBytes);
}

}  // namespace

// The corpus entries of tests/schedules/pipeline_groups.cpp, verified here too: the group managers
// without the schedule corpus's build of every bundled kernel.
#include "../../schedules/pipeline_groups.cpp"
#include "warploom/ts/verifier.hpp"

namespace {

TEST(PipelineGroup, CorpusEntriesReachTheirVerdicts) {
  corpus::Corpus entries;
  corpus::add_pipeline_groups(entries);
  ASSERT_FALSE(entries.empty());
  for (auto const& e : entries) {
    ts::Report const r = ts::verify_model(e.model(e.name), e.options);
    std::vector<std::string_view> got;
    for (auto const& v : r.violations) got.push_back(v.id());
    std::sort(got.begin(), got.end());
    got.erase(std::unique(got.begin(), got.end()), got.end());
    std::string text;
    for (auto const& v : r.violations) text += ts::format(v) + "\n";
    EXPECT_EQ(got, e.expected) << e.name << ":\n" << text;
  }
}

}  // namespace
