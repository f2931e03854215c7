// tests/gpu/tutorial/merge_gemm_test.cpp — tutorial 07's merge GEMM (a ts::Merge of A's ring,
// written through load warps' registers, and B's TMA ring, both read by wgmma) on the GPU:
// D = relu(A . B^T) against a float64 reference, A with a leading dimension past K whose padding
// is NaN, into a poisoned output with a guard after it.
#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include "half_matrices.hpp"
#include "tutorial/merge_gemm.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace tut = warploom::tutorial;
namespace wt = warploom::testing;
using namespace tutorial_test;

namespace {

using Bf16 = __nv_bfloat16;
using Shape = std::tuple<int, int, int, int>;  // m, n, k, lda

class MergeGemm : public ::testing::TestWithParam<Shape> {};

TEST_P(MergeGemm, MultipliesRandomMatricesAndAppliesReluIntoAPoisonedOutput) {
  auto [m, n, k, lda] = GetParam();
  GemmOperands g(m, n, k, lda);  // A's padding NaN: a stray or misstrided load shows in D
  tut::merge_gemm(g.d_a.as<Bf16>(), lda, g.d_b.as<Bf16>(), g.d_d.as<Bf16>(), m, n, k);
  WL_CUDA_CHECK(cudaDeviceSynchronize());

  // D: the float64 dot product, relu'd (expect_gemm): where the product is not positive D must be
  // zero. A wrong tile, a stale stage (a missing proxy fence or a release before the wgmma
  // retired), a swizzle mismatch between the load warp's stores, TMA and wgmma, or a wrong
  // fragment mapping gives errors of the order of the values themselves; so does A's padding
  // (NaN) read.
  expect_gemm(g.d_d, g.a, g.b, m, n, k, g.what() + " d", {.lda = lda, .relu = true});
}

std::string case_name(::testing::TestParamInfo<Shape> const& info) {
  auto [m, n, k, lda] = info.param;
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + "_lda" +
         std::to_string(lda);
}

// A stage holds 3 K steps of 64 (a load warp each), the ring 2 stages. One tile and one K step
// (a stage with two steps past K: A's zeros, B's zero-filled boxes); several tiles in both
// directions and 8 K steps (a lap of the ring and a stage of two steps); 5 steps (two stages, the
// last one short) with A's rows 8 elements apart from 128-byte boundaries (lda = k + 8: a
// 16-byte-aligned row start that is not 128-byte aligned); 2 steps with lda = 200 (rows 400 bytes
// apart) over a wide row of tiles; and 12 steps, whole stages only (two laps of the ring).
INSTANTIATE_TEST_SUITE_P(Shapes, MergeGemm,
                         ::testing::Values(Shape{128, 128, 64, 64}, Shape{256, 384, 512, 512},
                                           Shape{128, 256, 320, 328}, Shape{384, 1024, 128, 200},
                                           Shape{256, 128, 768, 776}),
                         case_name);

}  // namespace
