// tests/gpu/tutorial/merge_add_test.cpp — tutorial 07's merge add (a ts::Merge group) on the GPU:
// the TS kernel and its hand-written baseline, on random inputs, into a poisoned output.
#include <string>
#include <tuple>
#include <vector>

#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include "half_matrices.hpp"
#include "tutorial/merge_add.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace tut = warploom::tutorial;
namespace wt = warploom::testing;
using namespace tutorial_test;

namespace {

using Case = std::tuple<tut::Implementation, int, int>;

class MergeAdd : public ::testing::TestWithParam<Case> {};

TEST_P(MergeAdd, AddsRandomMatricesIntoPoisonedOutput) {
  auto [impl, rows, cols] = GetParam();
  std::size_t const n = static_cast<std::size_t>(rows) * cols;
  std::vector<__half> const a = random_halves(n, 1u + rows), b = random_halves(n, 7u + cols);
  std::vector<__half> want(n);
  for (std::size_t i = 0; i < n; ++i)
    want[i] = __float2half(__half2float(a[i]) + __half2float(b[i]));
  wt::DeviceBuffer d_a(n * sizeof(__half)), d_b(n * sizeof(__half));
  wt::DeviceBuffer d_d(n * sizeof(__half) + kGuardBytes);  // the guard stays poisoned
  upload(d_a, a);
  upload(d_b, b);
  wt::poison(d_d.get(), d_d.bytes());
  tut::merge_add(impl, d_a.as<__half>(), d_b.as<__half>(), d_d.as<__half>(), rows, cols);
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  expect_matrix(d_d, want, cols,
                std::string(impl == tut::Implementation::Baseline ? "baseline" : "TS") +
                    " rows=" + std::to_string(rows) + " cols=" + std::to_string(cols));
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
