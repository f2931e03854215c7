// tests/gpu/gemm/fp8_output_test.cpp
//
// An fp8 D (e4m3, e5m2) on the tensor cores, against the float64 reference: D = saturate(scale_d *
// z) from 16-bit and fp8 inputs in both designs, a column-major D, partial tiles, batches, and
// amax_d = max |z| (before the scale, as cuBLASLt's AMAX_D_POINTER) set by each call; saturation
// at the formats' largest values; Auto picking the tensor cores. The refusals are CPU tests
// (tests/cpu/gemm/gemm_args_test.cpp, GemmFp8Output).
#include <gtest/gtest.h>

#include "gemm_check.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/gemm.hpp"

namespace warploom::gemm::testing {
namespace {

constexpr MatrixLayout kRow = MatrixLayout::RowMajor;
constexpr MatrixLayout kCol = MatrixLayout::ColMajor;

TEST(Fp8Output, ScaleAndAmaxInBothDesigns) {
  for (ConsumerDesign design : {ConsumerDesign::Cooperative, ConsumerDesign::PingPong}) {
    SCOPED_TRACE(to_string(design));
    GemmTuning const tuning{.design = design, .kernel = GemmKernel::TensorCore};
    for (ScalarType out : {ScalarType::E4M3, ScalarType::E5M2}) {
      for (MatrixLayout d : {kRow, kCol}) {
        // bf16 inputs: |z| up to ~10 at K = 200, scaled into the format's range without
        // saturating.
        expect_correct({.in = ScalarType::BF16,
                        .out = out,
                        .d = d,
                        .m = 300,
                        .n = 272,
                        .k = 200,
                        .batch = 2,
                        .alpha = 0.75f,
                        .scale_d = 8.0f,
                        .amax_d = true},
                       tuning);
      }
    }
    // fp8 inputs with their scales; amax without a D scale, and a scale without amax.
    expect_correct({.in = ScalarType::E4M3,
                    .out = ScalarType::E4M3,
                    .m = 257,
                    .n = 144,
                    .k = 160,
                    .scale_a = 0.5f,
                    .scale_b = 2.0f,
                    .amax_d = true},
                   tuning);
    expect_correct({.in = ScalarType::F16,
                    .out = ScalarType::E4M3,
                    .m = 128,
                    .n = 256,
                    .k = 64,
                    .scale_d = 0.25f},
                   tuning);
  }
}

// Values beyond the format saturate to its largest finite value (448, 57344), never inf or NaN;
// amax still reports the unscaled maximum.
TEST(Fp8Output, SaturatesAtTheLargestFiniteValue) {
  for (ScalarType out : {ScalarType::E4M3, ScalarType::E5M2}) {
    expect_correct({.in = ScalarType::BF16,
                    .out = out,
                    .m = 128,
                    .n = 128,
                    .k = 256,
                    .scale_d = out == ScalarType::E4M3 ? 200.0f : 20000.0f,
                    .amax_d = true},
                   {.kernel = GemmKernel::TensorCore});
  }
}

// Auto runs an fp8 D on the tensor cores (the SIMT GEMM has no fp8 output).
TEST(Fp8Output, AutoPicksTheTensorCores) {
  Problem const p{.in = ScalarType::BF16, .out = ScalarType::E4M3, .m = 200, .n = 96, .k = 64};
  ProblemData const data(p);
  EXPECT_EQ(selected_kernel(data.args()), GemmKernel::TensorCore);
  expect_correct(p);
}

}  // namespace
}  // namespace warploom::gemm::testing
