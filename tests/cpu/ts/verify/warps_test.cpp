// tests/cpu/ts/verify/warps_test.cpp — warp ranges and registers (warploom/ts/verify/warps.hpp):
// R-W1 disjoint ranges, R-W2 ranges inside the block, R-B7 register values, R-D2 one budget per
// warpgroup, R-D3 budgets within the register file.

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

TEST(Verify, R_W1_PaddingTasksCountAsWarpOwners) {
  // The padding task's warps 4-6 cover the load task's warp 4.
  using M = CopyOf<T, Load<T, 4>, Store<T>, ts::PaddingTask<4, 3>>;
  EXPECT_EQ(rule_ids(verify_manager<M>()), Ids{"R-W1"});
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
  // Warp 31 is the last one allowed.
  using LastWarp = CopyOf<T, Load<T, 31>, Store<T>>;
  EXPECT_TRUE(verify_manager<LastWarp>().ok());
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

TEST(Verify, R_D2_BudgetWithoutPaddingForTheRestOfTheWarpgroupIsRejected) {
  ts::Report r = verify_manager<CopyOf<T, Load<T, 4, 1, 40>, Store<T>>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D2"});
  ts::Violation const* v = first_of(r, Rule::D2_WarpGroupRegisters);
  EXPECT_EQ(v->task, "load");
  EXPECT_TRUE(mentions(v->message, "warpgroup 1 but warp 5 is not covered")) << v->message;
  EXPECT_TRUE(mentions(v->message, "ts::PaddingTask<5, N, 40>")) << v->message;
}

TEST(Verify, R_D2_PaddingWithOtherBudgetIsRejected) {
  using M = CopyOf<T, Load<T, 4, 1, 40>, Store<T>, ts::PaddingTask<5, 3, 48>>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D2"});
  ts::Violation const* v = first_of(r, Rule::D2_WarpGroupRegisters);
  EXPECT_EQ(v->task, "padding");
  EXPECT_TRUE(mentions(v->message,
                       "num_registers = 48 differs from task `load` (40) in warpgroup 1 "
                       "(warps 4-7)"))
      << v->message;
}

TEST(Verify, R_D2_PaddingWithoutBudgetDoesNotCoverTheWarpgroup) {
  using M = CopyOf<T, Load<T, 4, 1, 40>, Store<T>, ts::PaddingTask<5, 3>>;
  EXPECT_EQ(rule_ids(verify_manager<M>()), Ids{"R-D2"});
}

TEST(Verify, R_D2_PaddingWithTheSameBudgetIsAccepted) {
  EXPECT_TRUE(verify_manager<CopyManager>().ok());
  using M = CopyOf<T, Load<T, 4, 1, 40>, Store<T, 0, 4, 232>, ts::PaddingTask<5, 3, 40>>;
  EXPECT_TRUE(verify_manager<M>().ok());
}

// A store on warps 2-5 straddles warpgroups 0 and 1: both need every warp covered at 160.
template <class... Padding>
using Straddling = CopyOf<T, Load<T, 0, 1, 160>, Store<T, 2, 4, 160>, Padding...>;

TEST(Verify, R_D2_TaskAcrossTwoWarpgroupsNeedsBothCovered) {
  using M = Straddling<ts::PaddingTask<1, 1, 160>>;  // warps 6-7 uncovered
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D2"});
  EXPECT_TRUE(mentions(first_of(r, Rule::D2_WarpGroupRegisters)->message, "warp 6 is not covered"));
  using Ok = Straddling<ts::PaddingTask<1, 1, 160>, ts::PaddingTask<6, 2, 160>>;
  EXPECT_TRUE(verify_manager<Ok>().ok());
}

// ---- R-D3
// ------------------------------------------------------------------------------------------

TEST(Verify, R_D3_BudgetsBeyondTheRegisterFileAreRejected) {
  // 12 warps x 32 threads x 240 registers = 92160 > 65536.
  using M = CopyOf<T, Store<T, 0, 4, 240>, Load<T, 4, 1, 240>, ts::PaddingTask<5, 3, 240>,
                   ts::PaddingTask<8, 4, 240>>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D3"});
  ts::Violation const* v = first_of(r, Rule::D3_RegisterBudget);
  EXPECT_EQ(v->task, "");
  EXPECT_TRUE(mentions(v->message, "need 92160 registers")) << v->message;
}

TEST(Verify, R_D3_ProducerConsumerSplitWithinTheFileIsAccepted) {
  // 4x32x232 + 4x32x40 + 4x32x232 = 64512.
  using M = CopyOf<T, Store<T, 0, 4, 232>, Load<T, 4, 1, 40>, ts::PaddingTask<5, 3, 40>,
                   ts::PaddingTask<8, 4, 232>>;
  EXPECT_TRUE(verify_manager<M>().ok());
}

TEST(Verify, R_D3_BudgetsFillingTheLaunchPoolAreAccepted) {
  // 8 warps enter with 255 registers each: a pool of 255 x 256 = 65280; 4x32x256 + 4x32x248 =
  // 64512.
  using M = CopyOf<T, Store<T, 0, 4, 256>, Load<T, 4, 1, 248>, ts::PaddingTask<5, 3, 248>>;
  EXPECT_TRUE(verify_manager<M>().ok());
}

TEST(Verify, R_D3_EveryWarpAt256ExceedsThePoolEvenWithinTheRegisterFile) {
  // 8 x 32 x 256 = 65536 fits the register file, but the CTA entered with 255 per thread
  // (65280): setmaxnreg.inc draws from that pool and would wait forever.
  using M = CopyOf<T, Store<T, 0, 4, 256>, Load<T, 4, 1, 256>, ts::PaddingTask<5, 3, 256>>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D3"});
  EXPECT_TRUE(
      mentions(first_of(r, Rule::D3_RegisterBudget)->message, "the CTA's pool holds 65280"));
}

TEST(Verify, R_D3_TasksWithoutBudgetCountAtTheEntryRegisters) {
  // 12 warps enter with 168 registers: 2 x 4x32x256 + 1x32x168 = 70912 > 65536.
  using M = CopyOf<T, Store<T, 0, 4, 256>, ts::PaddingTask<4, 4, 256>, Load<T, 8>>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D3"});
  EXPECT_TRUE(mentions(first_of(r, Rule::D3_RegisterBudget)->message, "need 70912 registers"));
  EXPECT_TRUE(
      mentions(first_of(r, Rule::D3_RegisterBudget)->message, "168 per thread where unset"));
}

}  // namespace
