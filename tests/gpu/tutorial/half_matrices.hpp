// tests/gpu/tutorial/half_matrices.hpp — fp16 matrices for tutorial 07's tests: random host data,
// device copies, and bitwise comparison with what the host computes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace tutorial_test {

// Random halves in [-1, 1): the sum of two is exact in float, so rounding it once to half gives
// exactly what __hadd2 computes (IEEE addition, round to nearest even), and so does max(x, 0) for
// __hmax2: the checks are bitwise.
inline std::vector<__half> random_halves(std::size_t n, unsigned seed) {
  std::vector<__half> out(n);
  std::uint32_t state = seed * 2654435761u + 1u;
  for (auto& h : out) {
    state = state * 1664525u + 1013904223u;
    h = __float2half(static_cast<float>(state >> 8) / static_cast<float>(1u << 23) - 1.0f);
  }
  return out;
}

inline void upload(warploom::testing::DeviceBuffer& d, std::vector<__half> const& h) {
  WL_CUDA_CHECK(cudaMemcpy(d.get(), h.data(), h.size() * sizeof(__half), cudaMemcpyHostToDevice));
}

// The first `want.size()` halves of `d` against `want`, bitwise, and the 256 bytes after them
// still poisoned (the kernel wrote nothing past the end).
inline void expect_matrix(warploom::testing::DeviceBuffer const& d, std::vector<__half> const& want,
                          int cols, std::string const& what) {
  std::vector<__half> got(want.size());
  WL_CUDA_CHECK(
      cudaMemcpy(got.data(), d.get(), got.size() * sizeof(__half), cudaMemcpyDeviceToHost));
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (__half_as_ushort(got[i]) != __half_as_ushort(want[i]) && wrong++ == 0) first = i;
  }
  EXPECT_EQ(wrong, 0u) << what << ": first wrong at row " << first / cols << " col "
                       << first % cols;
  EXPECT_TRUE(warploom::testing::compare_with_poison(
                  static_cast<char const*>(d.get()) + want.size() * sizeof(__half), 256)
                  .equal())
      << what << ": the kernel wrote past the end of the output";
}

}  // namespace tutorial_test
