// tests/gpu/tutorial/fork_gemm_relu_test.cpp — tutorial 07's fork GEMM + ReLU (one TMA read of
// each A tile, a ts::Fork of a wgmma view and a thread view of it) on the GPU: D = A . B^T against
// a float64 reference and R = max(A, 0) bitwise, into poisoned outputs with a guard after each.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include "half_matrices.hpp"
#include "tutorial/fork_gemm_relu.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace tut = warploom::tutorial;
namespace wt = warploom::testing;
using namespace tutorial_test;

namespace {

using Bf16 = __nv_bfloat16;

class ForkGemmRelu : public ::testing::TestWithParam<GemmShape> {};

TEST_P(ForkGemmRelu, MultipliesAndRectifiesRandomMatricesIntoPoisonedOutputs) {
  auto [m, n, k] = GetParam();
  GemmOperands g(m, n, k);
  std::string const what = g.what();
  std::vector<Bf16> const& a = g.a;
  std::size_t const size_a = a.size();
  wt::DeviceBuffer d_r(size_a * sizeof(Bf16) + kGuardBytes);
  wt::poison(d_r.get(), d_r.bytes());
  tut::fork_gemm_relu(g.d_a.as<Bf16>(), g.d_b.as<Bf16>(), g.d_d.as<Bf16>(), d_r.as<Bf16>(), m, n,
                      k);
  WL_CUDA_CHECK(cudaDeviceSynchronize());

  // R: max(a, +0), bitwise (the inputs hold no -0 and no NaN, where max's sign rules would
  // matter).
  std::vector<Bf16> const r = download<Bf16>(d_r, size_a);
  std::size_t wrong_r = 0, first_r = 0;
  for (std::size_t i = 0; i < size_a; ++i) {
    float const x = __bfloat162float(a[i]);
    Bf16 const want = __float2bfloat16(x > 0.0f ? x : 0.0f);
    if (__bfloat16_as_ushort(r[i]) != __bfloat16_as_ushort(want) && wrong_r++ == 0) first_r = i;
  }
  EXPECT_EQ(wrong_r, 0u) << what << " r: first wrong at row " << first_r / k << " col "
                         << first_r % k;
  expect_guard_untouched<Bf16>(d_r, size_a, what + " r");

  // D: the float64 dot product (expect_gemm); a wrong tile, a stale stage or a swizzle mismatch
  // between TMA and wgmma gives errors of the order of the values themselves.
  expect_gemm(g.d_d, a, g.b, m, n, k, what + " d");
}

// One tile and one K step; several tiles in both directions and two laps of the 4-stage ring
// (8 K steps); a K that is no multiple of 4 x 64 (5 steps: a lap and one stage); and a wide row
// of tiles, where one CTA in eight writes R and the others only wait and release.
INSTANTIATE_TEST_SUITE_P(Shapes, ForkGemmRelu,
                         ::testing::Values(GemmShape{128, 128, 64}, GemmShape{256, 384, 512},
                                           GemmShape{128, 256, 320}, GemmShape{384, 1024, 128}),
                         gemm_case_name);

}  // namespace
