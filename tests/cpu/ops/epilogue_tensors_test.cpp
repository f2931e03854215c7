// tests/cpu/ops/epilogue_tensors_test.cpp
//
// A run's epilogue tensors (ops::EpilogueTensors) mapped onto GemmEpilogue by Gemm::arguments,
// without a GPU: vectors and matrices land in the right fields, they replace the plan's own
// pointers, and every view the epilogue cannot read is refused naming the argument.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "stand_ins.hpp"
#include "warploom/ops/gemm.hpp"
#include "warploom/testing/invalid_argument.hpp"

namespace warploom::ops {
namespace {

using test_support::fake;

using testing::invalid_argument_message;

constexpr auto kBF16 = ScalarType::BF16;
constexpr auto kF32 = ScalarType::F32;
constexpr int kM = 128, kN = 64, kK = 32;

// A Linear layer's plan: bf16, X row-major, W^T column-major, D row-major.
Gemm linear_plan() {
  return Gemm({.element = kBF16,
               .layout_a = MatrixLayout::RowMajor,
               .layout_b = MatrixLayout::ColMajor,
               .layout_d = MatrixLayout::RowMajor,
               .arch = Arch::Sm90});
}

GemmArguments arguments_with(Gemm const& plan, EpilogueTensors const& e) {
  return plan.arguments(row_major(fake(1), kBF16, kM, kK), column_major(fake(2), kBF16, kK, kN), {},
                        row_major(fake(4), kBF16, kM, kN), e);
}

TEST(EpilogueTensors, VectorsAndMatricesLandInTheEpilogue) {
  EpilogueTensors e;
  e.bias = row_major(fake(8), kF32, 1, kN);  // one row of N
  e.row_scale = column_major(fake(9), kF32, kM, 1);
  e.col_scale = row_major(fake(10), kF32, 1, kN);
  e.residual = column_major(fake(11), kBF16, kM, kN);  // its own layout
  e.pre_activation = row_major(fake(12), kBF16, kM, kN);
  GemmEpilogue const g = arguments_with(linear_plan(), e).epilogue;
  EXPECT_EQ(g.bias, fake(8));
  EXPECT_EQ(g.bias_type, kF32);
  EXPECT_EQ(g.bias_broadcast, Broadcast::PerColumn);
  EXPECT_EQ(g.row_scale, fake(9));
  EXPECT_EQ(g.col_scale, fake(10));
  EXPECT_EQ(g.residual.data, fake(11));
  EXPECT_EQ(g.residual.layout, MatrixLayout::ColMajor);
  EXPECT_EQ(g.residual.ld, kM);
  EXPECT_EQ(g.pre_activation.data, fake(12));
  EXPECT_EQ(g.pre_activation.layout, MatrixLayout::RowMajor);
}

TEST(EpilogueTensors, ABiasPerRowInDsType) {
  EpilogueTensors e;
  e.bias = row_major(fake(8), kBF16, 1, kM);
  e.bias_broadcast = Broadcast::PerRow;
  GemmEpilogue const g = arguments_with(linear_plan(), e).epilogue;
  EXPECT_EQ(g.bias, fake(8));
  EXPECT_EQ(g.bias_type, kBF16);
  EXPECT_EQ(g.bias_broadcast, Broadcast::PerRow);
}

TEST(EpilogueTensors, TheyReplaceThePlansPointersAndKeepItsActivation) {
  Gemm plan = linear_plan();
  GemmEpilogue set;
  set.activation = Activation::GELU;
  set.bias = fake(20);
  plan.set_epilogue(set);
  GemmEpilogue const g = arguments_with(plan, EpilogueTensors{}).epilogue;
  EXPECT_EQ(g.bias, nullptr);
  EXPECT_EQ(g.activation, Activation::GELU);
}

TEST(EpilogueTensors, RefusalsNameTheArgument) {
  Gemm const plan = linear_plan();
  auto refusal = [&](EpilogueTensors const& e) {
    return invalid_argument_message([&] { arguments_with(plan, e); });
  };
  EpilogueTensors e;
  e.bias = row_major(fake(8), kF32, 1, kM);  // M values for a per-column bias
  EXPECT_CONTAINS(refusal(e), "argument `bias` has 128 values; the epilogue reads 64");
  e.bias = row_major(fake(8), kF32, 2, kN);
  EXPECT_CONTAINS(refusal(e), "argument `bias` (fp32 2 x 64 (strides 64, 1)) is not a vector");
  e.bias = row_major(fake(8), kF32, 1, 2 * kN);
  e.bias.cols = kN;
  e.bias.col_stride = 2;
  EXPECT_CONTAINS(refusal(e), "is strided: the epilogue reads a contiguous vector");
  e.bias = row_major(fake(8), ScalarType::F16, 1, kN);
  EXPECT_EQ(refusal(e), "Gemm.run: argument `bias` is fp16; the epilogue reads it as fp32 or bf16");
  EXPECT_THROW(arguments_with(plan, e), DtypeError);  // TypeError in Python

  EpilogueTensors s;
  s.row_scale = row_major(fake(9), kBF16, 1, kM);
  EXPECT_EQ(refusal(s), "Gemm.run: argument `row_scale` is bf16; the epilogue reads it as fp32");

  EpilogueTensors r;
  r.residual = row_major(fake(11), kBF16, kM, kN + 1);
  EXPECT_CONTAINS(refusal(r), "argument `residual` is bf16 128 x 65");
  EXPECT_CONTAINS(refusal(r), "it has D's shape");
  r.residual = row_major(fake(11), kF32, kM, kN);
  EXPECT_EQ(refusal(r), "Gemm.run: argument `residual` is fp32; this plan expects bf16");
}

// alpha and beta as one-element fp32 views: device scalars the kernel reads when it runs
// (GemmArguments::alpha_ptr, beta_ptr), in place of run()'s alpha and beta.
TEST(EpilogueTensors, AlphaAndBetaBecomeDeviceScalars) {
  Gemm const plan = linear_plan();
  EpilogueTensors e;
  e.alpha = row_major(fake(30), kF32, 1, 1);
  GemmArguments r = arguments_with(plan, e);
  EXPECT_EQ(r.alpha_ptr, fake(30));
  EXPECT_EQ(r.beta_ptr, nullptr);
  EXPECT_EQ(r.epilogue.bias, nullptr);  // a plain epilogue otherwise
  e.beta = column_major(fake(31), kF32, 1, 1);
  r = plan.arguments(row_major(fake(1), kBF16, kM, kK), column_major(fake(2), kBF16, kK, kN),
                     row_major(fake(3), kBF16, kM, kN), row_major(fake(4), kBF16, kM, kN), e);
  EXPECT_EQ(r.alpha_ptr, fake(30));
  EXPECT_EQ(r.beta_ptr, fake(31));
  EXPECT_EQ(r.c.data, fake(3));
  EXPECT_EQ(EpilogueTensors{}.alpha.data, nullptr);  // empty: the host values
}

TEST(EpilogueTensors, DeviceScalarRefusalsNameTheArgument) {
  Gemm const plan = linear_plan();
  auto refusal = [&](EpilogueTensors const& e, float alpha = 1.0f) {
    return invalid_argument_message([&] {
      plan.arguments(row_major(fake(1), kBF16, kM, kK), column_major(fake(2), kBF16, kK, kN), {},
                     row_major(fake(4), kBF16, kM, kN), e, alpha);
    });
  };
  EpilogueTensors e;
  e.alpha = row_major(fake(30), kF32, 1, 2);
  EXPECT_CONTAINS(refusal(e),
                  "argument `alpha` (fp32 1 x 2 (strides 2, 1)) is not one value: the kernel "
                  "reads alpha as one fp32 value in device memory");
  e.alpha = row_major(fake(30), kBF16, 1, 1);
  EXPECT_EQ(refusal(e), "Gemm.run: argument `alpha` is bf16; the epilogue reads it as fp32");
  e.alpha = row_major(fake(30), kF32, 1, 1);
  EXPECT_CONTAINS(refusal(e, 2.0f), "alpha = 2.000000 and alpha_ptr are both set");
  EpilogueTensors b;
  b.beta = row_major(fake(31), kF32, 1, 1);
  EXPECT_CONTAINS(refusal(b), "c.data is null but beta_ptr is set");
}

}  // namespace
}  // namespace warploom::ops
