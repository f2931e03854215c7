// bench/seed_problems.hpp
//
// Seed 002's grouped GEMM experiment: `count` problems whose M, N and K are each drawn from
// {128, 256, ..., max_size} (powers of two) as the notebook draws them,
//
//   random.seed(2023); [tuple(random.choice(sizes) for _ in range(3)) for _ in range(count)]
//
// so that every C++ benchmark of "the seed's problems" times the same ones (50 of at most 1024:
// the notebook's exactly).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "warploom/harness/python_random.hpp"

namespace warploom::bench {

inline std::vector<std::array<int, 3>> seed_problem_extents(std::int64_t count, int max_size) {
  std::vector<int> sizes;
  for (int s = 128; s <= max_size; s *= 2) sizes.push_back(s);
  harness::PythonRandom random(2023);
  std::vector<std::array<int, 3>> extents(static_cast<std::size_t>(count));
  for (std::array<int, 3>& mnk : extents)
    for (int& e : mnk) e = sizes[random.below(sizes.size())];
  return extents;
}

}  // namespace warploom::bench
