// tests/gpu/gemm/device_scalars_test.cpp
//
// alpha and beta in device memory (GemmArguments::alpha_ptr, beta_ptr; cuBLAS's device pointer
// mode) on every kernel, against the float64 reference, which reads the same pointers: each
// scalar alone and both, a device beta of 0 over a poisoned C (the kernel must then not read C,
// as with a host beta of 0), fp8 inputs beside their per-tensor scales, a column-major D, fp32 and
// fp64 on the SIMT GEMM, a fused epilogue; a CUDA graph captured once and replayed with new values;
// and a host address passed as alpha_ptr. The CPU side of every refusal is in
// tests/cpu/gemm/gemm_args_test.cpp (GemmDeviceScalars).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gemm_check.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/gemm.hpp"
#include "warploom/testing/device_buffers.hpp"
#include "warploom/testing/invalid_argument.hpp"

namespace warploom::gemm::testing {
namespace {

constexpr MatrixLayout kRow = MatrixLayout::RowMajor;
constexpr MatrixLayout kCol = MatrixLayout::ColMajor;

// The bytes of C that ProblemData allocated for `p` (packed: no pad, offset or broadcast).
std::size_t c_bytes(Problem const& p) {
  return std::size_t{static_cast<std::size_t>(p.m)} * p.n * p.batch * size_of(p.out);
}

TEST(DeviceScalars, AlphaAndBetaOnEveryKernel) {
  Problem const base{.in = ScalarType::BF16,
                     .out = ScalarType::BF16,
                     .m = 300,
                     .n = 260,
                     .k = 136,
                     .batch = 2,
                     .device_scalars = true};
  struct Values {
    float alpha, beta;
  };
  for (Runner const& r : runners()) {
    SCOPED_TRACE(r.name);
    for (Values v : {Values{-0.75f, 0.0f}, Values{1.0f, 2.0f}, Values{0.5f, -1.5f}}) {
      for (MatrixLayout d : {kRow, kCol}) {
        Problem p = base;
        p.alpha = v.alpha;
        p.beta = v.beta;
        p.d = d;
        expect_correct(p, r.tuning);
      }
    }
  }
}

// *beta_ptr == 0: C is not read (a NaN in C would reach D through 0 * NaN), as for beta == 0.
TEST(DeviceScalars, ADeviceBetaOfZeroDoesNotReadC) {
  for (Runner const& r : runners()) {
    SCOPED_TRACE(r.name);
    Problem const p{.in = ScalarType::BF16,
                    .out = ScalarType::BF16,
                    .m = 129,
                    .n = 200,
                    .k = 72,
                    .alpha = 1.5f,
                    .beta = 0.0f,
                    .device_scalars = true};
    ProblemData const data(p);
    std::vector<double> const reference = reference_of(data.args());
    warploom::testing::poison(const_cast<void*>(data.args().c.data), c_bytes(p));
    gemm(data.args(), nullptr, r.tuning);
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(data.check(reference, r.tuning.kernel), "") << p.describe();
  }
}

TEST(DeviceScalars, Fp8WithScalesFusedEpilogueAndSimtTypes) {
  GemmTuning const tensor_cores{.kernel = GemmKernel::TensorCore};
  GemmTuning const simt{.kernel = GemmKernel::Simt};
  // fp8: alpha_ptr beside scale_a and scale_b (a column-major D swaps the scales, not alpha).
  for (MatrixLayout d : {kRow, kCol}) {
    expect_correct({.in = ScalarType::E4M3,
                    .out = ScalarType::BF16,
                    .d = d,
                    .m = 257,
                    .n = 255,
                    .k = 160,
                    .alpha = -0.5f,
                    .beta = 0.25f,
                    .scale_a = 3.0f,
                    .scale_b = 0.0625f,
                    .device_scalars = true},
                   tensor_cores);
  }
  // A fused epilogue folds alpha into its row factor: a device alpha must reach it.
  Problem fused{.in = ScalarType::BF16,
                .out = ScalarType::BF16,
                .m = 200,
                .n = 136,
                .k = 64,
                .alpha = 0.75f,
                .beta = -0.5f,
                .device_scalars = true};
  fused.epilogue = EpilogueSpec::every_op(Activation::GELU, Broadcast::PerColumn, ScalarType::F32);
  expect_correct(fused, tensor_cores);
  expect_correct(fused, simt);
  // The SIMT GEMM's own types: fp32, and fp64 (alpha widened to double).
  for (ScalarType t : {ScalarType::F32, ScalarType::F64, ScalarType::F16}) {
    expect_correct({.in = t,
                    .out = t,
                    .a = kCol,
                    .b = kRow,
                    .m = 70,
                    .n = 33,
                    .k = 41,
                    .batch = 2,
                    .alpha = 2.0f,
                    .beta = 0.5f,
                    .device_scalars = true},
                   simt);
  }
}

// The point of device scalars: a graph captured once replays with the values they hold at each
// replay (a host alpha is frozen into the captured kernel parameters).
TEST(DeviceScalars, AGraphReplaysWithTheCurrentValues) {
  struct Values {
    float alpha, beta;
  };
  for (Runner const& r : runners()) {
    SCOPED_TRACE(r.name);
    Problem const p{.in = ScalarType::BF16,
                    .out = ScalarType::BF16,
                    .m = 256,
                    .n = 384,
                    .k = 128,
                    .alpha = 1.0f,
                    .beta = 0.0f,
                    .device_scalars = true};
    ProblemData const data(p);
    CapturedGemm const graph(data.args(), r.tuning);
    for (Values v :
         {Values{1.0f, 0.0f}, Values{-2.0f, 0.5f}, Values{0.25f, 0.0f}, Values{0.0f, 1.0f}}) {
      SCOPED_TRACE("alpha " + std::to_string(v.alpha) + " beta " + std::to_string(v.beta));
      data.set_device_scalars(v.alpha, v.beta, graph.stream());
      data.poison_d();
      graph.replay();
      EXPECT_EQ(data.check(reference_of(data.args()), r.tuning.kernel), "");
    }
  }
}

// A host address as alpha_ptr (cuBLAS's default pointer mode takes alpha from the host): refused
// by name before the launch.
TEST(DeviceScalars, AHostAddressIsRefusedByName) {
  int device = 0, pageable = 0;
  WL_CUDA_CHECK(cudaGetDevice(&device));
  WL_CUDA_CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
  if (pageable != 0) GTEST_SKIP() << "the device reads pageable host memory (HMM or ATS)";
  ProblemData const data({.in = ScalarType::BF16,
                          .out = ScalarType::BF16,
                          .m = 64,
                          .n = 64,
                          .k = 64,
                          .device_scalars = true});
  static float host_alpha = 2.0f;
  for (Runner const& r : runners()) {
    SCOPED_TRACE(r.name);
    GemmArguments args = data.args();
    args.alpha_ptr = &host_alpha;
    std::string const what =
        warploom::testing::invalid_argument_message([&] { gemm(args, nullptr, r.tuning); });
    EXPECT_NE(what.find("alpha_ptr = "), std::string::npos) << what;
    EXPECT_NE(what.find("is host memory the device cannot read"), std::string::npos) << what;
    EXPECT_NE(what.find("(a value on the host goes in alpha)"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace warploom::gemm::testing
