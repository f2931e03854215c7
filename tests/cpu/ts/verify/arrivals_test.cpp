// tests/cpu/ts/verify/arrivals_test.cpp — R-D15 arrival counts (warploom/ts/verify/arrivals.hpp):
// a pipeline's producer and consumer groups must match the warps of the tasks that arrive on its
// barriers; TMA producers arrive once per warp, threads per thread (ts::threads) or per warp
// (ts::warps).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../fixtures.hpp"

namespace {

using namespace fixtures;
using ts::Rule;
using ts::threads;
using ts::warps;
using Ids = std::vector<std::string>;

// The copy on Tiles<kPipeline> with a 1-warp load and a 4-warp store.
template <ts::PipelineConfig kPipeline, int kLoadWarps = 1>
using TmaCopy =
    CopyOf<Tiles<kPipeline>, Load<Tiles<kPipeline>, 4, kLoadWarps>, Store<Tiles<kPipeline>>>;

// The ring with a 1-warp writer and a 4-warp reader.
template <ts::PipelineConfig kPipeline>
using RingCopy =
    ts::TaskManager<ts::Tasks<RingWriter<Ring<kPipeline>>, RingReader<Ring<kPipeline>>>,
                    RingGraph<Ring<kPipeline>>>;

// num_bytes is what each producing warp arms: a stage of 256 bytes, split over the warps.
constexpr ts::PipelineConfig tma(ts::CooperativeGroup producer, ts::CooperativeGroup consumer,
                                 int producing_warps = 1) {
  return ts::tma_async(2, 256 / producing_warps, producer, consumer);
}
constexpr ts::PipelineConfig async(ts::CooperativeGroup producer, ts::CooperativeGroup consumer) {
  return ts::async_async(2, producer, consumer);
}

// ---- TMA producer
// --------------------------------------------------------------------------------

TEST(Verify, R_D15_TmaProducerGroupLargerThanTheProducingWarpsIsRejected) {
  ts::Report r = verify_manager<TmaCopy<tma(threads(2), threads(128))>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D15"});
  ts::Violation const* v = first_of(r, Rule::D15_ArrivalCounts);
  EXPECT_EQ(v->task, "");
  EXPECT_EQ(v->resource, "smem");
  EXPECT_EQ(v->op, "producer group");
  EXPECT_EQ(v->message,
            "the producer group ts::threads(2) expects 2 arrivals per stage, but the producing "
            "tasks load (warp 4) make 1 (one elected lane per warp arms a TMA stage); set the "
            "group size to 1");
}

TEST(Verify, R_D15_TmaProducerCountsOneArrivalPerWarpWhateverTheAgent) {
  EXPECT_TRUE((verify_manager<TmaCopy<tma(threads(1), threads(128))>>().ok()));
  EXPECT_TRUE((verify_manager<TmaCopy<tma(warps(1), threads(128))>>().ok()));
  // A 2-warp load task arms each stage twice.
  EXPECT_TRUE((verify_manager<TmaCopy<tma(threads(2), threads(128), 2), 2>>().ok()));
  EXPECT_EQ(rule_ids(verify_manager<TmaCopy<tma(threads(1), threads(128), 2), 2>>()), Ids{"R-D15"});
}

// ---- TMA consumer
// --------------------------------------------------------------------------------

TEST(Verify, R_D15_ThreadConsumerGroupSmallerThanTheReleasingThreadsIsRejected) {
  ts::Report r = verify_manager<TmaCopy<tma(threads(1), threads(64))>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D15"});
  ts::Violation const* v = first_of(r, Rule::D15_ArrivalCounts);
  EXPECT_EQ(v->op, "consumer group");
  EXPECT_EQ(v->message,
            "the consumer group ts::threads(64) expects 64 arrivals per stage, but the releasing "
            "tasks store (warps 0-3) make 128; set the group size to 128");
}

TEST(Verify, R_D15_WarpConsumerGroupCountsWarps) {
  EXPECT_TRUE((verify_manager<TmaCopy<tma(threads(1), warps(4))>>().ok()));
  ts::Report r = verify_manager<TmaCopy<tma(threads(1), warps(2))>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D15"});
  EXPECT_EQ(r.violations[0].op, "consumer group");
  EXPECT_EQ(r.violations[0].message,
            "the consumer group ts::warps(2) expects 2 arrivals per stage, but the releasing "
            "tasks store (warps 0-3) make 4; set the group size to 4");
}

TEST(Verify, R_D15_ZeroStagesIsRejected) {
  ts::Report r = verify_manager<TmaCopy<ts::tma_async(0, 256, threads(1), threads(128))>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D15"});
  EXPECT_EQ(r.violations[0].op, "num_stages");
  EXPECT_EQ(r.violations[0].message, "a pipeline needs at least one stage");
}

// ---- AsyncAsync
// ----------------------------------------------------------------------------------

TEST(Verify, R_D15_AsyncThreadProducerCountsEveryThreadOfTheCommittingTasks) {
  EXPECT_TRUE(verify_manager<RingCopy<async(threads(32), threads(128))>>().ok());
  ts::Report r = verify_manager<RingCopy<async(threads(1), threads(128))>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D15"});
  ts::Violation const* v = first_of(r, Rule::D15_ArrivalCounts);
  EXPECT_EQ(v->resource, "ring");
  EXPECT_EQ(v->op, "producer group");
  // No TMA note for thread producers.
  EXPECT_EQ(v->message,
            "the producer group ts::threads(1) expects 1 arrivals per stage, but the producing "
            "tasks writer (warp 4) make 32; set the group size to 32");
}

TEST(Verify, R_D15_AsyncWarpProducerCountsWarps) {
  EXPECT_TRUE(verify_manager<RingCopy<async(warps(1), threads(128))>>().ok());
  ts::Report r = verify_manager<RingCopy<async(warps(2), threads(128))>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D15"});
  EXPECT_EQ(r.violations[0].op, "producer group");
}

TEST(Verify, R_D15_AsyncConsumerGroupsCountThreadsOrWarps) {
  EXPECT_TRUE(verify_manager<RingCopy<async(threads(32), warps(4))>>().ok());
  EXPECT_EQ(rule_ids(verify_manager<RingCopy<async(threads(32), threads(32))>>()), Ids{"R-D15"});
  EXPECT_EQ(rule_ids(verify_manager<RingCopy<async(threads(32), warps(1))>>()), Ids{"R-D15"});
}

TEST(Verify, R_D15_BothGroupsWrongGiveTwoFindings) {
  ts::Report r = verify_manager<RingCopy<async(threads(1), threads(1))>>();
  ASSERT_EQ(rule_ids(r), (Ids{"R-D15", "R-D15"}));
  EXPECT_EQ(r.violations[0].op, "producer group");
  EXPECT_EQ(r.violations[1].op, "consumer group");
}

// Two 2-warp readers release the same ring: their threads add up.
using SplitRing = Ring<ts::async_async(2, threads(32), threads(128))>;
using SplitReaders = ts::TaskManager<
    ts::Tasks<RingWriter<SplitRing>, RingReader<SplitRing, 0, 2>, RingReader<SplitRing, 2, 2>>,
    RingGraph<SplitRing>>;

TEST(Verify, R_D15_EveryReleasingTaskCounts) {
  EXPECT_TRUE(verify_manager<SplitReaders>().ok());
  using HalfRing = Ring<ts::async_async(2, threads(32), threads(64))>;
  using M = ts::TaskManager<
      ts::Tasks<RingWriter<HalfRing>, RingReader<HalfRing, 0, 2>, RingReader<HalfRing, 2, 2>>,
      RingGraph<HalfRing>>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D15"});
  EXPECT_EQ(r.violations[0].message,
            "the consumer group ts::threads(64) expects 64 arrivals per stage, but the releasing "
            "tasks reader (warps 0-1), reader (warps 2-3) make 128; set the group size to 128");
}

}  // namespace
