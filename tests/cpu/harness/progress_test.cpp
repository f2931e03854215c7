// tests/cpu/harness/progress_test.cpp — warploom/harness/progress.hpp
#include "warploom/harness/progress.hpp"

#include <chrono>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

namespace warploom::harness {
namespace {

using std::chrono::seconds;

TEST(HumanDuration, SecondsMinutesHours) {
  EXPECT_EQ(human_duration(seconds(0)), "0 s");
  EXPECT_EQ(human_duration(std::chrono::duration<double>(44.6)), "45 s");
  EXPECT_EQ(human_duration(seconds(99)), "99 s");
  EXPECT_EQ(human_duration(seconds(100)), "2 min");
  EXPECT_EQ(human_duration(seconds(89 * 60)), "89 min");
  EXPECT_EQ(human_duration(seconds(80 * 60 + 20 * 60)), "1 h 40 min");
  EXPECT_EQ(human_duration(seconds(-5)), "0 s");
}

TEST(Progress, CountsElapsedAndEstimatesTheRest) {
  auto now = std::chrono::steady_clock::time_point{};
  std::ostringstream out;
  Progress p(out, 4, "shapes", [&] { return now; });
  now += seconds(10);
  p.step("4096x4096x4096");
  now += seconds(30);
  p.step("8192x8192x8192");  // 40 s for 2: about 40 s for the other 2
  now += seconds(20);
  p.step("8192x8192x1024");
  now += seconds(20);
  p.step("1024x8192x8192");
  EXPECT_EQ(out.str(),
            "[1/4 shapes] 4096x4096x4096: 10 s, about 30 s left\n"
            "[2/4 shapes] 8192x8192x8192: 40 s, about 40 s left\n"
            "[3/4 shapes] 8192x8192x1024: 60 s, about 20 s left\n"
            "[4/4 shapes] 1024x8192x8192: 80 s\n");
  EXPECT_EQ(p.done(), 4);
  EXPECT_THROW(p.step("one too many"), std::logic_error);
}

TEST(Progress, RejectsAnEmptyRun) {
  std::ostringstream out;
  EXPECT_THROW(Progress(out, 0, "shapes"), std::invalid_argument);
}

}  // namespace
}  // namespace warploom::harness
