// tests/cpu/harness/run_facts_test.cpp — warploom/harness/run_facts.hpp
#include "warploom/harness/run_facts.hpp"

#include <chrono>
#include <cstdlib>
#include <regex>
#include <string>

#include <gtest/gtest.h>

namespace warploom::harness {
namespace {

TEST(RunFacts, TimestampIsUtcIso8601) {
  // 2026-11-29 23:05:09 UTC, 1795993509 s after the epoch.
  std::chrono::system_clock::time_point const t{std::chrono::seconds{1795993509}};
  EXPECT_EQ(utc_timestamp(t), "2026-11-29T23:05:09Z");
  EXPECT_EQ(utc_timestamp(std::chrono::system_clock::time_point{}), "1970-01-01T00:00:00Z");
}

TEST(RunFacts, RecordsCommandCommitAndDate) {
  ::setenv("WARPLOOM_COMMIT", "cf17e07", 1);
  nlohmann::json const f = run_facts("warploom bench gemm --shapes 4096x4096x4096");
  EXPECT_EQ(f.at("command"), "warploom bench gemm --shapes 4096x4096x4096");
  EXPECT_EQ(f.at("commit"), "cf17e07");
  EXPECT_TRUE(std::regex_match(f.at("date").get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  // nvidia-smi's line where there is one: six comma-separated fields.
  if (f.contains("gpu_state")) {
    EXPECT_TRUE(
        std::regex_search(f.at("gpu_state").get<std::string>(), std::regex(R"(MHz.*,.*W)")));
  }
  ::unsetenv("WARPLOOM_COMMIT");
  EXPECT_EQ(run_facts("x").at("commit"), "unknown");
}

}  // namespace
}  // namespace warploom::harness
