// warploom/harness/python_random.hpp
//
// Draws as Python's `random` module makes them, for benchmark inputs a Python notebook defined:
// seed 002's grouped GEMM experiment draws its 50 problems with `random.seed(2023)` and
// `random.choice`, and a C++ benchmark of "the seed's problems" must draw the same ones.
//
// Python's generator is MT19937 (std::mt19937's), seeded from an integer by the reference
// init_by_array over the integer's 32-bit words, least significant first; choice(seq) is
// seq[_randbelow(len(seq))], which takes the top bit_length(n) bits of a 32-bit output and draws
// again while they are n or more (CPython's Lib/random.py and Modules/_randommodule.c).
//
//   harness::PythonRandom random(2023);
//   int const m = sizes[random.below(sizes.size())];   // random.choice(sizes)
#pragma once

#include <cstdint>
#include <random>

namespace warploom::harness {

class PythonRandom {
 public:
  // random.seed(seed) for a non-negative integer below 2^64.
  explicit PythonRandom(std::uint64_t seed);

  // random.getrandbits(bits) for 1 <= bits <= 32.
  std::uint32_t bits(int bits);
  // random._randbelow(n) for 1 <= n < 2^32: what random.choice and random.randrange use.
  std::uint32_t below(std::uint64_t n);

 private:
  std::mt19937 engine_;
};

}  // namespace warploom::harness
