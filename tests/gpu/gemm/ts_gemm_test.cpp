// tests/gpu/gemm/ts_gemm_test.cpp
//
// The sm90 TS GEMM against the float64 reference, in both consumer designs (cooperative and
// ping-pong): every input/output type pair and operand layout on odd shapes (partial tiles in M,
// N and K, K = 8, single elements), batches with C, padded leading dimensions, the tuning knobs,
// and large problems also checked against cuBLAS; fp8 (e4m3, e5m2) inputs in their K-major
// layouts with every output type, per-tensor scales, every cluster shape and large problems.
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "gemm_check.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/gemm.hpp"

namespace warploom::gemm::testing {
namespace {

constexpr MatrixLayout kRow = MatrixLayout::RowMajor;
constexpr MatrixLayout kCol = MatrixLayout::ColMajor;

constexpr ConsumerDesign kDesigns[] = {ConsumerDesign::Cooperative, ConsumerDesign::PingPong};

struct Shape {
  int m, n, k, batch;
  float beta;
};

// The tuning `t` with design `d` at the design's own tile, 128 x 256 cooperative and 128 x 128
// ping-pong: Auto would narrow the cooperative tile on most of these small shapes, and the tile
// every large problem runs must meet their partial tiles too (the narrow tiles' own sweep is
// split_k_test.cpp's GemmTileWidth).
GemmTuning with_design(GemmTuning t, ConsumerDesign d) {
  t.design = d;
  t.tile_n = d == ConsumerDesign::PingPong ? 128 : 256;
  return t;
}

TEST(TsGemm, EveryTypePairAndLayoutOnOddShapes) {
  std::vector<Shape> const shapes = {
      {1, 1, 1, 1, 0.0f},   {17, 17, 17, 1, 0.0f},    {129, 257, 72, 1, 0.0f},
      {64, 48, 8, 1, 0.0f}, {100, 300, 200, 3, 0.5f}, {256, 512, 192, 1, 0.0f},
  };
  for (ConsumerDesign design : kDesigns) {
    SCOPED_TRACE(to_string(design));
    for (ScalarType in : {ScalarType::F16, ScalarType::BF16}) {
      for (ScalarType out : {in, ScalarType::F32}) {
        for (MatrixLayout a : {kRow, kCol}) {
          for (MatrixLayout b : {kRow, kCol}) {
            for (MatrixLayout d : {kRow, kCol}) {
              for (Shape const& s : shapes) {
                expect_correct({in, out, a, b, d, s.m, s.n, s.k, s.batch, 1.0f, s.beta},
                               with_design({}, design));
              }
            }
          }
        }
      }
    }
  }
}

TEST(TsGemm, AlphaBetaAndPaddedLeadingDimensions) {
  for (ConsumerDesign design : kDesigns) {
    SCOPED_TRACE(to_string(design));
    GemmTuning const t = with_design({}, design);
    expect_correct({.in = ScalarType::BF16,
                    .out = ScalarType::BF16,
                    .m = 300,
                    .n = 260,
                    .k = 333,
                    .batch = 2,
                    .alpha = -0.75f,
                    .beta = 2.0f,
                    .pad = 24},
                   t);
    expect_correct({.in = ScalarType::F16,
                    .out = ScalarType::F32,
                    .a = kCol,
                    .b = kRow,
                    .d = kCol,
                    .m = 513,
                    .n = 129,
                    .k = 100,
                    .alpha = 0.5f,
                    .beta = -1.0f,
                    .pad = 8},
                   t);
    // C 2 bytes past 16-byte alignment: the epilogue reads it element by element, not in 16-byte
    // vectors; N = 260 also clips the last subtile at N (stored by the threads, not TMA).
    expect_correct({.m = 200, .n = 260, .k = 64, .batch = 2, .beta = 1.5f, .c_offset = 1}, t);
  }
}

// Many tiles per CTA: the persistent loop, the raster panels and the pipeline phases across tiles;
// for ping-pong also CTAs with an odd number of tiles (a phantom partner for the last one).
TEST(TsGemm, PersistentLoopAndRasterPanels) {
  Problem const p{.m = 1000, .n = 1500, .k = 520, .batch = 2};
  for (ConsumerDesign design : kDesigns) {
    for (GemmTuning t : {GemmTuning{1, 0}, GemmTuning{3, 7}, GemmTuning{100, 1}, GemmTuning{8, 2},
                         GemmTuning{8, 3}}) {
      SCOPED_TRACE(::testing::Message() << to_string(design) << ", panel " << t.raster_panel
                                        << ", max_ctas " << t.max_ctas);
      expect_correct(p, with_design(t, design));
    }
  }
}

// Every cluster shape: the multicast of B (2x1) or A (1x2) into both CTAs, cluster tiles that
// stick out of the matrix (an odd number of tile rows or columns: one CTA of the last cluster
// computes a tile outside it), several cluster tiles per cluster (max_ctas), batches, and a
// column-major D (which swaps the kernel's M and N, and with them the cluster's).
// Both designs x every cluster shape x grid caps (several cluster tiles per cluster) x the given A
// layouts x row- and column-major D, on shapes whose last cluster tile sticks out of the matrix;
// inputs `in` (K-multiple-of-16 shapes so that fp8 stays on the tensor cores), D bf16.
void expect_every_cluster_shape(ScalarType in, std::vector<MatrixLayout> const& a_layouts) {
  std::vector<Shape> const shapes = {
      {1, 1, 1, 1, 0.0f},
      {129, 257, 72, 1, 0.0f},
      {300, 600, 336, 2, 0.5f},
      {1000, 1500, 520, 1, 0.0f},
  };
  for (ConsumerDesign design : kDesigns) {
    for (auto [cm, cn] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{1, 2}}) {
      for (int max_ctas : {0, 4, 6}) {
        GemmTuning const t{.raster_panel = 2,
                           .max_ctas = max_ctas,
                           .cluster_m = cm,
                           .cluster_n = cn,
                           .design = design,
                           .kernel = GemmKernel::TensorCore};
        for (MatrixLayout a : a_layouts) {
          for (MatrixLayout d : {kRow, kCol}) {
            for (Shape const& s : shapes) {
              SCOPED_TRACE(::testing::Message() << to_string(design) << ", cluster " << cm << "x"
                                                << cn << ", max_ctas " << max_ctas);
              expect_correct(
                  {in, ScalarType::BF16, a, kCol, d, s.m, s.n, s.k, s.batch, 1.0f, s.beta}, t);
            }
          }
        }
      }
    }
  }
}

TEST(TsGemm, EveryClusterShape) {
  expect_every_cluster_shape(ScalarType::BF16, {kRow, kCol});
}

// cuBLAS on the same inputs (fp32 output) must agree with the reference too: a check of the
// check, and of our tolerance against the library users compare us with.
void expect_cublas_agrees(ProblemData const& data) {
  GemmArguments const r = resolved(data.args());
  ASSERT_EQ(r.batch, 1);
  ASSERT_EQ(r.d_layout, kRow);
  // Row-major D = A B is column-major D^T = B^T A^T: cuBLAS computes it with B as the first
  // operand.
  auto const op = [](MatrixLayout l) { return l == kRow ? CUBLAS_OP_N : CUBLAS_OP_T; };
  cudaDataType const t = r.a.type == ScalarType::F16 ? CUDA_R_16F : CUDA_R_16BF;
  warploom::testing::DeviceBuffer out(static_cast<std::size_t>(r.m) * r.n * sizeof(float));
  cublasHandle_t handle;
  ASSERT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
  float const alpha = r.alpha, beta = 0.0f;
  EXPECT_EQ(cublasGemmEx(handle, op(r.b.layout), op(r.a.layout), r.n, r.m, r.k, &alpha, r.b.data, t,
                         static_cast<int>(r.b.ld), r.a.data, t, static_cast<int>(r.a.ld), &beta,
                         out.get(), CUDA_R_32F, r.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  cublasDestroy(handle);
  std::vector<float> got(static_cast<std::size_t>(r.m) * r.n);
  WL_CUDA_CHECK(
      cudaMemcpy(got.data(), out.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<double> const ref = reference_of(data.args());
  double max_rel = 0.0, max_ref = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    max_ref = std::max(max_ref, std::abs(ref[i]));
    max_rel = std::max(max_rel, std::abs(got[i] - ref[i]));
  }
  EXPECT_LE(max_rel / max_ref, tolerance(ScalarType::F32)) << "cuBLAS vs float64";
}

TEST(TsGemm, LargeProblemsMatchFloat64AndCublas) {
  for (Problem const& p :
       {Problem{.in = ScalarType::BF16,
       .out = ScalarType::BF16,
       .a = kRow,
       .b = kRow,
       .m = 3000,
       .n = 5000,
       .k = 700},
        Problem{.in = ScalarType::F16,
        .out = ScalarType::F32,
        .a = kCol,
        .b = kCol,
        .m = 1000,
        .n = 1000,
        .k = 1000},
        Problem{.in = ScalarType::BF16, .out = ScalarType::F32, .m = 2048, .n = 2048, .k = 4096}}) {
    SCOPED_TRACE(p.describe());
    ProblemData data(p);
    for (ConsumerDesign design : kDesigns) {
      SCOPED_TRACE(to_string(design));
      data.poison_d();
      gemm(data.args(), nullptr, with_design({}, design));
      WL_CUDA_CHECK(cudaDeviceSynchronize());
      EXPECT_EQ(data.check(reference_of(data.args())), "");
    }
    expect_cublas_agrees(data);
  }
}

// ---- fp8 ----------------------------------------------------------------------------------------
// fp8 inputs run on the tensor cores with A row-major and B column-major (wgmma reads 8-bit
// operands K-major only); the K tile is 128 elements, so K = 1, 8, 17, 72, 200 are partial K tiles
// that TMA zero-fills. The tests ask for the tensor cores explicitly, so that a fallback to the
// SIMT GEMM cannot pass for them; gemm_check's storage rounds leading dimensions up to 16 bytes (16
// fp8 elements), which TMA needs.

constexpr ScalarType kFp8[] = {ScalarType::E4M3, ScalarType::E5M2};

GemmTuning tensor_cores(GemmTuning t = {}) {
  t.kernel = GemmKernel::TensorCore;
  return t;
}

TEST(TsGemm, Fp8EveryOutputTypeOnOddShapes) {
  std::vector<Shape> const shapes = {
      {1, 1, 1, 1, 0.0f},        {17, 17, 17, 1, 0.0f},    {129, 257, 72, 1, 0.0f},
      {64, 48, 8, 1, 0.0f},      {100, 300, 200, 3, 0.5f}, {256, 512, 192, 1, 0.0f},
      {200, 136, 1000, 1, 0.0f},
  };
  for (ConsumerDesign design : kDesigns) {
    SCOPED_TRACE(to_string(design));
    for (ScalarType in : kFp8) {
      for (ScalarType out : {ScalarType::BF16, ScalarType::F16, ScalarType::F32}) {
        for (MatrixLayout d : {kRow, kCol}) {
          for (Shape const& s : shapes) {
            expect_correct({in, out, kRow, kCol, d, s.m, s.n, s.k, s.batch, 1.0f, s.beta},
                           tensor_cores(with_design({}, design)));
          }
        }
      }
    }
  }
}

// D = alpha * scale_a * scale_b * (A . B) + beta * C with each scale alone (a scale read from the
// wrong pointer, or not at all, is off by its factor), both, alpha and beta, batches, padded
// leading dimensions and a column-major D (which swaps A and B, and their scales).
TEST(TsGemm, Fp8ScalesAlphaBetaBatchAndPadding) {
  std::vector<Problem> const problems = {
      {.in = ScalarType::E4M3,
       .out = ScalarType::BF16,
       .m = 300,
       .n = 260,
       .k = 336,
       .batch = 2,
       .alpha = -0.75f,
       .beta = 2.0f,
       .pad = 32,
       .scale_a = 0.375f,
       .scale_b = 2.5f},
      {.in = ScalarType::E5M2,
       .out = ScalarType::F32,
       .d = kCol,
       .m = 513,
       .n = 129,
       .k = 100,
       .alpha = 0.5f,
       .beta = -1.0f,
       .pad = 16,
       .scale_b = 4.0f},
      {.in = ScalarType::E4M3,
       .out = ScalarType::F16,
       .m = 130,
       .n = 300,
       .k = 160,
       .batch = 3,
       .scale_a = 0.125f},
      {.in = ScalarType::E5M2,
       .out = ScalarType::BF16,
       .d = kCol,
       .m = 257,
       .n = 255,
       .k = 512,
       .batch = 2,
       .beta = 0.5f,
       .scale_a = 3.0f,
       .scale_b = 0.0625f},
  };
  for (ConsumerDesign design : kDesigns) {
    SCOPED_TRACE(to_string(design));
    for (Problem const& p : problems) expect_correct(p, tensor_cores(with_design({}, design)));
  }
}

// Many tiles per CTA and every cluster shape (multicast of the 128-byte-wide fp8 tiles), with
// cluster tiles sticking out of the matrix and a column-major D.
TEST(TsGemm, Fp8PersistentLoopAndEveryClusterShape) {
  expect_every_cluster_shape(ScalarType::E4M3, {kRow});
}

// Large problems through Auto, which must pick the tensor cores for K-major, 16-byte-aligned fp8.
TEST(TsGemm, Fp8LargeProblemsOnTheTensorCores) {
  for (Problem const& p : {Problem{.in = ScalarType::E4M3,
                          .out = ScalarType::BF16,
                          .m = 3000,
                          .n = 5000,
                          .k = 700,
                          .scale_a = 0.5f,
                          .scale_b = 1.5f},
                           Problem{.in = ScalarType::E5M2,
                           .out = ScalarType::F32,
                           .m = 1000,
                           .n = 1000,
                           .k = 1024,
                           .beta = 1.0f,
                           .scale_b = 2.0f},
                           Problem{.in = ScalarType::E4M3,
                           .out = ScalarType::F16,
                           .d = kCol,
                           .m = 2048,
                           .n = 1536,
                           .k = 768}}) {
    ProblemData const data(p);
    EXPECT_EQ(selected_kernel(data.args()), GemmKernel::TensorCore) << p.describe();
    expect_correct(p);
  }
}

}  // namespace
}  // namespace warploom::gemm::testing
