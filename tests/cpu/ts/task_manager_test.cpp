// tests/cpu/ts/task_manager_test.cpp — what ts::TaskManager derives from its types
// (warploom/ts/task_manager.hpp, manager_traits.hpp, model.hpp): launch shape, entry registers,
// shared memory, the resource table, access sides, register regions and the compile-time gate.

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "fixtures.hpp"

namespace {

using namespace fixtures;
using T = Tiles<>;

// A good manager passes the compile-time gate (TaskManager::setup_resources_and_tasks applies
// the same static_assert in the kernel).
static_assert(ts::verified_at_compile_time<CopyManager::traits>());

TEST(TaskManager, CopyManagerLaunchShape) {
  static_assert(CopyManager::num_warps == 8);
  static_assert(CopyManager::num_threads == 256);
  static_assert(CopyManager::kEntryRegisters == 255);
  static_assert(CopyManager::smem_bytes == 544);
  static_assert(CopyManager::smem_alignment == 128);
  EXPECT_EQ(CopyManager::num_warps, 8);
  EXPECT_EQ(CopyManager::num_threads, 256);
  EXPECT_EQ(CopyManager::traits::num_tasks, 2);  // the model adds the padding of warps 5-7
}

TEST(TaskManager, NumWarpsRoundsTheLastTaskWarpUpToAWarpgroup) {
  using EndsAt4 = CopyOf<T, Store<T, 1, 3>, Load<T, 0>>;
  using EndsAt5 = CopyOf<T, Store<T>, Load<T, 4>>;
  using EndsAt9 = CopyOf<T, Store<T>, Load<T, 8>>;
  using EndsAt13 = CopyOf<T, Store<T>, Load<T, 12>>;
  EXPECT_EQ(EndsAt4::num_warps, 4);
  EXPECT_EQ(EndsAt4::num_threads, 128);
  EXPECT_EQ(EndsAt5::num_warps, 8);
  EXPECT_EQ(EndsAt9::num_warps, 12);
  EXPECT_EQ(EndsAt9::num_threads, 384);
  EXPECT_EQ(EndsAt13::num_warps, 16);
}

template <int kBlockWarps>
using Blocked = ts::TaskManager<ts::Tasks<LoadTask, StoreTask>, CopyGraph,
                                ts::ManagerOptions{.block_warps = kBlockWarps}>;

TEST(TaskManager, BlockWarpsOptionOverridesTheDerivedCount) {
  EXPECT_EQ(Blocked<16>::num_warps, 16);
  EXPECT_EQ(Blocked<16>::num_threads, 512);
  EXPECT_EQ(Blocked<16>::kEntryRegisters, 128);
  EXPECT_EQ(Blocked<12>::kEntryRegisters, 168);
  EXPECT_EQ(Blocked<16>::model().launch_warps(), 16);
}

TEST(TaskManager, EntryRegistersSplitTheRegisterFileInStepsOf8UpTo255) {
  // 65536 / (warps x 32), rounded down to a multiple of 8, at most 255.
  EXPECT_EQ(ts::entry_registers(1), 255);
  EXPECT_EQ(ts::entry_registers(4), 255);
  EXPECT_EQ(ts::entry_registers(8), 255);   // 256 would not fit setmaxnreg's per-thread maximum
  EXPECT_EQ(ts::entry_registers(12), 168);  // 170.67 -> 168
  EXPECT_EQ(ts::entry_registers(16), 128);
  EXPECT_EQ(ts::entry_registers(20), 96);  // 102.4 -> 96
  EXPECT_EQ(ts::entry_registers(24), 80);  // 85.3 -> 80
  EXPECT_EQ(ts::entry_registers(32), 64);
}

TEST(TaskManager, ResourceTableListsSourcesThenDestinationsThenGraphOnlyOnce) {
  static_assert(std::is_same_v<CopyManager::resources, ts::list<InputGmem, SmemTiles, OutputGmem>>);
  using R = Ring<>;
  // Sources in task order: writer (input), load (input again), store (smem); then destinations:
  // writer (ring), load (smem again), store (output); then a resource only the graph names.
  using Graph = ts::Graph<ts::DependsOn<R, InputGmem>, ts::DependsOn<T, InputGmem>,
                          ts::DependsOn<OutputGmem, T, TileQueue<0>>>;
  using M = ts::TaskManager<ts::Tasks<RingWriter<R>, Load<T>, Store<T>>, Graph>;
  static_assert(std::is_same_v<M::resources, ts::list<InputGmem, T, R, OutputGmem, TileQueue<0>>>);
  static_assert(M::traits::resource_index<InputGmem> == 0);
  static_assert(M::traits::resource_index<TileQueue<0>> == 4);
  static_assert(M::traits::resource_index<SmemTiles> == -1);
  ts::ManagerModel m = M::model();
  ASSERT_EQ(m.resources.size(), 5u);
  EXPECT_EQ(m.resources[2].name, "ring");
  EXPECT_EQ(m.resources[4].name, "tile_queue");
  EXPECT_EQ(m.tasks[0].dst, (std::vector<int>{2}));
  EXPECT_EQ(m.tasks[1].src, (std::vector<int>{0}));
}

struct BothSides {
  static constexpr ts::TaskSpec spec{.name = "both"};
  using src = ts::list<InputGmem, Ring<>>;
  using dst = ts::list<Ring<>>;
  static constexpr void schedule(auto&, auto&, auto&, auto&) {}
};

TEST(TaskManager, AccessSideFollowsTheTaskLists) {
  static_assert(ts::access_v<LoadTask, SmemTiles> == ts::Access::Destination);
  static_assert(ts::access_v<StoreTask, SmemTiles> == ts::Access::Source);
  static_assert(BothSides::spec.name == "both");
  static_assert(ts::access_v<BothSides, Ring<>> == ts::Access::Both);
  static_assert(ts::access_v<BothSides, InputGmem> == ts::Access::Source);
  using Handle = ts::RecordHandle<Ring<>, ts::Access::Both>;
  static_assert(Handle::can_produce && Handle::can_consume);
  static_assert(!ts::RecordHandle<SmemTiles, ts::Access::Source>::can_produce);
  static_assert(!ts::RecordHandle<SmemTiles, ts::Access::Destination>::can_consume);
  SUCCEED();
}

using Region = std::tuple<int, int, int>;  // lo, hi, budget
template <class Tasks>
std::vector<Region> regions(int num_warps) {
  ts::detail::RegisterRegions r = ts::detail::register_regions(Tasks{}, num_warps);
  std::vector<Region> out;
  for (int i = 0; i < r.count; ++i)
    out.emplace_back(r.regions[i].lo, r.regions[i].hi, r.regions[i].budget);
  return out;
}

TEST(TaskManager, RegisterRegionsAreWarpgroupsWithTheirBudget) {
  EXPECT_EQ(regions<CopyManager::tasks>(8), (std::vector<Region>{{0, 4, 160}, {4, 8, 40}}));
  // Warpgroups no task uses get a region without setmaxnreg.
  EXPECT_EQ(regions<CopyManager::tasks>(12),
            (std::vector<Region>{{0, 4, 160}, {4, 8, 40}, {8, 12, 0}}));
  using NoBudgets = ts::list<Load<T>, Store<T>>;
  EXPECT_EQ(regions<NoBudgets>(8), (std::vector<Region>{{0, 4, 0}, {4, 8, 0}}));
}

TEST(TaskManager, TaskAcrossAWarpgroupBoundaryJoinsTheGroupsIntoOneRegion) {
  using Straddling = ts::list<Load<T, 0, 1, 160>, Store<T, 2, 4, 160>>;  // warps 1, 6-7 idle
  EXPECT_EQ(regions<Straddling>(8), (std::vector<Region>{{0, 8, 160}}));
  EXPECT_EQ(regions<Straddling>(12), (std::vector<Region>{{0, 8, 160}, {8, 12, 0}}));
}

TEST(TaskManager, HostVerificationAndModel) {
  EXPECT_TRUE(CopyManager::verify("copy").ok());
  ts::ManagerModel m = CopyManager::model("copy");
  EXPECT_EQ(m.name, "copy");
  EXPECT_EQ(m.launch_warps(), CopyManager::num_warps);
  using Bad = CopyOf<T, Load<T, 4, 1, 40>, Store<T>, Idle<5, 1, 48>>;
  EXPECT_EQ(rule_ids(Bad::verify()), (std::vector<std::string>{"R-D2"}));
}

// The lowering pads nothing explicitly: an idle warp runs its region's setmaxnreg and matches no
// task. The model's derived padding must say the same: each padding task lies in one region and
// carries that region's budget.
template <class Manager>
void expect_padding_matches_the_regions() {
  ts::detail::RegisterRegions const r =
      ts::detail::register_regions(typename Manager::tasks{}, Manager::num_warps);
  int padded = 0;
  for (auto const& t : Manager::model().tasks) {
    if (!t.padding) continue;
    ++padded;
    int const lo = t.spec.warp_idx, hi = lo + t.spec.num_warps;
    bool found = false;
    for (int i = 0; i < r.count; ++i) {
      if (lo >= r.regions[i].lo && hi <= r.regions[i].hi) {
        found = true;
        EXPECT_EQ(t.spec.num_registers, r.regions[i].budget) << ts::verify::warp_range(t.spec);
      }
    }
    EXPECT_TRUE(found) << ts::verify::warp_range(t.spec);
  }
  EXPECT_GT(padded, 0);
}

TEST(TaskManager, DerivedPaddingHasItsRegionsBudget) {
  expect_padding_matches_the_regions<CopyManager>();  // warps 5-7 at 40
  expect_padding_matches_the_regions<CopyOf<T, Load<T, 0, 1, 160>, Store<T, 2, 4, 160>>>();
  expect_padding_matches_the_regions<CopyOf<T, Store<T, 0, 8, 232>, Load<T, 8, 1, 40>>>();
  expect_padding_matches_the_regions<Blocked<16>>();  // warps 8-15: no budget, no setmaxnreg
}

}  // namespace
