// tests/cpu/harness/runner_test.cpp — warploom/harness/runner.hpp, with a fake plan and clock
// (no GPU): the order of prepare, check, warm-up and interleaved timed runs, the input-set
// rotation, the summaries and the roofline.
#include "warploom/harness/runner.hpp"

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace warploom::harness {
namespace {

// Every call of every plan, in order.
std::vector<std::string>* g_log = nullptr;

class FakePlan final : public KernelPlan {
 public:
  FakePlan(std::string name, std::size_t set_bytes, bool correct)
      : name_(std::move(name)), set_bytes_(set_bytes), correct_(correct) {}
  Work work() const override { return {.flops = 0, .bytes = 4e9}; }
  std::size_t bytes_per_input_set() const override { return set_bytes_; }
  void prepare(int sets, std::uint64_t seed) override {
    g_log->push_back(name_ + ".prepare(" + std::to_string(sets) + "," + std::to_string(seed) + ")");
  }
  void run(int set, Tuning const& t, cudaStream_t) override {
    g_log->push_back(name_ + ".run(" + std::to_string(set) + "," + to_string(t) + ")");
  }
  CheckResult check(Tuning const&) override {
    g_log->push_back(name_ + ".check");
    return {correct_, correct_ ? "bitwise equal" : "3 bytes differ"};
  }

 private:
  std::string name_;
  std::size_t set_bytes_;
  bool correct_;
};

// Each timed launch takes 1, 2, 3, ... ms in turn; the clock advances 1 s per reading.
class FakeTimer final : public LaunchTimer {
 public:
  double milliseconds(std::function<void()> const& launch) override {
    launch();
    g_log->push_back("timed");
    return ++launches_;
  }
  double now_seconds() override { return seconds_++; }
  // A "graph" runs what was captured on each replay.
  std::function<void()> captured(std::function<void(cudaStream_t)> const& enqueue) override {
    g_log->push_back("capture");
    return [enqueue] { enqueue(nullptr); };
  }

 private:
  double launches_ = 0;
  double seconds_ = 0;
};

class RunContenders : public ::testing::Test {
 protected:
  void SetUp() override { g_log = &log_; }
  void TearDown() override { g_log = nullptr; }
  std::vector<Contender> two_contenders() {
    std::vector<Contender> cs;
    cs.push_back({"a", std::make_unique<FakePlan>("a", 100 << 20, true), {}});  // 2 sets at 60 MiB
    cs.push_back({"b", std::make_unique<FakePlan>("b", 200 << 20, false), {{"rows", "64"}}});
    return cs;
  }
  std::vector<std::string> log_;
};

// Prepare, check and warm up each contender; then timed rounds, each starting one contender later.
TEST_F(RunContenders, PreparesChecksWarmsUpThenInterleaves) {
  std::vector<Contender> cs = two_contenders();
  FakeTimer timer;
  RunOptions o{.reps = 2, .warmup = 1, .l2_bytes = 60u << 20, .seed = 7};
  std::vector<ContenderResult> const r = run_contenders(cs, o, timer);
  std::vector<std::string> const want = {
      "a.prepare(2,7)",   "a.check", "a.run(0,default)", "timed",  // warm-up: set 0
      "b.prepare(1,7)",   "b.check", "b.run(0,rows=64)", "timed",  // 200 MiB: one set
      "a.run(1,default)", "timed",   "b.run(0,rows=64)", "timed",  // round 1: a first
      "b.run(0,rows=64)", "timed",   "a.run(0,default)", "timed",  // round 2: b first
  };
  EXPECT_EQ(log_, want);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].name, "a");
  EXPECT_EQ(r[0].input_sets, 2);
  EXPECT_EQ(r[1].input_sets, 1);
  ASSERT_TRUE(r[0].check && r[1].check);
  EXPECT_TRUE(r[0].check->ok);
  EXPECT_FALSE(r[1].check->ok);
  EXPECT_EQ(r[1].check->detail, "3 bytes differ");
  EXPECT_EQ(r[1].tuning.at("rows"), "64");
  // Timed launches 3..6 go a, b, b, a: a got 3 and 6 ms, b 4 and 5.
  EXPECT_DOUBLE_EQ(r[0].milliseconds.median, 4.5);
  EXPECT_DOUBLE_EQ(r[1].milliseconds.median, 4.5);
  EXPECT_EQ(r[0].milliseconds.count, 2u);
  EXPECT_FALSE(r[0].roofline);
}

