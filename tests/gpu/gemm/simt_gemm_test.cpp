// tests/gpu/gemm/simt_gemm_test.cpp
//
// The SIMT TS GEMM against the float64 reference: every type pair it compiles and every operand
// layout on odd shapes (single elements, 17³, K = 8, partial tiles everywhere, packed leading
// dimensions no TMA accepts, batches with C and padding, 1000³), base pointers off 16-byte
// alignment, the persistent loop under small grids, one large problem, and what GemmKernel::Auto
// sends to it (fp8 in layouts other than A row-major / B column-major, and off TMA's alignment),
// fp8 scales. D's padding (and the elements before its base pointer) must stay poisoned.
#include <gtest/gtest.h>

#include <vector>

#include "gemm_check.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/gemm.hpp"

namespace warploom::gemm::testing {
namespace {

constexpr MatrixLayout kRow = MatrixLayout::RowMajor;
constexpr MatrixLayout kCol = MatrixLayout::ColMajor;

GemmTuning simt(int raster_panel = 8, int max_ctas = 0) {
  return GemmTuning{.raster_panel = raster_panel, .max_ctas = max_ctas, .kernel = GemmKernel::Simt};
}

void expect_simt_correct(Problem const& p, GemmTuning const& tuning = simt()) {
  testing::expect_correct(p, tuning);
}

struct TypePair {
  ScalarType in, out;
};
constexpr TypePair kTypePairs[] = {
    {ScalarType::F16, ScalarType::F16},   {ScalarType::F16, ScalarType::F32},
    {ScalarType::BF16, ScalarType::BF16}, {ScalarType::BF16, ScalarType::F32},
    {ScalarType::F32, ScalarType::F32},   {ScalarType::F64, ScalarType::F64},
    {ScalarType::E4M3, ScalarType::BF16}, {ScalarType::E4M3, ScalarType::F16},
    {ScalarType::E4M3, ScalarType::F32},  {ScalarType::E5M2, ScalarType::BF16},
    {ScalarType::E5M2, ScalarType::F16},  {ScalarType::E5M2, ScalarType::F32},
};

struct Shape {
  int m, n, k, batch;
  float beta;
  int pad;
  bool align_ld;
};

TEST(SimtGemm, EveryTypePairAndLayoutOnOddShapes) {
  std::vector<Shape> const shapes = {
      {1, 1, 1, 1, 0.0f, 0, false},       {17, 17, 17, 1, 0.0f, 0, false},
      {64, 48, 8, 1, 0.0f, 0, false},     {129, 257, 33, 1, 0.0f, 0, false},
      {100, 300, 200, 3, 0.5f, 3, false}, {130, 70, 24, 2, 1.0f, 5, true},
  };
  for (TypePair t : kTypePairs) {
    for (MatrixLayout a : {kRow, kCol}) {
      for (MatrixLayout b : {kRow, kCol}) {
        for (MatrixLayout d : {kRow, kCol}) {
          for (Shape const& s : shapes) {
            expect_simt_correct({.in = t.in,
                                 .out = t.out,
                                 .a = a,
                                 .b = b,
                                 .d = d,
                                 .m = s.m,
                                 .n = s.n,
                                 .k = s.k,
                                 .batch = s.batch,
                                 .beta = s.beta,
                                 .pad = s.pad,
                                 .align_ld = s.align_ld});
          }
        }
      }
    }
  }
}

// Many whole tiles and K tiles, every type pair and operand layout.
TEST(SimtGemm, EveryTypePairAndLayoutAt1000Cubed) {
  for (TypePair t : kTypePairs) {
    for (MatrixLayout a : {kRow, kCol}) {
      for (MatrixLayout b : {kRow, kCol}) {
        expect_simt_correct(
            {.in = t.in, .out = t.out, .a = a, .b = b, .m = 1000, .n = 1000, .k = 1000});
      }
    }
  }
}

// Base pointers one element past 16-byte alignment, packed and padded leading dimensions, alpha and
// beta, batches, column-major C and D.
TEST(SimtGemm, ElementAlignedPointersAlphaBetaAndPadding) {
  for (TypePair t : kTypePairs) {
    expect_simt_correct({.in = t.in,
                         .out = t.out,
                         .a = kCol,
                         .b = kRow,
                         .d = kCol,
                         .m = 300,
                         .n = 260,
                         .k = 333,
                         .batch = 2,
                         .alpha = -0.75f,
                         .beta = 2.0f,
                         .pad = 5,
                         .align_ld = false,
                         .offset = 1});
    expect_simt_correct({.in = t.in,
                         .out = t.out,
                         .m = 77,
                         .n = 129,
                         .k = 1,
                         .alpha = 0.5f,
                         .beta = -1.0f,
                         .align_ld = false,
                         .offset = 3});
  }
}

// Many tiles per CTA: the persistent loop, the raster panels and the pipeline phases across tiles.
TEST(SimtGemm, PersistentLoopAndRasterPanels) {
  Problem const p{.in = ScalarType::F32,
                  .out = ScalarType::F32,
                  .m = 1000,
                  .n = 1500,
                  .k = 520,
                  .batch = 2,
                  .align_ld = false};
  for (GemmTuning t : {simt(1, 0), simt(3, 7), simt(100, 1), simt(8, 2)}) expect_simt_correct(p, t);
}

// fp8 per-tensor scales (each alone, both), alpha and beta, in a layout only the SIMT GEMM runs.
TEST(SimtGemm, Fp8Scales) {
  for (ScalarType in : {ScalarType::E4M3, ScalarType::E5M2}) {
    expect_simt_correct({.in = in,
                         .out = ScalarType::BF16,
                         .a = kCol,
                         .b = kRow,
                         .m = 130,
                         .n = 70,
                         .k = 333,
                         .batch = 2,
                         .alpha = -0.75f,
                         .beta = 2.0f,
                         .align_ld = false,
                         .scale_a = 0.375f,
                         .scale_b = 2.5f});
    expect_simt_correct({.in = in, .out = ScalarType::F32, .k = 40, .scale_a = 4.0f});
    expect_simt_correct({.in = in, .out = ScalarType::F16, .d = kCol, .k = 24, .scale_b = 0.25f});
  }
}

TEST(SimtGemm, LargeProblem) {
  expect_simt_correct({.in = ScalarType::F32,
                       .out = ScalarType::F32,
                       .a = kRow,
                       .b = kCol,
                       .m = 3000,
                       .n = 5000,
                       .k = 700,
                       .align_ld = false});
}

// Auto runs the SIMT GEMM on what the tensor-core GEMM cannot (fp32, fp64, misaligned 16-bit
// operands) and leaves the rest to the tensor cores.
TEST(SimtGemm, AutoRunsWhatTheTensorCoresCannot) {
  std::vector<Problem> const simt_problems = {
      {.in = ScalarType::F16, .out = ScalarType::F16, .m = 33, .n = 40, .k = 17, .align_ld = false},
      {.in = ScalarType::BF16, .out = ScalarType::F32, .m = 64, .n = 64, .k = 64, .offset = 1},
      {.in = ScalarType::F32, .out = ScalarType::F32, .m = 50, .n = 60, .k = 70},
      {.in = ScalarType::F64, .out = ScalarType::F64, .m = 50, .n = 60, .k = 70},
      // fp8: wgmma reads 8-bit operands K-major only (A row-major, B column-major) ...
      {.in = ScalarType::E4M3, .out = ScalarType::BF16, .a = kCol, .m = 64, .n = 64, .k = 64},
      {.in = ScalarType::E5M2, .out = ScalarType::F32, .b = kRow, .m = 64, .n = 64, .k = 64},
      // ... and TMA needs 16-byte leading dimensions: a packed K = 40 is 40 bytes.
      {.in = ScalarType::E4M3,
       .out = ScalarType::F16,
       .m = 33,
       .n = 40,
       .k = 40,
       .align_ld = false,
       .scale_a = 2.0f},
  };
  for (Problem const& p : simt_problems) {
    ProblemData data(p);
    EXPECT_EQ(selected_kernel(data.args()), GemmKernel::Simt) << p.describe();
    expect_simt_correct(p, GemmTuning{});
  }
  ProblemData aligned({.in = ScalarType::BF16, .out = ScalarType::BF16, .k = 64});
  EXPECT_EQ(selected_kernel(aligned.args()), GemmKernel::TensorCore);
  ProblemData fp8_aligned({.in = ScalarType::E5M2, .out = ScalarType::BF16, .k = 48});
  EXPECT_EQ(selected_kernel(fp8_aligned.args()), GemmKernel::TensorCore);
}

}  // namespace
}  // namespace warploom::gemm::testing
