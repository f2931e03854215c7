// tests/gpu/tutorial/half_matrices.hpp — 16-bit matrices for tutorials 06's and 07's tests: random
// host data, device copies, bitwise comparison with what the host computes, and the poisoned guard
// after each output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_bf16.h>
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

// Random bf16 multiples of 1/8 in [-1, 1) (never -0: j / 8 with j = 0 is +0), for the tutorial
// GEMMs: every product of two is a multiple of 1/64 of magnitude at most 1, so every partial sum of
// a row . column (K <= 512: at most 512, 2^15 sixty-fourths) is exact in fp32, and so is adding
// another of them: a kernel's one rounding is D's, to bf16.
inline std::vector<__nv_bfloat16> random_eighths(std::size_t n, unsigned seed) {
  std::vector<__nv_bfloat16> out(n);
  std::uint32_t state = seed * 2654435761u + 1u;
  for (auto& x : out) {
    state = state * 1664525u + 1013904223u;
    int const j = static_cast<int>(state >> 28) - 8;  // [-8, 8)
    x = __float2bfloat16(static_cast<float>(j) / 8.0f);
  }
  return out;
}

// Poisoned bytes after each output: a kernel that writes past its end changes them.
inline constexpr std::size_t kGuardBytes = 256;

template <class T>
void upload(warploom::testing::DeviceBuffer& d, std::vector<T> const& h) {
  WL_CUDA_CHECK(cudaMemcpy(d.get(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
}

template <class T>
std::vector<T> download(warploom::testing::DeviceBuffer const& d, std::size_t n) {
  std::vector<T> h(n);
  WL_CUDA_CHECK(cudaMemcpy(h.data(), d.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// The kGuardBytes after the first `n` elements of `d` still poisoned.
template <class T>
void expect_guard_untouched(warploom::testing::DeviceBuffer const& d, std::size_t n,
                            std::string const& what) {
  EXPECT_TRUE(warploom::testing::compare_with_poison(
                  static_cast<char const*>(d.get()) + n * sizeof(T), kGuardBytes)
                  .equal())
      << what << ": the kernel wrote past the end of the output";
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
  expect_guard_untouched<__half>(d, want.size(), what);
}

}  // namespace tutorial_test
