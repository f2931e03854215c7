// tests/cpu/harness/python_random_test.cpp — harness::PythonRandom draws what CPython 3.11 draws.
#include <gtest/gtest.h>

#include <array>
#include <stdexcept>
#include <vector>

#include "warploom/harness/python_random.hpp"

namespace warploom::harness {
namespace {

// Seed 002's grouped GEMM experiment, its first six problems, as CPython prints them:
//   random.seed(2023); sizes = [128, 256, 512, 1024]
//   [tuple(random.choice(sizes) for _ in range(3)) for _ in range(50)][:6]
TEST(PythonRandom, DrawsTheSeedsGroupedProblems) {
  std::array<int, 4> const sizes = {128, 256, 512, 1024};
  std::vector<std::array<int, 3>> const expected = {{1024, 1024, 1024}, {512, 512, 128},
                                                    {128, 512, 512},    {256, 256, 256},
                                                    {128, 256, 512},    {128, 256, 128}};
  PythonRandom random(2023);
  for (auto const& want : expected) {
    std::array<int, 3> got{};
    for (int& x : got) x = sizes[random.below(sizes.size())];
    EXPECT_EQ(got, want);
  }
}

// random.seed(0); [random.getrandbits(32) for _ in range(3)] and random.seed(2**40 + 5);
// random.getrandbits(32): a seed of two 32-bit words.
TEST(PythonRandom, GetrandbitsMatchesCPython) {
  PythonRandom zero(0);
  EXPECT_EQ(zero.bits(32), 3626764237u);
  EXPECT_EQ(zero.bits(32), 1654615998u);
  EXPECT_EQ(zero.bits(32), 3255389356u);
  PythonRandom wide((std::uint64_t{1} << 40) + 5);
  EXPECT_EQ(wide.bits(32), 2166296868u);
}

TEST(PythonRandom, RefusesOutOfRangeArguments) {
  PythonRandom random(1);
  EXPECT_THROW(random.bits(0), std::invalid_argument);
  EXPECT_THROW(random.bits(33), std::invalid_argument);
  EXPECT_THROW(random.below(0), std::invalid_argument);
  EXPECT_THROW(random.below(std::uint64_t{1} << 32), std::invalid_argument);
}

}  // namespace
}  // namespace warploom::harness
