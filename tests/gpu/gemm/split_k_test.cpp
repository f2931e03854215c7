// tests/gpu/gemm/split_k_test.cpp
//
// Split-K (GemmTuning::split_k, src/gemm/split_k.hpp) against the float64 reference: slices of K
// that divide it and that do not (the last slice shorter, partial K tiles), every operand layout
// and D either way, C with beta, fp32 and fp16 D, fp8 inputs with their scales; Auto on a small
// output with a long K, and a small M's split on D^T; the same bits on every run; a captured CUDA
// graph (the workspace becomes an allocation node) replayed; the slices adding themselves up and a
// reduction kernel adding them, bit for bit. And the narrow tiles such outputs take
// (GemmTuning::tile_n), alone, split, in a cluster, in other layouts, and as Auto picks them. The
// refusals are CPU tests (tests/cpu/gemm/gemm_args_test.cpp, GemmSplitK and GemmTileWidth).
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "gemm_check.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/gemm.hpp"

namespace warploom::gemm::testing {
namespace {

constexpr MatrixLayout kRow = MatrixLayout::RowMajor;
constexpr MatrixLayout kCol = MatrixLayout::ColMajor;

GemmTuning split(int slices) {
  return {.kernel = GemmKernel::TensorCore, .split_k = slices};
}

// K = 3000 in 7: slices of 448 (7 K tiles), the last 312 (a partial tile, a second launch); C with
// beta, partial tiles in M and N, fp16 "tt", D column-major.
Problem const kUnevenSlices{.in = ScalarType::F16,
                            .out = ScalarType::F16,
                            .a = kRow,
                            .b = kRow,
                            .d = kCol,
                            .m = 130,
                            .n = 70,
                            .k = 3000,
                            .alpha = 0.5f,
                            .beta = 0.75f,
                            .pad = 8};

TEST(GemmSplitK, TheSlicesAddUpToTheGemm) {
  struct Case {
    Problem p;
    int slices;
  };
  Case const cases[] = {
      // Four equal slices of 16 K tiles.
      {{.m = 256, .n = 256, .k = 4096}, 4},
      {kUnevenSlices, 7},
      // "nn" with an fp32 D; more slices asked than K has tiles for: 16 slices of one K tile.
      {{.out = ScalarType::F32, .a = kCol, .b = kCol, .m = 64, .n = 300, .k = 1000}, 32},
      // "nt", K = 65 (two slices: 64 and 1).
      {{.a = kCol, .b = kRow, .m = 100, .n = 200, .k = 65, .beta = 1.0f}, 2},
  };
  for (Case const& c : cases) {
    SCOPED_TRACE("split_k " + std::to_string(c.slices));
    expect_correct(c.p, split(c.slices));
  }
  // fp8 with per-tensor scales (the partial sums carry them; alpha is applied once, after).
  Problem fp8{.in = ScalarType::E4M3,
              .out = ScalarType::BF16,
              .m = 128,
              .n = 256,
              .k = 2048,
              .alpha = 2.0f,
              .scale_a = 0.5f,
              .scale_b = 1.5f};
  expect_correct(fp8, split(3));
}

// Auto splits a small output with a long K (1024 x 512: 32 tiles of 128 x 128 on 132 SMs, in 4
// slices); the answer is the GEMM's.
TEST(GemmSplitK, AutoOnASmallOutputWithALongK) {
  expect_correct({.m = 1024, .n = 512, .k = 16384}, {});
  expect_correct({.m = 64, .n = 4096, .k = 8192, .beta = 0.5f}, {});
}

// D of at most 64 rows and more columns: the slices compute D^T = B^T . A^T (128-row tiles along
// N, 64 wide along M) and the reduction writes its transpose (src/gemm/split_k.hpp). Every operand
// layout and D either way (a column-major D of few columns is the kernel's row-major D^T of few
// rows), C with beta, partial tiles along both, 16-bit and fp32 D; Auto's slices and slices asked
// for; the same bits on every run.
TEST(GemmSplitK, SmallMRunsOnTheTranspose) {
  struct Types {
    ScalarType in, out;
  };
  for (Types const t :
       {Types{ScalarType::BF16, ScalarType::BF16}, Types{ScalarType::F16, ScalarType::F32}}) {
    for (MatrixLayout a : {kRow, kCol}) {
      for (MatrixLayout b : {kRow, kCol}) {
        for (MatrixLayout d : {kRow, kCol}) {
          SCOPED_TRACE(::testing::Message() << to_string(t.in) << " -> " << to_string(t.out));
          // The kernel's D (D^T for a column-major D) has 40 rows: m for a row-major D, n else.
          int const rows = 40, cols = 1000;
          bool const row_d = d == kRow;
          expect_correct({.in = t.in,
                          .out = t.out,
                          .a = a,
                          .b = b,
                          .d = d,
                          .m = row_d ? rows : cols,
                          .n = row_d ? cols : rows,
                          .k = 4160,
                          .alpha = 0.5f,
                          .beta = 0.75f,
                          .pad = 8},
                         {});
        }
      }
    }
  }
  expect_correct({.m = 1, .n = 4096, .k = 8192}, {});
  expect_correct({.m = 64, .n = 200, .k = 3000, .beta = 1.0f}, split(7));
  expect_same_bits_every_run({.m = 48, .n = 3000, .k = 8192}, {});
}

// The cooperative design's 128 x 128 and 128 x 64 tiles (GemmTuning::tile_n): partial tiles in M,
// N and K with C and beta, fp32 D, split along K, a 2x1 cluster (B multicast), fp16 "nt" with a
// column-major D (the width along D's rows), and Auto's choice on the skinny and small outputs it
// narrows (1024 x 16: 64 wide and split; 256 x 4096: 64 wide, 128 tiles, unsplit).
TEST(GemmTileWidth, NarrowTilesComputeTheGemm) {
  for (int width : {128, 64}) {
    SCOPED_TRACE("tile_n " + std::to_string(width));
    GemmTuning const narrow{.tile_n = width, .kernel = GemmKernel::TensorCore};
    expect_correct({.m = 300, .n = 200, .k = 1000, .alpha = 0.5f, .beta = 0.75f}, narrow);
    expect_correct({.out = ScalarType::F32, .m = 130, .n = 70, .k = 2048}, narrow);
    GemmTuning split_narrow = narrow;
    split_narrow.split_k = 4;
    expect_correct({.m = 256, .n = 96, .k = 4100, .beta = 1.0f}, split_narrow);
  }
  GemmTuning const clustered{.cluster_m = 2, .tile_n = 64, .kernel = GemmKernel::TensorCore};
  expect_correct({.m = 384, .n = 200, .k = 512}, clustered);
  expect_correct({.in = ScalarType::F16,
                  .out = ScalarType::F16,
                  .a = kCol,
                  .b = kRow,
                  .d = kCol,
                  .m = 100,
                  .n = 300,
                  .k = 700,
                  .pad = 8},
                 {.tile_n = 64, .kernel = GemmKernel::TensorCore});
  expect_correct({.m = 1024, .n = 16, .k = 8192}, {});
  expect_correct({.m = 256, .n = 4096, .k = 1024, .beta = 0.5f}, {});
}

// Each narrow width in every operand layout, D either way, on partial tiles in M, N and K, with
// C: the 16-bit types with D of the input type and fp32 (what TsGemm's sweep does at the designs'
// own tiles, ts_gemm_test.cpp).
TEST(GemmTileWidth, EveryLayoutOnPartialTiles) {
  struct Types {
    ScalarType in, out;
  };
  for (int width : {128, 64}) {
    for (Types const t :
         {Types{ScalarType::BF16, ScalarType::BF16}, Types{ScalarType::F16, ScalarType::F32}}) {
      for (MatrixLayout a : {kRow, kCol}) {
        for (MatrixLayout b : {kRow, kCol}) {
          for (MatrixLayout d : {kRow, kCol}) {
            SCOPED_TRACE(::testing::Message() << "tile_n " << width << ", " << to_string(t.in)
                                              << " -> " << to_string(t.out));
            expect_correct({.in = t.in,
                            .out = t.out,
                            .a = a,
                            .b = b,
                            .d = d,
                            .m = 129,
                            .n = 257,
                            .k = 72,
                            .beta = 0.5f},
                           {.tile_n = width, .kernel = GemmKernel::TensorCore});
          }
        }
      }
    }
  }
}

// The slices are added in one order: every run gives the same bits.
TEST(GemmSplitK, TheSameBitsOnEveryRun) {
  expect_same_bits_every_run({.m = 200, .n = 300, .k = 8192}, split(16));
}

// Captured once, replayed twice: the workspace is the graph's own allocation (and, where the
// slices add themselves up, the counters' memset a node of it).
TEST(GemmSplitK, ACapturedGraphReplays) {
  Problem const p{.m = 256, .n = 128, .k = 6000, .beta = 0.5f};
  expect_captured_graph_replays(p, split(5));
  GemmTuning in_kernel = split(5);
  in_kernel.split_k_reduction = SplitKReduction::InKernel;
  expect_captured_graph_replays(p, in_kernel);
  in_kernel.split_k = 0;
  expect_captured_graph_replays({.m = 32, .n = 2048, .k = 8192}, in_kernel);  // on D^T
}

// Where the slices are added (GemmTuning::split_k_reduction): the slice that finishes a tile last
// adds every slice's partial sums inside the GEMM, or a reduction kernel does after it. Both add
// the same values in the same order: the same bits, on D's own tiles and on D^T's (a small M), with
// equal slices (one launch) and a shorter last one (a second launch counting into the same
// counters), narrow and wide tiles, C with beta, 16-bit and fp32 D, fp8 inputs with their scales.
TEST(GemmSplitK, InKernelAndSeparateReductionsWriteTheSameBits) {
  struct Case {
    Problem p;
    GemmTuning tuning;
  };
  GemmTuning const wide{.tile_n = 256, .kernel = GemmKernel::TensorCore, .split_k = 3};
  Case const cases[] = {
      {{.m = 256, .n = 256, .k = 4096}, split(4)},
      {kUnevenSlices, split(7)},
      {{.out = ScalarType::F32, .m = 300, .n = 200, .k = 5000, .beta = 1.0f}, wide},
      {{.m = 24, .n = 3000, .k = 8192, .alpha = 2.0f, .beta = 0.5f}, {}},
      {{.in = ScalarType::F16, .out = ScalarType::F32, .d = kCol, .m = 1000, .n = 40, .k = 4160},
       split(5)},
      {{.in = ScalarType::E4M3,
        .out = ScalarType::BF16,
        .m = 128,
        .n = 256,
        .k = 2048,
        .alpha = 2.0f,
        .scale_a = 0.5f,
        .scale_b = 1.5f},
       {.design = ConsumerDesign::Cooperative, .kernel = GemmKernel::TensorCore, .split_k = 3}},
  };
  for (Case const& c : cases) {
    SCOPED_TRACE(c.p.describe());
    GemmTuning in_kernel = c.tuning, separate = c.tuning;
    in_kernel.split_k_reduction = SplitKReduction::InKernel;
    separate.split_k_reduction = SplitKReduction::SeparateKernel;
    expect_same_bits_as(c.p, in_kernel, separate);
  }
}

}  // namespace
}  // namespace warploom::gemm::testing
