// tests/gpu/tutorial/half_matrices.hpp — 16-bit matrices for tutorials 04's, 06's and 07's tests:
// random host data, device copies, bitwise comparison with what the host computes, the tutorial
// GEMMs' check against float64, and the poisoned guard after each output.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
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

// A tutorial GEMM test's case: m, n, k.
using GemmShape = std::tuple<int, int, int>;

// Its name in the test list: "MxNxK".
inline std::string gemm_case_name(::testing::TestParamInfo<GemmShape> const& info) {
  auto [m, n, k] = info.param;
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

// The operands of a tutorial GEMM test, D = A . B^T in bf16: A (m x k, its rows lda elements
// apart) and B (n x k) random multiples of 1/8 (random_eighths, seeded by the shape) on the host
// and the device, and D (m x n, packed) on the device, poisoned (0xFFFF: a NaN in bf16, never a
// correct value here) with kGuardBytes after it. A's columns k .. lda - 1 are NaN: a load that
// strays into a row's padding, or a wrong lda, turns its D values into NaN.
struct GemmOperands {
  int m, n, k, lda;
  std::vector<__nv_bfloat16> a, b;
  warploom::testing::DeviceBuffer d_a, d_b, d_d;

  GemmOperands(int m_, int n_, int k_, int lda_ = 0)
      : m(m_),
        n(n_),
        k(k_),
        lda(lda_ == 0 ? k_ : lda_),
        a(random_eighths(std::size_t{1} * m * lda, 7u + m + k)),
        b(random_eighths(std::size_t{1} * n * k, 11u + n + k)),
        d_a(a.size() * sizeof(__nv_bfloat16)),
        d_b(b.size() * sizeof(__nv_bfloat16)),
        d_d(std::size_t{1} * m * n * sizeof(__nv_bfloat16) + kGuardBytes) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (static_cast<int>(i % lda) >= k) a[i] = __ushort_as_bfloat16(0xFFFF);
    upload(d_a, a);
    upload(d_b, b);
    warploom::testing::poison(d_d.get(), d_d.bytes());
  }

  // "m=.. n=.. k=..", and " lda=.." where A is padded: the case, for failure messages.
  std::string what() const {
    return "m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
           (lda != k ? " lda=" + std::to_string(lda) : "");
  }
};

// What a tutorial GEMM computes besides D = A . B^T (bf16, A m x k, B stored n x k), for
// expect_gemm.
struct GemmExpectation {
  int lda = 0;  // A's rows are lda elements apart; 0: k (packed)
  std::vector<__nv_bfloat16> const* residual = nullptr;  // D = A . B^T + R, R m x n packed
  bool relu = false;                                     // D = max(A . B^T, 0)
  // The fp32 additions the bound allows for; 0: one per product after the first, and one for R.
  int additions = 0;
};

// `d` (m x n, downloaded) against the float64 reference of what `e` describes. The products of
// two bf16 are exact in fp32 (8 + 8 significant bits); what may differ from float64 is the fp32
// accumulation of the K products (and R) and D's one rounding to 16 bits:
//  - fp32 accumulation: a sum computed in any order (the wgmma's, a cluster's partial tiles) is
//    off by at most `additions` u sum |terms|, with u = 2^-23 rather than 2^-24 because the tensor
//    cores' accumulation is not guaranteed to round to nearest;
//  - the rounding to bf16 (8 significant bits, to nearest) moves the fp32 value c by at most
//    2^-8 |c| <= 2^-8 (|want| + accumulation error). max(x, 0) moves no two values further apart.
// Inputs in multiples of 1/8 (random_eighths) make the accumulation exact; the bound allows for it
// all the same, and is still far below what a wrong tile, a stale stage, a swizzle mismatch or a
// fragment read by the wrong thread gives: errors of the order of the values themselves. NaN (the
// poison: an element unwritten, or computed from unwritten input) fails too.
inline void expect_gemm(std::vector<__nv_bfloat16> const& d, std::vector<__nv_bfloat16> const& a,
                        std::vector<__nv_bfloat16> const& b, int m, int n, int k,
                        std::string const& what, GemmExpectation const& e = {}) {
  auto value = [](__nv_bfloat16 x) { return static_cast<double>(__bfloat162float(x)); };
  int const lda = e.lda == 0 ? k : e.lda;
  int const additions = e.additions != 0 ? e.additions : k - 1 + (e.residual != nullptr ? 1 : 0);
  std::size_t wrong = 0, first = 0;
  double worst = 0.0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      std::size_t const at = static_cast<std::size_t>(i) * n + j;
      double want = 0.0, magnitude = 0.0;
      for (int kk = 0; kk < k; ++kk) {
        double const product =
            value(a[std::size_t{1} * i * lda + kk]) * value(b[std::size_t{1} * j * k + kk]);
        want += product;
        magnitude += std::fabs(product);
      }
      if (e.residual != nullptr) {
        want += value((*e.residual)[at]);
        magnitude += std::fabs(value((*e.residual)[at]));
      }
      if (e.relu) want = std::fmax(want, 0.0);
      double const accumulation = additions * 0x1p-23 * magnitude;
      double const tolerance = 0x1p-8 * (std::fabs(want) + accumulation) + accumulation;
      double const error = std::fabs(value(d[at]) - want);
      if (!(error <= tolerance) && wrong++ == 0) first = at;
      if (error > worst || std::isnan(error)) worst = error;
    }
  }
  EXPECT_EQ(wrong, 0u) << what << ": first wrong at row " << first / n << " col " << first % n
                       << ", largest error " << worst;
}

// The same for D on the device (m x n, then kGuardBytes of poison), whose guard must be
// untouched.
inline void expect_gemm(warploom::testing::DeviceBuffer const& d,
                        std::vector<__nv_bfloat16> const& a, std::vector<__nv_bfloat16> const& b,
                        int m, int n, int k, std::string const& what,
                        GemmExpectation const& e = {}) {
  std::size_t const size_d = static_cast<std::size_t>(m) * n;
  expect_gemm(download<__nv_bfloat16>(d, size_d), a, b, m, n, k, what, e);
  expect_guard_untouched<__nv_bfloat16>(d, size_d, what);
}

}  // namespace tutorial_test
