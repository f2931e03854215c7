// tests/cpu/ts/verify/warps_test.cpp — warp ranges and registers (warploom/ts/verify/warps.hpp):
// R-W1 disjoint ranges, R-W2 ranges inside the block, R-W3 no empty warpgroup below a task, R-B7
// register values, R-D2 one budget per warpgroup, R-D3 budgets within the register file; and the
// padding the TaskManager derives for idle warps (ts::derive_padding), which those rules see.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../fixtures.hpp"

namespace {

using namespace fixtures;
using ts::Rule;
using Ids = std::vector<std::string>;
using T = Tiles<>;

bool mentions(std::string const& message, std::string const& part) {
  return message.find(part) != std::string::npos;
}

// ---- R-W1
// ------------------------------------------------------------------------------------------

TEST(Verify, R_W1_OverlappingWarpRangesAreRejected) {
  // load on warp 3 lands inside store's warps 0-3.
  ts::Report r = verify_manager<CopyOf<T, Load<T, 3>, Store<T>>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-W1"});
  ASSERT_TRUE(r.has(Rule::W1_WarpOverlap));
  ts::Violation const* v = first_of(r, Rule::W1_WarpOverlap);
  EXPECT_EQ(v->task, "load");
  EXPECT_EQ(v->resource, "");
  EXPECT_TRUE(mentions(v->message, "warp 3 overlap task `store` on warps 0-3")) << v->message;
}

TEST(Verify, R_W1_AdjacentWarpRangesAreAccepted) {
  ts::Report r = verify_manager<CopyOf<T, Load<T, 4>, Store<T>>>();
  EXPECT_TRUE(r.ok()) << rule_ids(r).size();
}

TEST(Verify, R_W1_DerivedPaddingCoversOnlyTheIdleWarps) {
  // The load on warp 4 and the store on 0-3 leave warps 5-7: one padding task, overlapping none.
  ts::ManagerModel m = CopyOf<T, Load<T, 4>, Store<T>>::model();
  ASSERT_EQ(m.tasks.size(), 3u);
  EXPECT_TRUE(m.tasks[2].padding);
  EXPECT_EQ(ts::verify::warp_range(m.tasks[2].spec), "warps 5-7");
  EXPECT_TRUE(ts::verify_structure(m).ok());
}

// ---- R-W2
// ------------------------------------------------------------------------------------------

template <int kBlockWarps>
using BlockOf = ts::TaskManager<ts::Tasks<Load<T, 4>, Store<T>>, CopyGraphOf<T>,
                                ts::ManagerOptions{.block_warps = kBlockWarps}>;

TEST(Verify, R_W2_TaskPastTheConfiguredBlockIsRejected) {
  ts::Report r = verify_manager<BlockOf<4>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-W2"});
  ts::Violation const* v = first_of(r, Rule::W2_WarpRange);
  ASSERT_TRUE(r.has(Rule::W2_WarpRange));
  EXPECT_EQ(v->task, "load");
  EXPECT_TRUE(mentions(v->message, "warp 4 reach past the block of 4 warps")) << v->message;
}

TEST(Verify, R_W2_TaskInsideTheConfiguredBlockIsAccepted) {
  EXPECT_TRUE(verify_manager<BlockOf<8>>().ok());
  EXPECT_TRUE(verify_manager<BlockOf<5>>().ok());
}

TEST(Verify, R_W2_NegativeWarpIndexIsRejected) {
  ts::Report r = verify_manager<CopyOf<T, Load<T, -1>, Store<T>>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-W2"});
  EXPECT_TRUE(mentions(first_of(r, Rule::W2_WarpRange)->message, "warp_idx -1 / num_warps 1"));
}

TEST(Verify, R_W2_ZeroWarpsIsRejected) {
  ts::Report r = verify_manager<CopyOf<T, Load<T, 4, 0>, Store<T>>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-W2"});
  EXPECT_EQ(first_of(r, Rule::W2_WarpRange)->task, "load");
}

TEST(Verify, R_W2_MoreThan32WarpsIsRejected) {
  // Derived block: 36 warps, beyond the 32 a CTA can have.
  ts::Report r = verify_manager<CopyOf<T, Load<T, 32>, Store<T>>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-W2"});
  // Warp 31 is the last one allowed (warps 4-30 busy: no gap for R-W3).
  using LastWarp = CopyOf<T, Load<T, 31>, Store<T>, Idle<4, 27>>;
  EXPECT_TRUE(verify_manager<LastWarp>().ok());
}

// ---- R-W3
// ------------------------------------------------------------------------------------------

TEST(Verify, R_W3_EmptyWarpgroupBelowATaskIsRejected) {
  // The store on warps 0-3, the load on warp 8: warps 4-7 hold no task.
  ts::Report r = verify_manager<CopyOf<T, Store<T>, Load<T, 8>>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-W3"});
  ts::Violation const* v = first_of(r, Rule::W3_EmptyWarpgroup);
  EXPECT_EQ(v->task, "load");
  EXPECT_TRUE(mentions(v->message,
                       "warpgroup 1 (warps 4-7) holds no task, but this task runs above it on "
                       "warp 8"))
      << v->message;
  EXPECT_TRUE(mentions(v->message, "down by 4 warps")) << v->message;
}

TEST(Verify, R_W3_TheGapIsPaddedAndShown) {
  // The model shows the whole block: the gap's warps are padding too (without a budget).
  ts::ManagerModel m = CopyOf<T, Store<T>, Load<T, 8>>::model();
  std::vector<std::string> padding;
  for (auto const& t : m.tasks)
    if (t.padding) padding.push_back(ts::verify::warp_range(t.spec));
  EXPECT_EQ(padding, (std::vector<std::string>{"warps 4-7", "warps 9-11"}));
}

TEST(Verify, R_W3_WarpsNumberedWithoutAGapAreAccepted) {
  using NoGap = CopyOf<T, Store<T>, Load<T, 4>>;
  EXPECT_TRUE(verify_manager<NoGap>().ok());
  // A task that straddles into a warpgroup holds it.
  using Straddled = CopyOf<T, Store<T, 2, 4>, Load<T, 8>>;
  EXPECT_TRUE(verify_manager<Straddled>().ok());
  // Warpgroups above the highest task (an explicit block_warps) are no gap.
  EXPECT_TRUE(verify_manager<BlockOf<16>>().ok());
}

// ---- R-B7
// ------------------------------------------------------------------------------------------

template <int kRegisters>
using StoreRegs = CopyOf<T, Load<T, 4>, Store<T, 0, 4, kRegisters>>;

TEST(Verify, R_B7_RegisterCountNotAMultipleOf8IsRejected) {
  ts::Report r = verify_manager<StoreRegs<42>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-B7"});
  ts::Violation const* v = first_of(r, Rule::B7_RegisterValue);
  EXPECT_EQ(v->task, "store");
  EXPECT_TRUE(mentions(v->message, "num_registers = 42 is not a setmaxnreg value")) << v->message;
}

TEST(Verify, R_B7_RegisterCountsOutside24To256AreRejected) {
  EXPECT_EQ(rule_ids(verify_manager<StoreRegs<16>>()), Ids{"R-B7"});
  EXPECT_EQ(rule_ids(verify_manager<StoreRegs<264>>()), Ids{"R-B7"});
}

TEST(Verify, R_B7_RegisterCountsAtTheBoundsAndUnsetAreAccepted) {
  EXPECT_TRUE(verify_manager<StoreRegs<24>>().ok());
  EXPECT_TRUE(verify_manager<StoreRegs<256>>().ok());
  EXPECT_TRUE(verify_manager<StoreRegs<0>>().ok());
}

// ---- R-D2
// ------------------------------------------------------------------------------------------

TEST(Verify, R_D2_DerivedPaddingTakesTheWarpgroupsBudget) {
  // The load sets 40 on warp 4: the TaskManager pads warps 5-7 with 40 too.
  using M = CopyOf<T, Load<T, 4, 1, 40>, Store<T>>;
  ts::ManagerModel m = M::model();
  ASSERT_EQ(m.tasks.size(), 3u);
  EXPECT_EQ(m.tasks[2].spec.num_registers, 40);
  EXPECT_TRUE(verify_manager<M>().ok());
  EXPECT_TRUE(verify_manager<CopyManager>().ok());
  using Budgets = CopyOf<T, Load<T, 4, 1, 40>, Store<T, 0, 4, 232>>;
  EXPECT_TRUE(verify_manager<Budgets>().ok());
}

TEST(Verify, R_D2_TwoBudgetsInOneWarpgroupAreRejected) {
  // The idle task on warp 5 asks for 48, the load on warp 4 for 40.
  using M = CopyOf<T, Load<T, 4, 1, 40>, Store<T>, Idle<5, 1, 48>>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D2"});
  ts::Violation const* v = first_of(r, Rule::D2_WarpGroupRegisters);
  EXPECT_EQ(v->task, "idle");
  EXPECT_TRUE(mentions(v->message,
                       "num_registers = 48 differs from task `load` (40) in warpgroup 1 "
                       "(warps 4-7)"))
      << v->message;
  // The same budget is accepted; the padding of warps 6-7 takes it.
  using SameBudget = CopyOf<T, Load<T, 4, 1, 40>, Store<T>, Idle<5, 1, 40>>;
  EXPECT_TRUE(verify_manager<SameBudget>().ok());
}

TEST(Verify, R_D2_TaskWithoutBudgetNextToOneWithABudgetIsRejected) {
  using M = CopyOf<T, Load<T, 4, 1, 40>, Store<T>, Idle<5>>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D2"});
  ts::Violation const* v = first_of(r, Rule::D2_WarpGroupRegisters);
  EXPECT_EQ(v->task, "idle");
  EXPECT_TRUE(mentions(v->message, "sets no num_registers on warp 5 but task `load` sets 40"))
      << v->message;
}

TEST(Verify, R_D2_HandBuiltModelWithoutPaddingIsRejected) {
  // A model built by hand has no padding until ts::derive_padding adds it.
  ts::ManagerModel m = CopyManager::model();
  ASSERT_TRUE(m.tasks.back().padding);
  m.tasks.pop_back();
  ts::Report r = ts::verify_structure(m);
  ASSERT_EQ(rule_ids(r), Ids{"R-D2"});
  ts::Violation const* v = first_of(r, Rule::D2_WarpGroupRegisters);
  EXPECT_EQ(v->task, "load");
  EXPECT_TRUE(mentions(v->message, "warp 5 runs no task and no padding")) << v->message;
  ts::derive_padding(m);
  EXPECT_TRUE(ts::verify_structure(m).ok());
  ts::derive_padding(m);  // idempotent
  EXPECT_EQ(m.tasks.size(), 3u);
}

TEST(Verify, R_D2_WarpgroupWithABudgetCutByTheBlockIsRejected) {
  // Five warps: the load's warpgroup (40 registers) has warp 4 only.
  using Cut = ts::TaskManager<ts::Tasks<Load<T, 4, 1, 40>, Store<T>>, CopyGraphOf<T>,
                              ts::ManagerOptions{.block_warps = 5}>;
  ts::Report r = verify_manager<Cut>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D2"});
  EXPECT_TRUE(mentions(first_of(r, Rule::D2_WarpGroupRegisters)->message,
                       "the block of 5 warps ends at warp 4"))
      << first_of(r, Rule::D2_WarpGroupRegisters)->message;
  // Without a budget the cut warpgroup executes no setmaxnreg: accepted (BlockOf<5> above).
}

// A store on warps 2-5 straddles warpgroups 0 and 1: both get one budget, and their idle warps
// (1 and 6-7) its padding.
template <int kLoadRegisters>
using Straddling = CopyOf<T, Load<T, 0, 1, kLoadRegisters>, Store<T, 2, 4, 160>>;

TEST(Verify, R_D2_TaskAcrossTwoWarpgroupsPadsBoth) {
  ts::ManagerModel m = Straddling<160>::model();
  std::vector<std::string> padding;
  for (auto const& t : m.tasks)
    if (t.padding)
      padding.push_back(ts::verify::warp_range(t.spec) + " at " +
                        std::to_string(t.spec.num_registers));
  EXPECT_EQ(padding, (std::vector<std::string>{"warp 1 at 160", "warps 6-7 at 160"}));
  EXPECT_TRUE(ts::verify_structure(m).ok());
}

TEST(Verify, R_D2_TaskAcrossTwoWarpgroupsJoinsTheirBudgets) {
  // The load sets 40 in warpgroup 0, which the store at 160 joins.
  ts::Report r = verify_manager<Straddling<40>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D2"});
  EXPECT_EQ(first_of(r, Rule::D2_WarpGroupRegisters)->task, "store");
}

// ---- R-D3
// ------------------------------------------------------------------------------------------

TEST(Verify, R_D3_BudgetsBeyondTheRegisterFileAreRejected) {
  // 12 warps x 32 threads x 240 registers = 92160 > 65536.
  using M = CopyOf<T, Store<T, 0, 4, 240>, Load<T, 4, 1, 240>, Idle<8, 4, 240>>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D3"});
  ts::Violation const* v = first_of(r, Rule::D3_RegisterBudget);
  EXPECT_EQ(v->task, "");
  EXPECT_TRUE(mentions(v->message, "need 92160 registers")) << v->message;
}

TEST(Verify, R_D3_ProducerConsumerSplitWithinTheFileIsAccepted) {
  // 4x32x232 + 4x32x40 + 4x32x232 = 64512 (the load's warpgroup: the load and its padding).
  using M = CopyOf<T, Store<T, 0, 4, 232>, Load<T, 4, 1, 40>, Idle<8, 4, 232>>;
  EXPECT_TRUE(verify_manager<M>().ok());
}

TEST(Verify, R_D3_BudgetsFillingTheLaunchPoolAreAccepted) {
  // 8 warps enter with 255 registers each: a pool of 255 x 256 = 65280; 4x32x256 + 4x32x248 =
  // 64512.
  using M = CopyOf<T, Store<T, 0, 4, 256>, Load<T, 4, 1, 248>>;
  EXPECT_TRUE(verify_manager<M>().ok());
}

TEST(Verify, R_D3_EveryWarpAt256ExceedsThePoolEvenWithinTheRegisterFile) {
  // 8 x 32 x 256 = 65536 fits the register file, but the CTA entered with 255 per thread
  // (65280): setmaxnreg.inc draws from that pool and would wait forever. The load's padding
  // (warps 5-7) holds the load's 256 too.
  using M = CopyOf<T, Store<T, 0, 4, 256>, Load<T, 4, 1, 256>>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D3"});
  EXPECT_TRUE(
      mentions(first_of(r, Rule::D3_RegisterBudget)->message, "the CTA's pool holds 65280"));
}

TEST(Verify, R_D3_TasksWithoutBudgetCountAtTheEntryRegisters) {
  // 12 warps enter with 168 registers: 2 x 4x32x256 + 1x32x168 = 70912 > 65536. The load's
  // padding (warps 9-11) sets no budget, so it executes no setmaxnreg and exits: not counted.
  using M = CopyOf<T, Store<T, 0, 4, 256>, Idle<4, 4, 256>, Load<T, 8>>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D3"});
  EXPECT_TRUE(mentions(first_of(r, Rule::D3_RegisterBudget)->message, "need 70912 registers"));
  EXPECT_TRUE(
      mentions(first_of(r, Rule::D3_RegisterBudget)->message, "168 per thread where unset"));
}

}  // namespace
