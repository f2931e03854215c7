// src/harness/rotation.cpp
#include "warploom/harness/rotation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace warploom::harness {

Rotation plan_rotation(std::size_t bytes_per_set, std::size_t l2_bytes, double factor,
                       int max_sets) {
  if (bytes_per_set == 0) throw std::invalid_argument("bytes_per_set must be positive");
  if (!(factor > 0.0))
    throw std::invalid_argument("factor = " + std::to_string(factor) + " must be positive");
  if (max_sets < 1)
    throw std::invalid_argument("max_sets = " + std::to_string(max_sets) + " must be at least 1");
  double const wanted =
      std::ceil(factor * static_cast<double>(l2_bytes) / static_cast<double>(bytes_per_set));
  Rotation r;
  r.capped = wanted > max_sets;
  r.sets = r.capped ? max_sets : std::max(1, static_cast<int>(wanted));
  r.cycle_bytes = static_cast<std::size_t>(r.sets) * bytes_per_set;
  return r;
}

}  // namespace warploom::harness
