// tests/gpu/gemm/stream_k_test.cpp
//
// Stream-K (TileScheduling::StreamK, kernels/gemm/stream_k_decomposition.hpp) against the float64
// reference: every tile cut along K (fewer tiles than SMs), whole-tile rounds after the stream-K
// ones, partial tiles in M, N and K, C with beta, M- and N-major operands and D either way, batches
// with a broadcast operand, a fused epilogue with every op, fp8 inputs with scales and an fp8 D
// with its amax, narrow tiles, a small grid whose CTAs run many pieces, K of one and three K tiles;
// the same bits on every run; a captured CUDA graph replayed (the flags are zeroed by a memset
// node); and a workspace the caller gives. The refusals are CPU tests
// (tests/cpu/gemm/gemm_args_test.cpp, GemmStreamK); the decomposition's own properties too
// (tests/cpu/gemm/stream_k_test.cpp).
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "gemm_check.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/gemm.hpp"

namespace warploom::gemm::testing {
namespace {

constexpr MatrixLayout kCol = MatrixLayout::ColMajor;

GemmTuning stream_k(int max_ctas = 0, int tile_n = 0) {
  return {.max_ctas = max_ctas, .tile_n = tile_n, .tile_scheduling = TileScheduling::StreamK};
}

TEST(GemmStreamK, ThePiecesAddUpToTheGemm) {
  // 64 tiles of 128 x 256 (fewer than the SMs): every tile cut, 47 K tiles each.
  expect_correct({.m = 1000, .n = 2000, .k = 3000}, stream_k());
  // 576 tiles = 4 waves + 48: 180 tiles in stream-K rounds, then 3 rounds of whole tiles.
  expect_correct({.m = 4096, .n = 4608, .k = 256, .beta = 0.5f}, stream_k());
  // A column-major D (the kernel computes D^T), padded leading dimensions, partial tiles, C and
  // beta, K past a K tile by one.
  expect_correct({.d = kCol, .m = 300, .n = 700, .k = 1025, .alpha = 0.5f, .beta = 0.75f, .pad = 8},
                 stream_k());
  // "nn" (both operands M- or N-major: their TMA boxes step K along the other dimension) with an
  // fp32 D.
  expect_correct({.out = ScalarType::F32, .a = kCol, .b = kCol, .m = 640, .n = 300, .k = 2000},
                 stream_k());
  // Batches (the tiles of all of them cut alike), B broadcast across them.
  expect_correct({.m = 200, .n = 300, .k = 2048, .batch = 3, .broadcast_b = true}, stream_k());
}

TEST(GemmStreamK, TheOwnerRunsTheFusedEpilogue) {
  Problem p{.m = 500, .n = 600, .k = 1500, .beta = 0.5f};
  p.epilogue = EpilogueSpec::every_op(Activation::GELU, Broadcast::PerColumn, ScalarType::BF16);
  expect_correct(p, stream_k());
}

TEST(GemmStreamK, Fp8InputsAndAnFp8D) {
  expect_correct({.in = ScalarType::E4M3,
                  .out = ScalarType::BF16,
                  .m = 256,
                  .n = 512,
                  .k = 4096,
                  .alpha = 2.0f,
                  .scale_a = 0.5f,
                  .scale_b = 1.5f},
                 stream_k());
  // amax over D is the owners' (a piece that writes its partial sums reports nothing).
  expect_correct(
      {.out = ScalarType::E4M3, .m = 384, .n = 512, .k = 2000, .scale_d = 0.25f, .amax_d = true},
      stream_k());
}

TEST(GemmStreamK, NarrowTilesSmallGridsAndShortK) {
  expect_correct({.m = 300, .n = 200, .k = 5000, .beta = 0.25f}, stream_k(0, 128));
  expect_correct({.m = 130, .n = 70, .k = 4000}, stream_k(0, 64));
  // 7 CTAs for 32 tiles: each CTA's share spans several tiles, whole tiles between its pieces.
  expect_correct({.m = 1000, .n = 1000, .k = 2000}, stream_k(7));
  // One K tile (nothing to cut: the persistent walk) and three.
  expect_correct({.m = 1000, .n = 1000, .k = 64}, stream_k());
  expect_correct({.m = 1000, .n = 1000, .k = 130}, stream_k());
}

// A tile's pieces are added in K order: every run gives the same bits.
TEST(GemmStreamK, TheSameBitsOnEveryRun) {
  expect_same_bits_every_run({.m = 1000, .n = 1500, .k = 8192}, stream_k());
}

// Captured once, replayed twice: the workspace is the graph's allocation, its flags zeroed by a
// memset node before each replay's kernel.
TEST(GemmStreamK, ACapturedGraphReplays) {
  expect_captured_graph_replays({.m = 1024, .n = 1024, .k = 3000, .beta = 0.5f}, stream_k());
}

// The caller's workspace (GemmArguments::workspace), of gemm_workspace_bytes, used twice in a row.
TEST(GemmStreamK, ACallersWorkspace) {
  Problem const p{.m = 900, .n = 1100, .k = 2500};
  ProblemData const data(p);
  GemmArguments args = data.args();
  args.workspace_bytes = gemm_workspace_bytes(args, stream_k());
  ASSERT_GT(args.workspace_bytes, 0u);
  warploom::testing::DeviceBuffer workspace(args.workspace_bytes);
  args.workspace = workspace.get();
  for (int run = 0; run < 2; ++run) {
    data.poison_d();
    gemm(args, nullptr, stream_k());
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(data.check(reference_of(data.args()), GemmKernel::TensorCore), "") << "run " << run;
  }
}

}  // namespace
}  // namespace warploom::gemm::testing
