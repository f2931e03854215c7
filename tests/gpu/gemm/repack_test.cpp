// tests/gpu/gemm/repack_test.cpp
//
// Auto on operands only TMA's 16-byte rules keep from the tensor cores (src/gemm/repack.hpp): A, B
// and D with leading dimensions of no whole 16 bytes (contiguous tensors of odd widths), base
// pointers off 16-byte alignment, batches with such strides and a broadcast B, C read with beta, D
// either way, fp8 operands that are not K-major (copied transposed), against the float64
// reference (the tolerance of the kernel that ran: gemm_check.cpp asks repacks()); the padding of D
// stays poisoned (the copy back writes the matrix only); a captured graph replays the copies and
// the GEMM. Each problem is past the 2^26 multiply-adds from which gemm() copies rather than run
// the SIMT GEMM.
#include <gtest/gtest.h>

#include "gemm_check.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/gemm.hpp"

namespace warploom::gemm::testing {
namespace {

constexpr MatrixLayout kRow = MatrixLayout::RowMajor;
constexpr MatrixLayout kCol = MatrixLayout::ColMajor;

TEST(GemmRepack, UnalignedOperandsRunAndMatchTheReference) {
  Problem const cases[] = {
      // The contiguous 3000x5000x700, scaled down: A and B 700 wide (1400-byte rows), D
      // 500 wide (1000-byte rows): all three copied.
      {.m = 300, .n = 500, .k = 700, .align_ld = false},
      // fp16 "tt" with a column-major D, every base 2 bytes off 16, C with beta, D's padding.
      {.in = ScalarType::F16,
       .out = ScalarType::F16,
       .a = kRow,
       .b = kRow,
       .d = kCol,
       .m = 257,
       .n = 263,
       .k = 1029,
       .alpha = 0.5f,
       .beta = 0.75f,
       .pad = 3,
       .align_ld = false,
       .offset = 1},
      // "nn" into fp32 (D aligned: only A and B copied).
      {.out = ScalarType::F32,
       .a = kCol,
       .b = kCol,
       .m = 320,
       .n = 256,
       .k = 1001,
       .align_ld = false},
      // Batches of unaligned strides, B broadcast to all of them.
      {.m = 129, .n = 255, .k = 1025, .batch = 3, .align_ld = false, .broadcast_b = true},
      // fp8 with a column-major A: wgmma reads fp8 K-major only, so A is copied transposed.
      {.in = ScalarType::E4M3,
       .out = ScalarType::BF16,
       .a = kCol,
       .b = kCol,
       .m = 256,
       .n = 512,
       .k = 1024},
      // fp8 with a row-major B of unaligned rows, scales, an fp32 D: B copied transposed.
      {.in = ScalarType::E5M2,
       .out = ScalarType::F32,
       .a = kRow,
       .b = kRow,
       .m = 300,
       .n = 260,
       .k = 1000,
       .align_ld = false,
       .scale_a = 0.5f,
       .scale_b = 2.0f},
      // A 4097-wide output (8194-byte rows; K = 4096 keeps A and B aligned): D alone copied.
      {.m = 64, .n = 4097, .k = 4096, .align_ld = false},
  };
  for (Problem const& p : cases) expect_correct(p);
}

// The copies and the GEMM captured in a graph (a workspace allocation node among them) and
// replayed: D right after every replay.
TEST(GemmRepack, ACapturedGraphReplays) {
  Problem const p{.m = 300, .n = 500, .k = 700, .beta = 1.0f, .align_ld = false};
  ProblemData data(p);
  cudaStream_t stream = nullptr;
  WL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  WL_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  gemm(data.args(), stream);
  WL_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  WL_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    data.poison_d();
    WL_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    WL_CUDA_CHECK(cudaStreamSynchronize(stream));
    EXPECT_EQ(data.check(reference_of(data.args())), "") << "replay " << replay;
  }
  WL_CUDA_CHECK(cudaGraphExecDestroy(exec));
  WL_CUDA_CHECK(cudaGraphDestroy(graph));
  WL_CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace warploom::gemm::testing
