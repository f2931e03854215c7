// tests/gpu/gemm/gemm_bad_input_test.cpp
//
// The GEMMs on the inputs at the edge of what they accept (issues 13 and 15), against the float64
// reference or exact values: operands broadcast across the batch (batch stride 0) on both kernels,
// M and K at kMaxExtent, a leading dimension of 2^40 elements, D in place over C, and a host
// pointer. The CPU side of every refusal is in tests/cpu/gemm/gemm_args_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "gemm_check.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/gemm.hpp"
#include "warploom/testing/device_buffers.hpp"
#include "warploom/testing/invalid_argument.hpp"

namespace warploom::gemm::testing {
namespace {

using warploom::testing::DeviceBuffer;
using warploom::testing::invalid_argument_message;

constexpr MatrixLayout kRow = MatrixLayout::RowMajor;
constexpr MatrixLayout kCol = MatrixLayout::ColMajor;

bool contains(std::string const& text, std::string const& part) {
  return text.find(part) != std::string::npos;
}

// ---- Batch stride 0 -----------------------------------------------------------------------------
// A, B and C broadcast across 3 batches, alone and together, with row- and column-major D (the
// transposition swaps A and B), both operand majors of A (the TMA descriptor of an M-major A
// holds its batch in another mode), on partial tiles. On the tensor cores the descriptor of a
// broadcast operand holds one batch: reading batch 1 or 2 of it would load zeros.
TEST(GemmBroadcast, AOrBOrCOnEveryKernel) {
  struct Which {
    bool a, b, c;
  };
  for (Runner const& r : runners()) {
    SCOPED_TRACE(r.name);
    for (Which w : {Which{true, false, false}, Which{false, true, false}, Which{false, false, true},
                    Which{true, true, true}}) {
      for (MatrixLayout a : {kRow, kCol}) {
        for (MatrixLayout d : {kRow, kCol}) {
          expect_correct({.in = ScalarType::BF16,
                          .out = ScalarType::BF16,
                          .a = a,
                          .b = kCol,
                          .d = d,
                          .m = 129,
                          .n = 200,
                          .k = 72,
                          .batch = 3,
                          .beta = w.c ? 0.5f : 0.0f,
                          .broadcast_a = w.a,
                          .broadcast_b = w.b,
                          .broadcast_c = w.c},
                         r.tuning);
        }
      }
    }
  }
}

// fp8 on the tensor cores (its own instances, K tiles of 128 bytes) and a broadcast operand with
// per-tensor scales, beside packed ones.
TEST(GemmBroadcast, Fp8OnTheTensorCores) {
  GemmTuning const tc{.kernel = GemmKernel::TensorCore};
  expect_correct({.in = ScalarType::E4M3,
                  .out = ScalarType::BF16,
                  .m = 200,
                  .n = 136,
                  .k = 256,
                  .batch = 4,
                  .broadcast_b = true},
                 tc);
  expect_correct({.in = ScalarType::E5M2,
                  .out = ScalarType::F32,
                  .d = kCol,
                  .m = 100,
                  .n = 300,
                  .k = 128,
                  .batch = 2,
                  .beta = 1.0f,
                  .scale_a = 0.5f,
                  .broadcast_a = true,
                  .broadcast_c = true},
                 tc);
}

// ---- Extents near 2^31 --------------------------------------------------------------------------
// The largest K gemm() accepts, kMaxExtent, with M = N = 1 on the tensor cores: K coordinates up
// to 2^31 - 1024. (Beyond it gemm_args_test checks the refusal; before the cap, a K within a K
// tile of 2^31 rounded its K-tile count past INT_MAX and D came out 0.) fp8 e4m3: A and B are
// 2 GiB each, and 16.7 M K tiles of 128 take about 5 s on the ping-pong design's single
// warpgroup. All zeros but four products at the first, second, middle and last K, which must all
// arrive (D = 1 + 2 + 4 + 8).
TEST(GemmEdge, KAtKMaxExtentOnTheTensorCores) {
  std::int64_t const k = kMaxExtent;
  DeviceBuffer a(static_cast<std::size_t>(k)), b(static_cast<std::size_t>(k)), d(16);
  WL_CUDA_CHECK(cudaMemset(a.get(), 0, a.bytes()));
  WL_CUDA_CHECK(cudaMemset(b.get(), 0, b.bytes()));
  warploom::testing::poison(d.get(), d.bytes());
  // e4m3: 1.0 = 0x38, 2.0 = 0x40, 4.0 = 0x48, 8.0 = 0x50.
  std::int64_t const at[] = {0, 1, k / 2 + 5, k - 1};
  unsigned char const b_values[] = {0x38, 0x40, 0x48, 0x50};
  unsigned char const one = 0x38;
  for (int i = 0; i < 4; ++i) {
    WL_CUDA_CHECK(cudaMemcpy(a.as<char>() + at[i], &one, 1, cudaMemcpyHostToDevice));
    WL_CUDA_CHECK(cudaMemcpy(b.as<char>() + at[i], &b_values[i], 1, cudaMemcpyHostToDevice));
  }
  GemmArguments args;
  args.m = args.n = 1;
  args.k = static_cast<int>(k);
  args.a = {a.get(), ScalarType::E4M3, kRow};
  args.b = {b.get(), ScalarType::E4M3, kCol};
  args.d = d.get();
  args.d_type = ScalarType::BF16;
  args.ldd = 8;  // 16 bytes: TMA's stride rule
  auto const start = std::chrono::steady_clock::now();
  gemm(args, nullptr, {.design = ConsumerDesign::PingPong, .kernel = GemmKernel::TensorCore});
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  std::chrono::duration<double> const took = std::chrono::steady_clock::now() - start;
  RecordProperty("seconds", std::to_string(took.count()));
  std::printf("K = %lld on the tensor cores: %.2f s\n", static_cast<long long>(k), took.count());
  std::uint16_t out[8];
  WL_CUDA_CHECK(cudaMemcpy(out, d.get(), sizeof(out), cudaMemcpyDeviceToHost));
  EXPECT_EQ(out[0], 0x4170) << "D = bf16 bits " << out[0] << ", expected 15 (0x4170)";
  for (int j = 1; j < 8; ++j) EXPECT_EQ(out[j], 0xFFFF) << "padding column " << j << " written";
}

// The same on the SIMT GEMM: correct by the same argument (its K-tile count is rounded up in 64
// bits, its K offsets stay below 2^31), but 67 M K tiles of 32 on one CTA take minutes. Run it
// with --gtest_also_run_disabled_tests.
TEST(GemmEdge, DISABLED_KAtKMaxExtentOnTheSimtGemm) {
  std::int64_t const k = kMaxExtent;
  DeviceBuffer a(static_cast<std::size_t>(k)), b(static_cast<std::size_t>(k)), d(4);
  WL_CUDA_CHECK(cudaMemset(a.get(), 0, a.bytes()));
  WL_CUDA_CHECK(cudaMemset(b.get(), 0, b.bytes()));
  std::int64_t const at[] = {0, k / 2 + 5, k - 1};
  unsigned char const one = 0x38;
  for (std::int64_t i : at) {
    WL_CUDA_CHECK(cudaMemcpy(a.as<char>() + i, &one, 1, cudaMemcpyHostToDevice));
    WL_CUDA_CHECK(cudaMemcpy(b.as<char>() + i, &one, 1, cudaMemcpyHostToDevice));
  }
  GemmArguments args;
  args.m = args.n = 1;
  args.k = static_cast<int>(k);
  args.a = {a.get(), ScalarType::E4M3, kRow};
  args.b = {b.get(), ScalarType::E4M3, kCol};
  args.d = d.get();
  args.d_type = ScalarType::F32;
  gemm(args, nullptr, {.kernel = GemmKernel::Simt});
  float out = 0.0f;
  WL_CUDA_CHECK(cudaMemcpy(&out, d.get(), sizeof(out), cudaMemcpyDeviceToHost));
  EXPECT_EQ(out, 3.0f);
}

// The first and last `rows` rows of a row-major bf16 matrix (and one in the middle) are all
// `value`; returns "" or the first wrong element.
std::string expect_rows(void const* d, std::int64_t m, std::int64_t n, std::int64_t ld,
                        std::int64_t rows, std::uint16_t value) {
  std::vector<std::uint16_t> host(static_cast<std::size_t>(rows * ld));
  for (std::int64_t first : {std::int64_t{0}, m / 2 + 12345, m - rows}) {
    WL_CUDA_CHECK(cudaMemcpy(host.data(), static_cast<std::uint16_t const*>(d) + first * ld,
                             host.size() * 2, cudaMemcpyDeviceToHost));
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < n; ++j)
        if (host[static_cast<std::size_t>(i * ld + j)] != value)
          return "D(" + std::to_string(first + i) + ", " + std::to_string(j) + ") = bf16 bits " +
                 std::to_string(host[static_cast<std::size_t>(i * ld + j)]);
  }
  return "";
}

// The largest M gemm() accepts, kMaxExtent, on both kernels, with D row-major (tile rows reach
// 2^31 - 1024) and column-major (the kernels see it transposed: tile columns reach it). (Beyond it
// gemm_args_test checks the refusal; before the cap, an M within a tile of 2^31 rounded its tile
// count negative and the launch failed with a raw cudaErrorInvalidValue.) A column-major with
// K = 1 (4 GiB), B 1 x N, D 32 GiB (row-major, N = 8) or 4 GiB (column-major, N = 1); every value
// 3 x 3 = 9, exact in bf16. Bytes past D stay poisoned.
TEST(GemmEdge, MAtKMaxExtentOnBothKernels) {
  std::int64_t const m = kMaxExtent;
  constexpr std::size_t kGuard = 4096;
  // B is 1 x 8, column-major with ld 8: its last element is 7 x 8 elements in (128 bytes in all; a
  // 64-byte B, read past its end, once made this test fail on every kernel).
  DeviceBuffer a(static_cast<std::size_t>(m) * 2), b(128);
  WL_CUDA_CHECK(cudaMemset(a.get(), 0x40, a.bytes()));  // bf16 0x4040 = 3.0
  WL_CUDA_CHECK(cudaMemset(b.get(), 0x40, b.bytes()));
  for (MatrixLayout d_layout : {kRow, kCol}) {
    int const n = d_layout == kRow ? 8 : 1;
    DeviceBuffer d(static_cast<std::size_t>(m) * n * 2 + kGuard);
    GemmArguments args;
    args.m = static_cast<int>(m);
    args.n = n;
    args.k = 1;
    args.a = {a.get(), ScalarType::BF16, kCol};
    args.b = {b.get(), ScalarType::BF16, kCol, 8};
    args.d = d.get();
    args.d_type = ScalarType::BF16;
    args.d_layout = d_layout;
    for (Runner const& r : runners()) {
      SCOPED_TRACE(std::string(r.name) + (d_layout == kRow ? ", D row-major" : ", D column-major"));
      warploom::testing::poison(d.get(), d.bytes());
      gemm(args, nullptr, r.tuning);
      WL_CUDA_CHECK(cudaDeviceSynchronize());
      // Column-major D with N = 1 is one row of M elements as far as memory goes.
      EXPECT_EQ(d_layout == kRow ? expect_rows(d.get(), m, n, n, 1024, 0x4110)
                                 : expect_rows(d.get(), m / 1024, 1024, 1024, 2, 0x4110),
                "");
      std::vector<unsigned char> guard(kGuard);
      WL_CUDA_CHECK(cudaMemcpy(guard.data(), d.as<char>() + (d.bytes() - kGuard), kGuard,
                               cudaMemcpyDeviceToHost));
      EXPECT_TRUE(std::all_of(guard.begin(), guard.end(), [](unsigned char c) {
        return c == 0xFF;
      })) << "bytes past D written";
    }
  }
}

// ---- Leading dimensions of 2^40 elements --------------------------------------------------------
// M = 1 with ld = 2^40: TMA cannot hold the stride (below 2^40 bytes), so the tensor cores refuse
// it by name and Auto runs the SIMT GEMM, which never follows it. Until the check, the descriptor
// was built anyway and the kernel ended the context with an illegal instruction.
TEST(GemmEdge, LeadingDimensionOf2To40) {
  std::int64_t const ld = std::int64_t{1} << 40;
  ProblemData const data(
      {.in = ScalarType::BF16, .out = ScalarType::BF16, .m = 1, .n = 64, .k = 64});
  GemmArguments args = data.args();
  args.a.ld = ld;
  EXPECT_EQ(selected_kernel(args), GemmKernel::Simt);
  EXPECT_TRUE(contains(
      invalid_argument_message([&] { gemm(args, nullptr, {.kernel = GemmKernel::TensorCore}); }),
      "a.ld = 1099511627776 elements of 2 bytes: TMA strides must be below 2^40"));
  std::vector<double> const reference = reference_of(args);
  gemm(args);
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(data.check(reference), "");
}

// ---- Aliasing and host pointers -----------------------------------------------------------------
// D over C in place (c.data == d, the same ld and batch stride) on every kernel: each element of C
// is read before the thread that read it writes D. The refusals of other overlaps are CPU tests.
TEST(GemmAliasing, DInPlaceOverCOnEveryKernel) {
  for (Runner const& r : runners()) {
    SCOPED_TRACE(r.name);
    for (MatrixLayout d : {kRow, kCol}) {
      ProblemData const data({.in = ScalarType::BF16,
                              .out = ScalarType::BF16,
                              .d = d,
                              .m = 129,
                              .n = 200,
                              .k = 72,
                              .batch = 2,
                              .beta = 0.5f});
      GemmArguments args = data.args();
      std::vector<double> const reference = reference_of(args);
      // C's values moved into D's memory, laid out alike: then C is D. Only the matrix's own
      // elements: D's padding (a column-major D's ld is padded to 16 bytes, 136 for 129 rows)
      // must keep its poison, which check() tests (a packed copy once left the end of batch 1
      // poisoned, a strided span of whole lines copied C's padding over D's).
      GemmArguments const laid = resolved(args);
      ASSERT_EQ(laid.c.ld, laid.ldd);
      ASSERT_EQ(laid.c.batch_stride, laid.batch_stride_d);
      std::size_t const lines = static_cast<std::size_t>(d == kRow ? laid.m : laid.n);
      std::size_t const line_bytes = static_cast<std::size_t>(d == kRow ? laid.n : laid.m) * 2;
      std::size_t const pitch = static_cast<std::size_t>(laid.ldd) * 2;
      for (int l = 0; l < laid.batch; ++l) {
        std::size_t const at = static_cast<std::size_t>(l * laid.batch_stride_d) * 2;
        WL_CUDA_CHECK(cudaMemcpy2D(static_cast<char*>(args.d) + at, pitch,
                                   static_cast<char const*>(args.c.data) + at, pitch, line_bytes,
                                   lines, cudaMemcpyDeviceToDevice));
      }
      args.c.data = args.d;
      gemm(args, nullptr, r.tuning);
      WL_CUDA_CHECK(cudaDeviceSynchronize());
      EXPECT_EQ(data.check(reference, r.tuning.kernel), "");
    }
  }
}

// A host (malloc) pointer for an operand: refused by name before the launch, where it used to end
// the context with an illegal address. The context stays usable: a GEMM on device memory follows.
TEST(GemmHostPointer, IsRefusedByName) {
  int device = 0, pageable = 0;
  WL_CUDA_CHECK(cudaGetDevice(&device));
  WL_CUDA_CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
  if (pageable != 0) GTEST_SKIP() << "the device reads pageable host memory (HMM or ATS)";
  ProblemData const data(
      {.in = ScalarType::BF16, .out = ScalarType::BF16, .m = 64, .n = 64, .k = 64});
  std::vector<std::uint16_t> host(64 * 64);
  for (Runner const& r : runners()) {
    SCOPED_TRACE(r.name);
    GemmArguments args = data.args();
    args.b.data = host.data();
    EXPECT_TRUE(
        contains(invalid_argument_message([&] { gemm(args, nullptr, r.tuning); }), "b.data = "))
        << invalid_argument_message([&] { gemm(args, nullptr, r.tuning); });
    EXPECT_TRUE(contains(invalid_argument_message([&] { gemm(args, nullptr, r.tuning); }),
                         "is host memory the device cannot read"));
  }
  std::vector<double> const reference = reference_of(data.args());
  gemm(data.args());
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(data.check(reference), "");
}

// gemm() recorded into a CUDA graph in the default (global) capture mode, on every kernel: the
// pointer checks before the launch must not invalidate the capture, and each replay computes D.
TEST(GemmCapture, GlobalModeGraphOnEveryKernel) {
  ProblemData const data(
      {.in = ScalarType::BF16, .out = ScalarType::BF16, .m = 129, .n = 200, .k = 72});
  std::vector<double> const reference = reference_of(data.args());
  cudaStream_t stream{};
  WL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (Runner const& r : runners()) {
    SCOPED_TRACE(r.name);
    cudaGraph_t graph{};
    WL_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    gemm(data.args(), stream, r.tuning);
    WL_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec{};
    WL_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 2; ++replay) {
      data.poison_d();
      WL_CUDA_CHECK(cudaGraphLaunch(exec, stream));
      WL_CUDA_CHECK(cudaStreamSynchronize(stream));
      EXPECT_EQ(data.check(reference, r.tuning.kernel), "") << "replay " << replay;
    }
    WL_CUDA_CHECK(cudaGraphExecDestroy(exec));
    WL_CUDA_CHECK(cudaGraphDestroy(graph));
  }
  WL_CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace warploom::gemm::testing
