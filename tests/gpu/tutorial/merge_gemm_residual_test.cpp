// tests/gpu/tutorial/merge_gemm_residual_test.cpp — tutorial 07's GEMM + residual (two ts::Merge
// groups: A's and B's rings for the wgmma warpgroup, the fp32 accumulator tile and R's tile for
// the epilogue warpgroup) on the GPU: D = A . B^T + R against a float64 reference, into a
// poisoned output with a guard after it.
#include <cstddef>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include "half_matrices.hpp"
#include "tutorial/merge_gemm_residual.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace tut = warploom::tutorial;
namespace wt = warploom::testing;
using namespace tutorial_test;

namespace {

using Bf16 = __nv_bfloat16;

class MergeGemmResidual : public ::testing::TestWithParam<GemmShape> {};

TEST_P(MergeGemmResidual, MultipliesAndAddsRandomMatricesIntoAPoisonedOutput) {
  auto [m, n, k] = GetParam();
  GemmOperands g(m, n, k);
  std::vector<Bf16> const r = random_eighths(std::size_t{1} * m * n, 13u + m + n);
  wt::DeviceBuffer d_r(r.size() * sizeof(Bf16));
  upload(d_r, r);
  tut::merge_gemm_residual(g.d_a.as<Bf16>(), g.d_b.as<Bf16>(), d_r.as<Bf16>(), g.d_d.as<Bf16>(), m,
                           n, k);
  WL_CUDA_CHECK(cudaDeviceSynchronize());

  // D: the float64 dot product plus R (expect_gemm). The accumulator reaches the epilogue in fp32;
  // a wrong tile, a stale stage, a swizzle mismatch between TMA and wgmma or the epilogue's reads
  // of R, or an epilogue thread reading another MMA thread's fragment gives errors of the order of
  // the values themselves; a bf16 hand-off would round twice and fail too.
  expect_gemm(g.d_d, g.a, g.b, m, n, k, g.what() + " d", {.residual = &r});
}

// One tile and one K step; several tiles in both directions and two laps of the 4-stage ring
// (8 K steps); a K that is no multiple of 4 x 64 (5 steps: a lap and one stage); and a wide row
// of tiles (R's tile at column 896 reads the second half of its last 128 columns).
INSTANTIATE_TEST_SUITE_P(Shapes, MergeGemmResidual,
                         ::testing::Values(GemmShape{128, 128, 64}, GemmShape{256, 384, 512},
                                           GemmShape{128, 256, 320}, GemmShape{384, 1024, 128}),
                         gemm_case_name);

}  // namespace
