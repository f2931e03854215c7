// src/harness/statistics.cpp
#include "warploom/harness/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace warploom::harness {
namespace {

std::vector<double> sorted_checked(std::span<double const> samples) {
  if (samples.empty()) throw std::invalid_argument("samples: no timed runs to summarize");
  for (double s : samples) {
    if (!std::isfinite(s))
      throw std::invalid_argument("samples: a timed run is not finite (" + std::to_string(s) + ")");
  }
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  return v;
}

double quantile_of_sorted(std::vector<double> const& v, double q) {
  double const pos = q * static_cast<double>(v.size() - 1);
  auto const lo = static_cast<std::size_t>(pos);
  std::size_t const hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace

double quantile(std::span<double const> samples, double q) {
  if (!(q >= 0.0 && q <= 1.0))
    throw std::invalid_argument("q = " + std::to_string(q) + " must lie in [0, 1]");
  return quantile_of_sorted(sorted_checked(samples), q);
}

Summary summarize(std::span<double const> samples) {
  std::vector<double> const v = sorted_checked(samples);
  Summary s;
  s.count = v.size();
  s.median = quantile_of_sorted(v, 0.5);
  s.p10 = quantile_of_sorted(v, 0.1);
  s.p90 = quantile_of_sorted(v, 0.9);
  s.min = v.front();
  s.max = v.back();
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  if (v.size() > 1) {
    double sq = 0.0;
    for (double x : v) sq += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(sq / static_cast<double>(v.size() - 1));
  }
  return s;
}

}  // namespace warploom::harness
