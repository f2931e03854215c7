// tests/cpu/harness/statistics_test.cpp — warploom/harness/statistics.hpp
#include "warploom/harness/statistics.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace warploom::harness {
namespace {

TEST(Quantile, InterpolatesBetweenOrderStatistics) {
  std::vector<double> const v = {4.0, 1.0, 3.0, 2.0};  // unsorted on purpose
  EXPECT_DOUBLE_EQ(quantile(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(v, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(quantile(v, 0.5), 2.5);  // between 2 and 3
  EXPECT_DOUBLE_EQ(quantile(v, 0.1), 1.3);  // position 0.3
  EXPECT_DOUBLE_EQ(quantile(std::vector<double>{7.0}, 0.9), 7.0);
}

TEST(Quantile, RejectsBadInput) {
  std::vector<double> const v = {1.0, 2.0};
  EXPECT_THROW(quantile(v, -0.1), std::invalid_argument);
  EXPECT_THROW(quantile(v, 1.5), std::invalid_argument);
  EXPECT_THROW(quantile(v, std::nan("")), std::invalid_argument);
  EXPECT_THROW(quantile(std::vector<double>{}, 0.5), std::invalid_argument);
}

TEST(Summarize, MedianSpreadAndMoments) {
  std::vector<double> v;
  for (int i = 1; i <= 11; ++i) v.push_back(i);  // 1..11
  v.push_back(1000.0);                           // one preempted run
  Summary const s = summarize(v);
  EXPECT_EQ(s.count, 12u);
  EXPECT_DOUBLE_EQ(s.median, 6.5);  // the outlier moves it by half a step only
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 1000.0);
  EXPECT_DOUBLE_EQ(s.p10, 2.1);   // position 1.1
  EXPECT_DOUBLE_EQ(s.p90, 10.9);  // position 9.9
  EXPECT_DOUBLE_EQ(s.mean, (66.0 + 1000.0) / 12.0);
  double sq = 0.0;
  for (double x : v) sq += (x - s.mean) * (x - s.mean);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(sq / 11.0));
  EXPECT_DOUBLE_EQ(s.relative_spread(), (10.9 - 2.1) / 6.5);
}

TEST(Summarize, OneSampleHasNoSpread) {
  Summary const s = summarize(std::vector<double>{0.25});
  EXPECT_EQ(s.count, 1u);
  EXPECT_DOUBLE_EQ(s.median, 0.25);
  EXPECT_DOUBLE_EQ(s.p10, 0.25);
  EXPECT_DOUBLE_EQ(s.stddev, 0.0);
  EXPECT_DOUBLE_EQ(s.relative_spread(), 0.0);
}

TEST(Summarize, RejectsNoSamplesAndNonFiniteOnes) {
  EXPECT_THROW(summarize(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(summarize(std::vector<double>{1.0, std::numeric_limits<double>::infinity()}),
               std::invalid_argument);
  EXPECT_THROW(summarize(std::vector<double>{std::nan(""), 1.0}), std::invalid_argument);
}

}  // namespace
}  // namespace warploom::harness