// graph_replays: after its warm-up, each contender's run on each input set is captured once; a
// timed sample replays graph_replays of them, rotating the sets, and counts per replay.
TEST_F(RunContenders, GraphReplaysAreCapturedOncePerSetAndTimedPerReplay) {
  std::vector<Contender> cs;
  cs.push_back({"a", std::make_unique<FakePlan>("a", 100 << 20, true), {}});  // 2 sets at 60 MiB
  FakeTimer timer;
  RunOptions o{.reps = 2, .warmup = 1, .graph_replays = 3, .l2_bytes = 60u << 20};
  std::vector<ContenderResult> const r = run_contenders(cs, o, timer);
  std::vector<std::string> const want = {
      "a.prepare(2,1)",   "a.check",          "a.run(0,default)", "timed",  // warm-up, direct
      "capture",          "capture",                                        // sets 0 and 1
      "a.run(0,default)", "a.run(1,default)", "a.run(0,default)", "timed",  // round 1
      "a.run(1,default)", "a.run(0,default)", "a.run(1,default)", "timed",  // round 2
  };
  EXPECT_EQ(log_, want);
  // The timed samples took 2 and 3 ms for three replays each.
  EXPECT_DOUBLE_EQ(r[0].milliseconds.median, 2.5 / 3);
}

TEST_F(RunContenders, GraphReplaysOutOfRangeAreRefused) {
  std::vector<Contender> cs = two_contenders();
  FakeTimer timer;
  RunOptions o{.graph_replays = -1};
  EXPECT_THROW(run_contenders(cs, o, timer), std::invalid_argument);
}

TEST_F(RunContenders, RooflineAgainstTheCeilingsAndNoCheckWhenNotAsked) {
  std::vector<Contender> cs = two_contenders();
  FakeTimer timer;
  RunOptions o{.reps = 1,
               .warmup = 0,
               .check = false,
               .ceilings = Ceilings{.flops_per_s = 1e15, .bytes_per_s = 4e12}};
  std::vector<ContenderResult> const r = run_contenders(cs, o, timer);
  EXPECT_FALSE(r[0].check);
  ASSERT_TRUE(r[0].roofline);
  // 4e9 bytes at 4e12 B/s: 1 ms bound; a's one run took 1 ms, b's 2 ms.
  EXPECT_EQ(r[0].roofline->bound, Bound::Memory);
  EXPECT_DOUBLE_EQ(r[0].roofline->fraction_of_bound, 1.0);
  EXPECT_DOUBLE_EQ(r[1].roofline->fraction_of_bound, 0.5);
}

TEST_F(RunContenders, SustainedRunsBackToBackFirst) {
  std::vector<Contender> cs = two_contenders();
  FakeTimer timer;
  RunOptions o{
      .reps = 1, .warmup = 0, .regime = Regime::Sustained, .sustain_seconds = 2, .check = false};
  run_contenders(cs, o, timer);
  // The clock reads 0 at the start (until = 2), 1 before the first round, 2 before the second:
  // one untimed round, then the timed one. Without an L2 size, one input set each.
  std::vector<std::string> const want = {
      "a.prepare(1,1)",   "b.prepare(1,1)",    //
      "a.run(0,default)", "b.run(0,rows=64)",  // untimed
      "a.run(0,default)", "timed",
      "b.run(0,rows=64)", "timed",  // timed
  };
  EXPECT_EQ(log_, want);
  EXPECT_EQ(to_string(Regime::Sustained), "sustained");
}

// NVTX ranges change nothing in what runs (without a tool attached they are no-ops).
TEST_F(RunContenders, NvtxRangesLeaveTheWorkAlone) {
  std::vector<Contender> cs = two_contenders();
  FakeTimer timer;
  run_contenders(cs, {.reps = 2, .warmup = 1, .l2_bytes = 60u << 20, .seed = 7}, timer);
  std::vector<std::string> const without = log_;
  log_.clear();
  std::vector<Contender> again = two_contenders();
  FakeTimer timer2;
  run_contenders(again, {.reps = 2, .warmup = 1, .nvtx = true, .l2_bytes = 60u << 20, .seed = 7},
                 timer2);
  EXPECT_EQ(log_, without);
}

TEST_F(RunContenders, RejectsNothingToMeasureAndBadCounts) {
  FakeTimer timer;
  std::vector<Contender> none;
  EXPECT_THROW(run_contenders(none, {}, timer), std::invalid_argument);
  std::vector<Contender> cs = two_contenders();
  EXPECT_THROW(run_contenders(cs, {.reps = 0}, timer), std::invalid_argument);
  EXPECT_THROW(run_contenders(cs, {.warmup = -1}, timer), std::invalid_argument);
}

TEST(TuningToString, DefaultAndKnobs) {
  EXPECT_EQ(to_string(Tuning{}), "default");
  EXPECT_EQ(to_string(Tuning{{"stages", "4"}, {"rows", "128"}}), "rows=128 stages=4");
}

}  // namespace
}  // namespace warploom::harness
