// tests/cpu/ops/gemm_test.cpp
//
// The GEMM plan (warploom/ops/gemm.hpp) without a GPU: plans made for an explicit architecture;
// how the types and layouts resolve (tensors > per-operand > generic), the operator class, the
// epilogue settings, and every refusal naming its argument and rule.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "device.hpp"
#include "stand_ins.hpp"
#include "warploom/ops/gemm.hpp"
#include "warploom/testing/invalid_argument.hpp"

namespace warploom::ops {
namespace {

using test_support::fake;

using gemm::ConsumerDesign;
using testing::invalid_argument_message;

// A plan for sm_90a, whatever the machine has (CPU tests run without a GPU).
GemmOptions sm90(GemmOptions o) {
  o.arch = Arch::Sm90;
  return o;
}

TEST(GemmPlan, GenericElementAndLayout) {
  Gemm const plan(ScalarType::F16, MatrixLayout::RowMajor, Arch::Sm90);
  GemmTypes const& t = plan.types();
  EXPECT_EQ(t.a, ScalarType::F16);
  EXPECT_EQ(t.b, ScalarType::F16);
  EXPECT_EQ(t.c, ScalarType::F16);
  EXPECT_EQ(t.d, ScalarType::F16);
  EXPECT_EQ(t.accumulator, ScalarType::F32);
  EXPECT_EQ(t.layout_a, MatrixLayout::RowMajor);
  EXPECT_EQ(t.layout_d, MatrixLayout::RowMajor);
  EXPECT_EQ(plan.arch(), Arch::Sm90);
  EXPECT_EQ(plan.opclass(), OperatorClass::TensorOp);
  EXPECT_EQ(plan.describe(),
            "Gemm fp16 x fp16 -> fp16 (row-major A, row-major B, row-major C and D; fp32 "
            "accumulation), tensor-op, sm_90a");
}

TEST(GemmPlan, PerOperandOverridesGeneric) {
  Gemm const plan(sm90({.element = ScalarType::BF16,
                        .layout = MatrixLayout::RowMajor,
                        .element_d = ScalarType::F32,
                        .layout_b = MatrixLayout::ColMajor}));
  EXPECT_EQ(plan.types().a, ScalarType::BF16);
  EXPECT_EQ(plan.types().d, ScalarType::F32);
  EXPECT_EQ(plan.types().c, ScalarType::F32);  // C follows D
  EXPECT_EQ(plan.types().layout_a, MatrixLayout::RowMajor);
  EXPECT_EQ(plan.types().layout_b, MatrixLayout::ColMajor);
}

TEST(GemmPlan, TensorsOverrideGeneric) {
  // A column-major example B over a generic row-major layout; fp32 example D over generic bf16.
  Gemm const plan(sm90({.element = ScalarType::BF16,
                        .layout = MatrixLayout::RowMajor,
                        .b = column_major(fake(2), ScalarType::BF16, 64, 32),
                        .d = row_major(fake(4), ScalarType::F32, 16, 32)}));
  EXPECT_EQ(plan.types().layout_b, MatrixLayout::ColMajor);
  EXPECT_EQ(plan.types().d, ScalarType::F32);
  EXPECT_EQ(plan.types().c, ScalarType::F32);
}

TEST(GemmPlan, TensorsAloneDeclareAPlan) {
  Gemm const plan(sm90({.a = row_major(fake(1), ScalarType::E4M3, 16, 64),
                        .b = column_major(fake(2), ScalarType::E4M3, 64, 32),
                        .d = column_major(fake(4), ScalarType::BF16, 16, 32)}));
  EXPECT_EQ(plan.types().a, ScalarType::E4M3);
  EXPECT_EQ(plan.types().layout_d, MatrixLayout::ColMajor);
  EXPECT_EQ(plan.opclass(), OperatorClass::TensorOp);
}

TEST(GemmPlan, ATensorAndItsOwnElementThatDisagreeAreRefused) {
  std::string const e = invalid_argument_message([] {
    Gemm(sm90({.layout = MatrixLayout::RowMajor,
               .element_a = ScalarType::BF16,
               .element_b = ScalarType::F16,
               .a = row_major(fake(1), ScalarType::F16, 16, 64)}));
  });
  EXPECT_CONTAINS(e, "example tensor a is fp16 but element_a = bf16");
  EXPECT_THROW(Gemm(sm90({.layout = MatrixLayout::RowMajor,
                          .element_a = ScalarType::BF16,
                          .a = row_major(fake(1), ScalarType::F16, 16, 64)})),
               DtypeError);
  std::string const l = invalid_argument_message([] {
    Gemm(sm90({.element = ScalarType::F16,
               .layout = MatrixLayout::RowMajor,
               .layout_a = MatrixLayout::ColMajor,
               .a = row_major(fake(1), ScalarType::F16, 16, 64)}));
  });
  EXPECT_CONTAINS(l, "example tensor a is row-major but layout_a = column-major");
}

TEST(GemmPlan, ATensorOfExtentOneLeavesTheLayoutToTheNextSource) {
  // A 1 x 64 row is both row- and column-major: layout_a decides.
  Gemm const plan(sm90({.element = ScalarType::F16,
                        .layout = MatrixLayout::RowMajor,
                        .layout_a = MatrixLayout::ColMajor,
                        .a = row_major(fake(1), ScalarType::F16, 1, 64)}));
  EXPECT_EQ(plan.types().layout_a, MatrixLayout::ColMajor);
}

TEST(GemmPlan, MissingTypesAndLayoutsAreNamed) {
  EXPECT_CONTAINS(invalid_argument_message([] {
                    Gemm(sm90({.layout = MatrixLayout::RowMajor, .element_a = ScalarType::F16}));
                  }),
                  "no element type for B: set the generic element, element_b, or the example "
                  "tensor b");
  EXPECT_CONTAINS(invalid_argument_message([] { Gemm(sm90({.element = ScalarType::F16})); }),
                  "no layout for A");
}

TEST(GemmPlan, CAndDShareTypeAndLayout) {
  EXPECT_CONTAINS(invalid_argument_message([] {
                    Gemm(sm90({.element = ScalarType::BF16,
                               .layout = MatrixLayout::RowMajor,
                               .element_c = ScalarType::BF16,
                               .element_d = ScalarType::F32}));
                  }),
                  "C is bf16 (element_c) and D is fp32 (element_d): C and D share one element "
                  "type");
  EXPECT_CONTAINS(invalid_argument_message([] {
                    Gemm(sm90({.element = ScalarType::BF16,
                               .layout = MatrixLayout::RowMajor,
                               .layout_c = MatrixLayout::ColMajor,
                               .d = row_major(fake(4), ScalarType::BF16, 16, 16)}));
                  }),
                  "C is column-major (layout_c) and D is row-major (tensor d)");
  // Either one alone sets both.
  Gemm const plan(sm90({.element = ScalarType::F16,
                        .layout = MatrixLayout::RowMajor,
                        .layout_c = MatrixLayout::ColMajor}));
  EXPECT_EQ(plan.types().layout_d, MatrixLayout::ColMajor);
}

// An fp8 D (from 16-bit or "tn" fp8 inputs) runs on the tensor cores; set_output_scale's pointers
// reach the arguments.
TEST(GemmPlan, AnFp8OutputRunsOnTheTensorCoresWithItsScaleAndAmax) {
  Gemm plan(sm90({.a = row_major(fake(1), ScalarType::BF16, 128, 64),
                  .b = column_major(fake(2), ScalarType::BF16, 64, 128),
                  .d = row_major(fake(4), ScalarType::E4M3, 128, 128)}));
  EXPECT_EQ(plan.opclass(), OperatorClass::TensorOp);
  EXPECT_EQ(plan.types().d, ScalarType::E4M3);
  auto* const scale = static_cast<float const*>(fake(6));
  auto* const amax = static_cast<float*>(fake(7));
  plan.set_output_scale(scale, amax);
  GemmArguments const r = plan.arguments(row_major(fake(1), ScalarType::BF16, 128, 64),
                                         column_major(fake(2), ScalarType::BF16, 64, 128), {},
                                         row_major(fake(4), ScalarType::E4M3, 128, 128));
  EXPECT_EQ(r.scale_d, scale);
  EXPECT_EQ(r.amax_d, amax);
}

TEST(GemmPlan, CombinationsNoKernelRunsAreRefusedNamingThem) {
  std::string const mixed = invalid_argument_message([] {
    Gemm(sm90({.element = ScalarType::BF16,
               .layout = MatrixLayout::RowMajor,
               .element_b = ScalarType::F16}));
  });
  EXPECT_CONTAINS(mixed, "no kernel runs bf16 x fp16 -> bf16");
  EXPECT_CONTAINS(mixed, "A and B share one input type");
  std::string const fp8_out = invalid_argument_message(
      [] { Gemm(sm90({.element = ScalarType::E4M3, .layout = MatrixLayout::RowMajor})); });
  EXPECT_CONTAINS(fp8_out, "no kernel runs e4m3 x e4m3 -> e4m3");
  EXPECT_CONTAINS(fp8_out, "an fp8 D runs on the tensor cores only");  // B row-major: no wgmma
  std::string const f32_to_bf16 = invalid_argument_message([] {
    Gemm(sm90({.element = ScalarType::F32,
               .layout = MatrixLayout::RowMajor,
               .element_d = ScalarType::BF16}));
  });
  EXPECT_CONTAINS(f32_to_bf16, "no kernel runs fp32 x fp32 -> bf16");
}

TEST(GemmPlan, AccumulatorIsTheKernelsOwn) {
  EXPECT_CONTAINS(invalid_argument_message([] {
                    Gemm(sm90({.element = ScalarType::F16,
                               .layout = MatrixLayout::RowMajor,
                               .element_accumulator = ScalarType::F16}));
                  }),
                  "element_accumulator = fp16: no kernel of this build accumulates in fp16");
  EXPECT_CONTAINS(invalid_argument_message([] {
                    Gemm(sm90({.element = ScalarType::F64,
                               .layout = MatrixLayout::RowMajor,
                               .element_accumulator = ScalarType::F32}));
                  }),
                  "element_accumulator = fp32: fp64 inputs accumulate in fp64");
  Gemm const f64(sm90({.element = ScalarType::F64, .layout = MatrixLayout::RowMajor}));
  EXPECT_EQ(f64.types().accumulator, ScalarType::F64);
  Gemm const f16(sm90({.element = ScalarType::F16,
                       .layout = MatrixLayout::RowMajor,
                       .element_accumulator = ScalarType::F32}));
  EXPECT_EQ(f16.types().accumulator, ScalarType::F32);
}

TEST(GemmPlan, AutoPrefersTheTensorCoresAndFallsBackToSimt) {
  EXPECT_EQ(Gemm(ScalarType::BF16, MatrixLayout::ColMajor, Arch::Sm90).opclass(),
            OperatorClass::TensorOp);
  EXPECT_EQ(Gemm(ScalarType::F32, MatrixLayout::RowMajor, Arch::Sm90).opclass(),
            OperatorClass::Simt);
  // fp8 with a column-major A: wgmma reads 8-bit operands K-major only.
  EXPECT_EQ(Gemm(sm90({.element = ScalarType::E4M3,
                       .layout = MatrixLayout::ColMajor,
                       .element_d = ScalarType::BF16}))
                .opclass(),
            OperatorClass::Simt);
}

TEST(GemmPlan, TensorOpIsRefusedWhereTheTensorCoresCannotRunIt) {
  std::string const e = invalid_argument_message([] {
    Gemm(sm90({.element = ScalarType::F64,
               .layout = MatrixLayout::RowMajor,
               .opclass = OperatorClass::TensorOp}));
  });
  EXPECT_CONTAINS(e, "opclass = tensor-op: the tensor cores do not run fp64 x fp64 -> fp64");
  Gemm plan(ScalarType::F32, MatrixLayout::RowMajor, Arch::Sm90);
  EXPECT_CONTAINS(invalid_argument_message([&] { plan.set_opclass(OperatorClass::TensorOp); }),
                  "the tensor-core GEMM takes fp16, bf16, e4m3 or e5m2 inputs");
  EXPECT_EQ(plan.opclass(), OperatorClass::Simt);  // unchanged by the refused setting
}

TEST(GemmPlan, SetOpclassSwitchesAndDropsTheCompiledDescription) {
  Gemm plan(ScalarType::BF16, MatrixLayout::RowMajor, Arch::Sm90);
  plan.set_opclass(OperatorClass::Simt);
  EXPECT_EQ(plan.opclass(), OperatorClass::Simt);
  plan.compile(plan.tile_descriptions().front());
  EXPECT_TRUE(plan.tile_description().has_value());
  plan.set_opclass(OperatorClass::Auto);
  EXPECT_EQ(plan.opclass(), OperatorClass::TensorOp);
  EXPECT_FALSE(plan.tile_description().has_value());
}

TEST(GemmPlan, ActivationsAndEpilogue) {
  Gemm plan(ScalarType::F16, MatrixLayout::RowMajor, Arch::Sm90);
  EXPECT_EQ(plan.activation(), Activation::Identity);
  EXPECT_EQ(Gemm::activations().size(), 9u);
  EXPECT_EQ(Gemm::activations().front(), Activation::Identity);
  plan.set_activation(Activation::ReLU);
  EXPECT_EQ(plan.activation(), Activation::ReLU);
  EXPECT_EQ(plan.epilogue().activation, Activation::ReLU);
  GemmEpilogue e;
  e.activation = Activation::LeakyReLU;
  e.leaky_slope = 0.2f;
  plan.set_epilogue(e);
  EXPECT_EQ(plan.activation(), Activation::LeakyReLU);
  EXPECT_EQ(plan.epilogue().leaky_slope, 0.2f);
}

TEST(GemmPlan, CopiesAreIndependent) {
  Gemm a(ScalarType::BF16, MatrixLayout::RowMajor, Arch::Sm90);
  Gemm b = a;
  b.set_activation(Activation::GELU);
  b.set_opclass(OperatorClass::Simt);
  EXPECT_EQ(a.activation(), Activation::Identity);
  EXPECT_EQ(a.opclass(), OperatorClass::TensorOp);
  Gemm c = std::move(b);
  EXPECT_EQ(c.opclass(), OperatorClass::Simt);
}

// ---- Architecture ----------------------------------------------------------------------------

detail::DeviceFacts device(int major, int minor, std::string name) {
  return {.present = true, .ordinal = 0, .major = major, .minor = minor, .name = std::move(name)};
}

TEST(GemmPlanArch, APlanForTheDevicesArchitecture) {
  EXPECT_EQ(detail::plan_arch(std::nullopt, device(9, 0, "NVIDIA H200")), Arch::Sm90);
  EXPECT_EQ(detail::plan_arch(Arch::Sm90, device(9, 0, "NVIDIA H200")), Arch::Sm90);
  EXPECT_EQ(detail::plan_arch(Arch::Sm90, detail::DeviceFacts{}), Arch::Sm90);  // no GPU
}

TEST(GemmPlanArch, AnotherArchitectureThanTheDevicesIsRefusedNamingBoth) {
  EXPECT_EQ(
      invalid_argument_message([] { detail::plan_arch(Arch::Sm90, device(8, 0, "NVIDIA A100")); }),
      "Gemm: plan made for sm_90a; the device is sm_80 (NVIDIA A100)");
  EXPECT_EQ(
      invalid_argument_message([] { detail::plan_arch(std::nullopt, device(8, 9, "NVIDIA L4")); }),
      "Gemm: the device is sm_89 (NVIDIA L4); this build's GEMM kernels run on sm_90a only");
  EXPECT_EQ(detail::run_refusal(Arch::Sm90, device(10, 0, "NVIDIA B200")),
            "Gemm.run: plan made for sm_90a; the device is sm_100 (NVIDIA B200)");
  EXPECT_EQ(detail::run_refusal(Arch::Sm90, device(9, 0, "NVIDIA H200")), "");
}

TEST(GemmPlanArch, ArchitecturesWithoutKernelsAndNoDeviceAtAll) {
  EXPECT_CONTAINS(
      invalid_argument_message([] { Gemm(ScalarType::BF16, MatrixLayout::RowMajor, Arch::Sm100); }),
      "arch = sm_100a: this build's GEMM kernels are compiled for sm_90a only");
  detail::DeviceFacts none;
  none.why_absent = "no CUDA device";
  EXPECT_CONTAINS(invalid_argument_message([&] { detail::plan_arch(std::nullopt, none); }),
                  "no architecture to plan for: no CUDA device");
  EXPECT_EQ(detail::run_refusal(Arch::Sm90, none), "Gemm.run: no CUDA device");
}

TEST(GemmPlanArch, RunWithoutTheDeviceIsRefusedBeforeAnythingElse) {
  if (detail::current_device().present) GTEST_SKIP() << "this machine has a GPU";
  Gemm const plan(ScalarType::BF16, MatrixLayout::RowMajor, Arch::Sm90);
  EXPECT_CONTAINS(invalid_argument_message([&] { plan.run({}, {}, {}, {}); }), "Gemm.run: ");
}

}  // namespace
}  // namespace warploom::ops
