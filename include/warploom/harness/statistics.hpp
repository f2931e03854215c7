// warploom/harness/statistics.hpp
//
// What a benchmark reports of its timed runs: median and spread, never a mean alone (one
// preempted run moves a mean; it does not move a median).
#pragma once

#include <cstddef>
#include <span>

namespace warploom::harness {

struct Summary {
  std::size_t count = 0;
  double median = 0, p10 = 0, p90 = 0;
  double min = 0, max = 0;
  double mean = 0, stddev = 0;  // sample standard deviation (n - 1); 0 for one sample

  // (p90 - p10) / median: how far apart the middle 80 % of the runs lie, relative to the median.
  double relative_spread() const { return (p90 - p10) / median; }
};

// The q-quantile (0 <= q <= 1) of `samples`, linearly interpolated between order statistics
// (numpy's default). Throws std::invalid_argument for no samples, a non-finite sample or q outside
// [0, 1].
double quantile(std::span<double const> samples, double q);

// Median, p10, p90, extremes, mean and standard deviation of `samples`. Throws
// std::invalid_argument for no samples or a non-finite one.
Summary summarize(std::span<double const> samples);

}  // namespace warploom::harness
