// tests/gpu/tutorial/merge_add_test.cpp — tutorial 07's merge add (a ts::Merge group) on the GPU:
// the TS kernel and its hand-written baseline, on random inputs, into a poisoned output.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include "tutorial/merge_add.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace tut = warploom::tutorial;
namespace wt = warploom::testing;

namespace {

using Case = std::tuple<tut::Implementation, int, int>;

class MergeAdd : public ::testing::TestWithParam<Case> {};

// Random halves in [-1, 1): the sum of two is exact in float, so rounding it once to half gives
// exactly what __hadd2 computes (IEEE addition, round to nearest even): the check is bitwise.
std::vector<__half> random_halves(std::size_t n, unsigned seed) {
  std::vector<__half> out(n);
  std::uint32_t state = seed * 2654435761u + 1u;
  for (auto& h : out) {
    state = state * 1664525u + 1013904223u;
    h = __float2half(static_cast<float>(state >> 8) / static_cast<float>(1u << 23) - 1.0f);
  }
  return out;
}

TEST_P(MergeAdd, AddsRandomMatricesIntoPoisonedOutput) {
  auto [impl, rows, cols] = GetParam();
  std::size_t const n = static_cast<std::size_t>(rows) * cols;
  std::size_t const bytes = n * sizeof(__half);
  std::vector<__half> const a = random_halves(n, 1u + rows), b = random_halves(n, 7u + cols);
  wt::DeviceBuffer d_a(bytes), d_b(bytes), d_d(bytes + 256);  // 256 guard bytes stay poisoned
  WL_CUDA_CHECK(cudaMemcpy(d_a.get(), a.data(), bytes, cudaMemcpyHostToDevice));
  WL_CUDA_CHECK(cudaMemcpy(d_b.get(), b.data(), bytes, cudaMemcpyHostToDevice));
  wt::poison(d_d.get(), bytes + 256);
  tut::merge_add(impl, d_a.as<__half>(), d_b.as<__half>(), d_d.as<__half>(), rows, cols);
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<__half> got(n);
  WL_CUDA_CHECK(cudaMemcpy(got.data(), d_d.get(), bytes, cudaMemcpyDeviceToHost));
  std::size_t wrong = 0, first = n;
  for (std::size_t i = 0; i < n; ++i) {
    __half const want = __float2half(__half2float(a[i]) + __half2float(b[i]));
    if (__half_as_ushort(got[i]) != __half_as_ushort(want)) {
      if (wrong++ == 0) first = i;
    }
  }
  EXPECT_EQ(wrong, 0u) << (impl == tut::Implementation::Baseline ? "baseline" : "TS")
                       << " rows=" << rows << " cols=" << cols << ": first wrong at row "
                       << first / cols << " col " << first % cols;
  EXPECT_TRUE(wt::compare_with_poison(static_cast<char*>(d_d.get()) + bytes, 256).equal())
      << "the kernel wrote past the end of the output";
}

std::string case_name(::testing::TestParamInfo<Case> const& info) {
  auto [impl, rows, cols] = info.param;
  return std::string(impl == tut::Implementation::Baseline ? "Baseline" : "TS") + "_" +
         std::to_string(rows) + "x" + std::to_string(cols);
}

// Rows: one, a partial tile (not a multiple of 32), a partial band (not a multiple of 128),
// several bands and many laps of the 4-stage ring; columns one and several 128-wide tiles.
INSTANTIATE_TEST_SUITE_P(Shapes, MergeAdd,
                         ::testing::Combine(::testing::Values(tut::Implementation::TaskScheduled,
                                                              tut::Implementation::Baseline),
                                            ::testing::Values(1, 33, 128, 1000, 4099),
                                            ::testing::Values(128, 384)),
                         case_name);

}  // namespace
