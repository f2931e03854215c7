// tests/gpu/tutorial/fork_relu_test.cpp — tutorial 07's fork relu (a ts::Fork of two views of one
// buffer) on the GPU: the TS kernel and its hand-written baseline, on random input, into poisoned
// outputs.
#include <string>
#include <tuple>
#include <vector>

#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include "half_matrices.hpp"
#include "tutorial/fork_relu.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace tut = warploom::tutorial;
namespace wt = warploom::testing;
using namespace tutorial_test;

namespace {

using Case = std::tuple<tut::Implementation, int, int>;

class ForkRelu : public ::testing::TestWithParam<Case> {};

TEST_P(ForkRelu, CopiesAndRectifiesRandomMatrixIntoPoisonedOutputs) {
  auto [impl, rows, cols] = GetParam();
  std::size_t const n = static_cast<std::size_t>(rows) * cols;
  std::vector<__half> const x = random_halves(n, 3u + rows + cols);
  std::vector<__half> relu(n);
  for (std::size_t i = 0; i < n; ++i)
    relu[i] = __float2half(__half2float(x[i]) > 0.0f ? __half2float(x[i]) : 0.0f);
  wt::DeviceBuffer d_x(n * sizeof(__half));
  wt::DeviceBuffer d_d(n * sizeof(__half) + kGuardBytes),
      d_r(n * sizeof(__half) + kGuardBytes);  // guards
  upload(d_x, x);
  wt::poison(d_d.get(), d_d.bytes());
  wt::poison(d_r.get(), d_r.bytes());
  tut::fork_relu(impl, d_x.as<__half>(), d_d.as<__half>(), d_r.as<__half>(), rows, cols);
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  std::string const what = std::string(impl == tut::Implementation::Baseline ? "baseline" : "TS") +
                           " rows=" + std::to_string(rows) + " cols=" + std::to_string(cols);
  expect_matrix(d_d, x, cols, what + " d");
  expect_matrix(d_r, relu, cols, what + " r");
}

std::string case_name(::testing::TestParamInfo<Case> const& info) {
  auto [impl, rows, cols] = info.param;
  return std::string(impl == tut::Implementation::Baseline ? "Baseline" : "TS") + "_" +
         std::to_string(rows) + "x" + std::to_string(cols);
}

// Rows: one, a partial tile (not a multiple of 64), a partial band (not a multiple of 256),
// several bands and many laps of the 4-stage ring; columns one and several 128-wide tiles.
INSTANTIATE_TEST_SUITE_P(Shapes, ForkRelu,
                         ::testing::Combine(::testing::Values(tut::Implementation::TaskScheduled,
                                                              tut::Implementation::Baseline),
                                            ::testing::Values(1, 65, 256, 1000, 4099),
                                            ::testing::Values(128, 384)),
                         case_name);

}  // namespace
