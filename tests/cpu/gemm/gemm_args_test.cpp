// tests/cpu/gemm/gemm_args_test.cpp
//
// The GEMM's argument checks, without a GPU: every rule has a violating call whose error names the
// argument, and a passing call; resolution fills packed leading dimensions and batch strides;
// GemmKernel::Auto picks the tensor cores exactly when their rules hold.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "warploom/gemm.hpp"

namespace warploom::gemm {
namespace {

// 16-byte aligned fake addresses: the checks never dereference them.
void const* fake(std::uintptr_t i) {
  return reinterpret_cast<void const*>(0x10000 * i);
}

GemmArguments valid() {
  GemmArguments a;
  a.m = 100;
  a.n = 64;
  a.k = 40;
  a.a = {fake(1), ScalarType::BF16, MatrixLayout::RowMajor};
  a.b = {fake(2), ScalarType::BF16, MatrixLayout::ColMajor};
  a.d = const_cast<void*>(fake(3));
  a.d_type = ScalarType::BF16;
  return a;
}

std::string error_of(GemmArguments const& a, GemmKernel kernel = GemmKernel::Auto) {
  try {
    check_arguments(a, kernel);
  } catch (std::invalid_argument const& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_REJECTED(ARGS, MESSAGE) \
  EXPECT_NE(error_of(ARGS).find(MESSAGE), std::string::npos) << "got: " << error_of(ARGS)
// The same, for the rules of the tensor-core GEMM alone.
#define EXPECT_REJECTED_BY_TENSOR_CORES(ARGS, MESSAGE)                               \
  EXPECT_NE(error_of(ARGS, GemmKernel::TensorCore).find(MESSAGE), std::string::npos) \
      << "got: " << error_of(ARGS, GemmKernel::TensorCore)

GemmArguments with_inputs(ScalarType t) {
  GemmArguments a = valid();
  a.a.type = a.b.type = a.d_type = t;
  return a;
}

TEST(GemmArguments, AValidProblemPasses) {
  EXPECT_EQ(error_of(valid()), "");
}

TEST(GemmArguments, ShapesMustBePositive) {
  for (int GemmArguments::*dim :
       {&GemmArguments::m, &GemmArguments::n, &GemmArguments::k, &GemmArguments::batch}) {
    GemmArguments a = valid();
    a.*dim = 0;
    EXPECT_NE(error_of(a).find("must be at least 1"), std::string::npos);
  }
  GemmArguments a = valid();
  a.m = -3;
  EXPECT_REJECTED(a, "m = -3 must be at least 1");
}

TEST(GemmArguments, NullPointersAreNamed) {
  GemmArguments a = valid();
  a.a.data = nullptr;
  EXPECT_REJECTED(a, "a.data is null");
  a = valid();
  a.b.data = nullptr;
  EXPECT_REJECTED(a, "b.data is null");
  a = valid();
  a.d = nullptr;
  EXPECT_REJECTED(a, "d is null");
  a = valid();
  a.beta = 1.0f;
  EXPECT_REJECTED(a, "c.data is null but beta != 0 reads C");
  a.c = {fake(4), ScalarType::BF16, MatrixLayout::RowMajor};
  EXPECT_EQ(error_of(a), "");
}

TEST(GemmArguments, TypeCombinations) {
  GemmArguments a = valid();
  a.b.type = ScalarType::F16;
  EXPECT_REJECTED(a, "a.type = bf16 and b.type = fp16 differ");
  a = valid();
  a.a.type = a.b.type = ScalarType::F32;
  EXPECT_REJECTED_BY_TENSOR_CORES(
      a, "a.type = fp32: the tensor-core GEMM takes fp16, bf16, e4m3 or e5m2");
  a = valid();
  a.d_type = ScalarType::F16;
  EXPECT_REJECTED(a, "d_type = fp16: D is bf16 (the input type) or fp32");
  a.d_type = ScalarType::F32;
  EXPECT_EQ(error_of(a), "");
  a.beta = 1.0f;
  a.c = {fake(4), ScalarType::BF16, MatrixLayout::RowMajor};
  EXPECT_REJECTED(a, "c.type = bf16 differs from d_type = fp32");
  a.c = {fake(4), ScalarType::F32, MatrixLayout::ColMajor};
  EXPECT_REJECTED(a, "c.layout = column-major differs from d_layout = row-major");
}

TEST(GemmArguments, TmaAlignmentOfAAndB) {
  GemmArguments a = valid();
  a.k = 17;  // packed row-major A: 34-byte rows
  EXPECT_REJECTED_BY_TENSOR_CORES(a,
                                  "a.ld = 17 elements (34 bytes) must be a multiple of 16 bytes");
  a.a.ld = 24;
  a.b.ld = 24;
  EXPECT_EQ(error_of(a, GemmKernel::TensorCore), "");
  a.a.data = static_cast<char const*>(fake(1)) + 8;
  EXPECT_REJECTED_BY_TENSOR_CORES(a, "a.data must be 16-byte aligned");
  a = valid();
  a.batch = 2;
  a.b.batch_stride = 64 * 40 + 4;
  EXPECT_REJECTED_BY_TENSOR_CORES(a,
                                  "b.batch_stride = 2564 elements must be a multiple of 16 bytes");
  a = valid();
  a.d = const_cast<char*>(static_cast<char const*>(fake(3)) + 2);
  EXPECT_REJECTED_BY_TENSOR_CORES(a, "d must be 16-byte aligned");
}

// The SIMT GEMM runs all of the above: its only alignment rule is the element's.
TEST(GemmArguments, SimtChecksElementAlignmentOnly) {
  GemmArguments a = valid();
  a.k = 17;
  a.a.data = static_cast<char const*>(fake(1)) + 2;
  a.batch = 2;
  a.b.batch_stride = 17 * 64 + 3;
  EXPECT_EQ(error_of(a, GemmKernel::Simt), "");
  EXPECT_EQ(error_of(a), "");
  a.a.data = static_cast<char const*>(fake(1)) + 1;
  EXPECT_REJECTED(a, "a.data must be 2-byte aligned (element alignment)");
  a = with_inputs(ScalarType::F64);
  a.d = const_cast<char*>(static_cast<char const*>(fake(3)) + 4);
  EXPECT_REJECTED(a, "d must be 8-byte aligned (element alignment)");
  a = with_inputs(ScalarType::F32);
  a.beta = 1.0f;
  a.c = {static_cast<char const*>(fake(4)) + 2, ScalarType::F32, MatrixLayout::RowMajor};
  EXPECT_REJECTED(a, "c.data must be 4-byte aligned (element alignment)");
}

TEST(GemmArguments, Fp32AndFp64InputsKeepTheirType) {
  EXPECT_EQ(error_of(with_inputs(ScalarType::F32)), "");
  EXPECT_EQ(error_of(with_inputs(ScalarType::F64)), "");
  GemmArguments a = with_inputs(ScalarType::F64);
  a.d_type = ScalarType::F32;
  EXPECT_REJECTED(a, "d_type = fp32: D is fp64 (the input type)");
  a = with_inputs(ScalarType::F32);
  a.d_type = ScalarType::BF16;
  EXPECT_REJECTED(a, "d_type = bf16: D is fp32 (the input type)");
  a = with_inputs(ScalarType::F64);
  a.b.type = ScalarType::F32;
  EXPECT_REJECTED(a, "a.type = fp64 and b.type = fp32 differ");
  a = with_inputs(ScalarType::F64);
  a.beta = 0.5f;
  a.c = {fake(4), ScalarType::F32, MatrixLayout::RowMajor};
  EXPECT_REJECTED(a, "c.type = fp32 differs from d_type = fp64");
  EXPECT_EQ(size_of(ScalarType::F64), 8);
  EXPECT_EQ(to_string(ScalarType::F64), "fp64");
}

TEST(GemmArguments, AutoPicksTensorCoresExactlyWhenTheirRulesHold) {
  EXPECT_EQ(selected_kernel(valid()), GemmKernel::TensorCore);
  EXPECT_EQ(selected_kernel(valid(), GemmKernel::Simt), GemmKernel::Simt);
  EXPECT_EQ(selected_kernel(with_inputs(ScalarType::F32)), GemmKernel::Simt);
  EXPECT_EQ(selected_kernel(with_inputs(ScalarType::F64)), GemmKernel::Simt);
  GemmArguments a = valid();
  a.k = 17;  // packed fp16/bf16 K = 17: rows of 34 bytes
  EXPECT_EQ(selected_kernel(a), GemmKernel::Simt);
  a = valid();
  a.b.data = static_cast<char const*>(fake(2)) + 2;  // element-aligned, not 16-byte aligned
  EXPECT_EQ(selected_kernel(a), GemmKernel::Simt);
  a = valid();
  a.batch = 3;
  a.batch_stride_d = 100 * 64 + 1;
  EXPECT_EQ(selected_kernel(a), GemmKernel::Simt);
  a = valid();
  a.beta = 1.0f;  // C is read by threads in both kernels: no 16-byte rule
  a.c = {static_cast<char const*>(fake(4)) + 2, ScalarType::BF16, MatrixLayout::ColMajor};
  a.d_layout = MatrixLayout::ColMajor;
  a.ldd = 104;
  EXPECT_EQ(selected_kernel(a), GemmKernel::TensorCore);
  // Asking for the tensor cores with arguments they cannot run keeps their error.
  EXPECT_THROW(selected_kernel(with_inputs(ScalarType::F64), GemmKernel::TensorCore),
               std::invalid_argument);
  EXPECT_REJECTED_BY_TENSOR_CORES(
      with_inputs(ScalarType::F64),
      "a.type = fp64: the tensor-core GEMM takes fp16, bf16, e4m3 or e5m2 inputs");
  EXPECT_EQ(to_string(GemmKernel::Simt), "simt");
}

// ---- fp8 ----------------------------------------------------------------------------------------
// valid() with fp8 inputs (A row-major, B column-major: K-major, as the tensor cores need) and
// K = 64 (64-byte rows, 16-byte aligned); D stays bf16.
GemmArguments fp8(ScalarType t = ScalarType::E4M3) {
  GemmArguments a = valid();
  a.k = 64;
  a.a.type = a.b.type = t;
  return a;
}

TEST(GemmArguments, Fp8TypesNamesAndSizes) {
  EXPECT_EQ(to_string(ScalarType::E4M3), "e4m3");
  EXPECT_EQ(to_string(ScalarType::E5M2), "e5m2");
  EXPECT_EQ(size_of(ScalarType::E4M3), 1);
  EXPECT_EQ(size_of(ScalarType::E5M2), 1);
}

TEST(GemmArguments, Fp8InputsShareOneFormat) {
  GemmArguments a = fp8(ScalarType::E4M3);
  a.b.type = ScalarType::E5M2;
  EXPECT_REJECTED(a,
                  "a.type = e4m3 and b.type = e5m2 differ: A and B share one input type "
                  "(no e4m3 x e5m2 mix)");
  a = fp8(ScalarType::E5M2);
  a.b.type = ScalarType::E4M3;
  EXPECT_REJECTED(a, "a.type = e5m2 and b.type = e4m3 differ");
  a.b.type = ScalarType::BF16;
  EXPECT_REJECTED(a, "a.type = e5m2 and b.type = bf16 differ");
  EXPECT_EQ(error_of(fp8(ScalarType::E4M3)), "");
  EXPECT_EQ(error_of(fp8(ScalarType::E5M2)), "");
}

TEST(GemmArguments, Fp8OutputIsBf16Fp16OrFp32) {
  for (ScalarType in : {ScalarType::E4M3, ScalarType::E5M2}) {
    for (ScalarType out : {ScalarType::BF16, ScalarType::F16, ScalarType::F32}) {
      GemmArguments a = fp8(in);
      a.d_type = out;
      EXPECT_EQ(error_of(a), "") << to_string(in) << " -> " << to_string(out);
      EXPECT_EQ(error_of(a, GemmKernel::TensorCore), "")
          << to_string(in) << " -> " << to_string(out);
    }
  }
  GemmArguments a = fp8(ScalarType::E4M3);
  a.d_type = ScalarType::E4M3;
  EXPECT_REJECTED(a, "d_type = e4m3: D of e4m3 inputs is bf16, fp16 or fp32 (no fp8 output)");
  a = fp8(ScalarType::E5M2);
  a.d_type = ScalarType::F64;
  EXPECT_REJECTED(a, "d_type = fp64: D of e5m2 inputs is bf16, fp16 or fp32");
  // C has D's type, as for every input type.
  a = fp8();
  a.d_type = ScalarType::F32;
  a.beta = 1.0f;
  a.c = {fake(4), ScalarType::E4M3, MatrixLayout::RowMajor};
  EXPECT_REJECTED(a, "c.type = e4m3 differs from d_type = fp32");
  a.c.type = ScalarType::F32;
  EXPECT_EQ(error_of(a), "");
}

TEST(GemmArguments, Fp8ScalesOnlyWithFp8Inputs) {
  float const* const scale = static_cast<float const*>(fake(5));
  GemmArguments a = valid();  // bf16
  a.scale_a = scale;
  EXPECT_REJECTED(a, "scale_a is set but a.type = bf16: per-tensor scales apply to fp8");
  a = valid();
  a.scale_b = scale;
  EXPECT_REJECTED(a, "scale_b is set but a.type = bf16");
  a = with_inputs(ScalarType::F32);
  a.scale_b = scale;
  EXPECT_REJECTED(a, "scale_b is set but a.type = fp32");
  for (ScalarType in : {ScalarType::E4M3, ScalarType::E5M2}) {
    a = fp8(in);
    a.scale_a = scale;
    a.scale_b = scale + 1;
    EXPECT_EQ(error_of(a), "");
    EXPECT_EQ(error_of(a, GemmKernel::TensorCore), "");
    EXPECT_EQ(error_of(a, GemmKernel::Simt), "");
  }
  a = fp8();
  a.scale_b = reinterpret_cast<float const*>(static_cast<char const*>(fake(5)) + 2);
  EXPECT_REJECTED(a, "scale_b must be 4-byte aligned");
  // Null scales mean 1 and are never checked further.
  EXPECT_EQ(error_of(fp8()), "");
}

TEST(GemmArguments, Fp8TensorCoresNeedKMajorOperands) {
  GemmArguments a = fp8();
  a.a.layout = MatrixLayout::ColMajor;
  a.a.ld = 112;  // column-major 100 x 64, 16-byte aligned
  EXPECT_REJECTED_BY_TENSOR_CORES(
      a,
      "a.layout = column-major with e4m3 inputs: the tensor-core GEMM needs a K-major "
      "(row-major) A");
  EXPECT_EQ(error_of(a), "");  // Auto: the SIMT GEMM runs it
  EXPECT_EQ(selected_kernel(a), GemmKernel::Simt);
  a = fp8(ScalarType::E5M2);
  a.b.layout = MatrixLayout::RowMajor;
  EXPECT_REJECTED_BY_TENSOR_CORES(
      a,
      "b.layout = row-major with e5m2 inputs: the tensor-core GEMM needs a K-major "
      "(column-major) B");
  EXPECT_EQ(selected_kernel(a), GemmKernel::Simt);
  EXPECT_EQ(error_of(a, GemmKernel::Simt), "");
  // Passing: A row-major and B column-major, with a row- or column-major D (the transposition
  // that a column-major D takes keeps both operands K-major).
  a = fp8();
  EXPECT_EQ(error_of(a, GemmKernel::TensorCore), "");
  EXPECT_EQ(selected_kernel(a), GemmKernel::TensorCore);
  a.d_layout = MatrixLayout::ColMajor;
  a.ldd = 104;
  EXPECT_EQ(error_of(a, GemmKernel::TensorCore), "");
  EXPECT_EQ(selected_kernel(a), GemmKernel::TensorCore);
  // Checked before anything launches.
  a = fp8();
  a.a.layout = MatrixLayout::ColMajor;
  EXPECT_THROW(gemm(a, nullptr, GemmTuning{.kernel = GemmKernel::TensorCore}),
               std::invalid_argument);
}

TEST(GemmArguments, Fp8TmaAlignment) {
  GemmArguments a = fp8();
  a.k = 40;  // packed row-major A: 40-byte rows
  EXPECT_REJECTED_BY_TENSOR_CORES(a,
                                  "a.ld = 40 elements (40 bytes) must be a multiple of 16 bytes "
                                  "(TMA strides): for e4m3, a multiple of 16");
  EXPECT_EQ(selected_kernel(a), GemmKernel::Simt);
  a.a.ld = 48;
  EXPECT_REJECTED_BY_TENSOR_CORES(a, "b.ld = 40 elements (40 bytes) must be a multiple of 16");
  a.b.ld = 48;
  EXPECT_EQ(error_of(a, GemmKernel::TensorCore), "");
  EXPECT_EQ(selected_kernel(a), GemmKernel::TensorCore);
  a = fp8();
  a.a.data = static_cast<char const*>(fake(1)) + 1;  // element (1-byte) aligned only
  EXPECT_REJECTED_BY_TENSOR_CORES(a, "a.data must be 16-byte aligned");
  EXPECT_EQ(error_of(a), "");
  EXPECT_EQ(selected_kernel(a), GemmKernel::Simt);
  a = fp8();
  a.batch = 2;
  a.b.batch_stride = 64 * 64 + 8;
  EXPECT_REJECTED_BY_TENSOR_CORES(a,
                                  "b.batch_stride = 4104 elements must be a multiple of 16 bytes");
  // D keeps its own type's rules: bf16 D of N = 64 is 128-byte rows.
  a = fp8();
  a.ldd = 68;
  EXPECT_REJECTED_BY_TENSOR_CORES(a, "ldd = 68 elements (136 bytes) must be a multiple of 16");
}

TEST(GemmArguments, LeadingDimensionsAndBatchStrides) {
  GemmArguments a = valid();
  a.a.ld = 32;  // row-major 100 x 40 needs ld >= 40
  EXPECT_REJECTED(a, "a.ld = 32 is less than the row-major operand's contiguous extent 40");
  a = valid();
  a.ldd = 10;
  EXPECT_REJECTED(a, "ldd = 10 is less than the row-major operand's contiguous extent 64");
  a = valid();
  a.batch = 3;
  a.batch_stride_d = 100;
  EXPECT_REJECTED(a, "batch_stride_d = 100 is less than one batch (6400 elements)");
}

TEST(GemmArguments, ResolutionFillsPackedValues) {
  GemmArguments a = valid();
  a.batch = 2;
  GemmArguments const r = resolved(a);
  EXPECT_EQ(r.a.ld, 40);
  EXPECT_EQ(r.a.batch_stride, 4000);
  EXPECT_EQ(r.b.ld, 40);  // column-major 40 x 64
  EXPECT_EQ(r.b.batch_stride, 2560);
  EXPECT_EQ(r.ldd, 64);
  EXPECT_EQ(r.batch_stride_d, 6400);
  EXPECT_EQ(r.c.data, nullptr);  // beta == 0: C unread, described like D
  EXPECT_EQ(r.c.ld, 64);
}

TEST(GemmArguments, TuningKnobsAreChecked) {
  EXPECT_THROW(gemm(valid(), nullptr, GemmTuning{.raster_panel = 0}), std::invalid_argument);
  EXPECT_THROW(gemm(valid(), nullptr, GemmTuning{.max_ctas = -1}), std::invalid_argument);
  // The kernel is chosen (and its rules checked) before anything launches.
  EXPECT_THROW(
      gemm(with_inputs(ScalarType::F64), nullptr, GemmTuning{.kernel = GemmKernel::TensorCore}),
      std::invalid_argument);
}

// ---- The fused epilogue
// --------------------------------------------------------------------------- valid() (bf16, 100 x
// 64 x 40, D row-major) with every op of the epilogue: vectors and matrices at 16-byte aligned fake
// addresses of their own.
GemmArguments fused() {
  GemmArguments a = valid();
  GemmEpilogue& e = a.epilogue;
  e.activation = Activation::GELU;
  e.bias = fake(10);
  e.bias_type = ScalarType::BF16;
  e.row_scale = static_cast<float const*>(fake(11));
  e.col_scale = static_cast<float const*>(fake(12));
  e.residual = {fake(13), ScalarType::BF16, MatrixLayout::RowMajor};
  e.pre_activation = {fake(14), ScalarType::BF16, MatrixLayout::ColMajor};
  return a;
}

char const* off(void const* p, int bytes) {
  return static_cast<char const*>(p) + bytes;
}

TEST(GemmEpilogue, AFusedEpiloguePasses) {
  EXPECT_EQ(error_of(fused()), "");
  EXPECT_EQ(error_of(fused(), GemmKernel::TensorCore), "");
  EXPECT_EQ(selected_kernel(fused()), GemmKernel::TensorCore);
  for (Activation act : {Activation::Identity, Activation::ReLU, Activation::LeakyReLU,
                         Activation::GELU, Activation::GELUTanh, Activation::HardSwish,
                         Activation::Sigmoid, Activation::SiLU, Activation::Tanh}) {
    GemmArguments a = valid();
    a.epilogue.activation = act;
    EXPECT_EQ(error_of(a, GemmKernel::TensorCore), "") << to_string(act);
  }
  // fp8 inputs, fp32 bias with D of another type, and a bias along the rows.
  GemmArguments a = fused();
  a.k = 64;
  a.a.type = a.b.type = ScalarType::E4M3;
  a.epilogue.bias_type = ScalarType::F32;
  a.epilogue.bias_broadcast = Broadcast::PerRow;
  EXPECT_EQ(error_of(a, GemmKernel::TensorCore), "");
}

TEST(GemmEpilogue, ActivationAndSlopeAreChecked) {
  GemmArguments a = valid();
  a.epilogue.activation = static_cast<Activation>(42);
  EXPECT_REJECTED(a, "epilogue.activation = 42 is not an Activation");
  a.epilogue.activation = Activation::LeakyReLU;
  a.epilogue.leaky_slope = std::numeric_limits<float>::quiet_NaN();
  EXPECT_REJECTED(a, "epilogue.leaky_slope = nan must be finite");
  a.epilogue.leaky_slope = std::numeric_limits<float>::infinity();
  EXPECT_REJECTED(a, "epilogue.leaky_slope = inf must be finite");
  a.epilogue.leaky_slope = -0.5f;  // any finite slope: PReLU-like negative ones too
  EXPECT_EQ(error_of(a), "");
  a.epilogue.activation = Activation::ReLU;  // the slope is LeakyReLU's alone
  a.epilogue.leaky_slope = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(error_of(a), "");
}

TEST(GemmEpilogue, BiasTypeAndBroadcast) {
  GemmArguments a = fused();
  a.epilogue.bias_type = ScalarType::F16;
  EXPECT_REJECTED(a, "epilogue.bias_type = fp16: the bias is fp32 or of D's type (d_type = bf16)");
  a.epilogue.bias_type = ScalarType::F32;
  EXPECT_EQ(error_of(a), "");
  a.d_type = ScalarType::F32;
  a.epilogue.residual.type = a.epilogue.pre_activation.type = ScalarType::F32;
  a.epilogue.bias_type = ScalarType::BF16;  // the input type, not D's
  EXPECT_REJECTED(a, "epilogue.bias_type = bf16: the bias is fp32 or of D's type (d_type = fp32)");
  a = fused();
  a.epilogue.bias_broadcast = static_cast<Broadcast>(5);
  EXPECT_REJECTED(a, "epilogue.bias_broadcast = 5 is not a Broadcast");
  // Without a bias, its type and broadcast are not looked at.
  a = valid();
  a.epilogue.activation = Activation::ReLU;
  a.epilogue.bias_type = ScalarType::E4M3;
  EXPECT_EQ(error_of(a), "");
}

TEST(GemmEpilogue, VectorAlignment) {
  GemmArguments a = fused();
  a.epilogue.row_scale = reinterpret_cast<float const*>(off(fake(11), 2));
  EXPECT_REJECTED(a, "epilogue.row_scale must be 4-byte aligned (element alignment)");
  a = fused();
  a.epilogue.bias = off(fake(10), 1);
  EXPECT_REJECTED(a, "epilogue.bias must be 2-byte aligned (element alignment)");
  // Element alignment is all the tensor cores need too (they read vectors in pairs where the pair
  // is aligned, else element by element).
  a = fused();
  a.epilogue.col_scale = reinterpret_cast<float const*>(off(fake(12), 4));
  a.epilogue.bias = off(fake(10), 2);
  EXPECT_EQ(error_of(a, GemmKernel::TensorCore), "");
  EXPECT_EQ(selected_kernel(a), GemmKernel::TensorCore);
}

TEST(GemmEpilogue, ResidualAndPreActivationAreMatricesOfDsType) {
  for (auto member : {&GemmEpilogue::residual, &GemmEpilogue::pre_activation}) {
    std::string const name =
        member == &GemmEpilogue::residual ? "epilogue.residual" : "epilogue.pre_activation";
    GemmArguments a = fused();
    (a.epilogue.*member).type = ScalarType::F16;
    EXPECT_REJECTED(a, name +
                           ".type = fp16 differs from d_type = bf16 (the epilogue's matrices "
                           "are of D's type)");
    a = fused();
    (a.epilogue.*member).layout = MatrixLayout::RowMajor;
    (a.epilogue.*member).ld = 10;
    EXPECT_REJECTED(a, name + ".ld = 10 is less than the row-major operand's contiguous extent 64");
    a = fused();
    (a.epilogue.*member).layout = MatrixLayout::ColMajor;
    (a.epilogue.*member).ld = 64;
    EXPECT_REJECTED(
        a, name + ".ld = 64 is less than the column-major operand's contiguous extent 100");
    a = fused();
    a.batch = 2;
    (a.epilogue.*member).batch_stride = 100;
    EXPECT_REJECTED(a, name + ".batch_stride = 100 is less than one batch (6400 elements)");
    a = fused();
    (a.epilogue.*member).data = off((a.epilogue.*member).data, 1);
    EXPECT_REJECTED(a, name + ".data must be 2-byte aligned (element alignment)");
    // Element alignment is all they need, on the tensor cores too (the threads access them).
    a = fused();
    (a.epilogue.*member).data = off((a.epilogue.*member).data, 2);
    EXPECT_EQ(error_of(a, GemmKernel::TensorCore), "") << name;
  }
}

TEST(GemmEpilogue, MatricesResolveLikeC) {
  GemmArguments a = fused();
  a.batch = 3;
  a.epilogue.residual.ld = 72;
  GemmArguments const r = resolved(a);
  EXPECT_EQ(r.epilogue.residual.ld, 72);
  EXPECT_EQ(r.epilogue.residual.batch_stride, 72 * 100);
  EXPECT_EQ(r.epilogue.pre_activation.ld, 100);  // column-major 100 x 64
  EXPECT_EQ(r.epilogue.pre_activation.batch_stride, 6400);
}

TEST(GemmEpilogue, PreActivationMustNotAliasWhatTheKernelReadsOrWrites) {
  GemmArguments a = fused();
  a.epilogue.pre_activation.data = off(fake(1), 64);  // inside A
  EXPECT_REJECTED(a,
                  "epilogue.pre_activation.data overlaps a.data: the pre-activation output must "
                  "not alias A, B, C, D or the residual");
  a.epilogue.pre_activation.data = fake(2);
  EXPECT_REJECTED(a, "epilogue.pre_activation.data overlaps b.data");
  a.epilogue.pre_activation.data = a.d;
  EXPECT_REJECTED(a, "epilogue.pre_activation.data overlaps d");
  a.epilogue.pre_activation.data = a.epilogue.residual.data;
  EXPECT_REJECTED(a, "epilogue.pre_activation.data overlaps epilogue.residual.data");
  a = fused();
  a.beta = 1.0f;
  a.c = {fake(4), ScalarType::BF16, MatrixLayout::RowMajor};
  a.epilogue.pre_activation.data = off(fake(4), 2 * 6399);  // C's last element
  EXPECT_REJECTED(a, "epilogue.pre_activation.data overlaps c.data");
  a.epilogue.pre_activation.data = off(fake(4), 2 * 6400);  // just past C
  EXPECT_EQ(error_of(a), "");
}

TEST(GemmEpilogue, ResidualMustNotAliasD) {
  GemmArguments a = fused();
  a.epilogue.residual.data = a.d;
  EXPECT_REJECTED(a,
                  "epilogue.residual.data overlaps d: the residual must not alias D (their memory "
                  "ranges overlap)");
  a.epilogue.residual.data = off(a.d, 128);  // D's second row
  EXPECT_REJECTED(a, "epilogue.residual.data overlaps d");
  a.epilogue.residual.data = off(a.d, 2 * 6400);  // just past D
  EXPECT_EQ(error_of(a), "");
}

TEST(GemmEpilogue, VectorsMustNotOverlapTheOutputs) {
  GemmArguments a = fused();
  a.epilogue.bias = off(a.d, 256);
  EXPECT_REJECTED(a,
                  "epilogue.bias overlaps d: the epilogue's vectors are read while D is written");
  a = fused();
  a.epilogue.row_scale = reinterpret_cast<float const*>(a.epilogue.pre_activation.data);
  EXPECT_REJECTED(a, "epilogue.row_scale overlaps epilogue.pre_activation.data");
}

// Auto picks the tensor cores for a fused epilogue whenever their rules hold, like the plain
// GEMM, and the SIMT GEMM otherwise.
TEST(GemmEpilogue, AutoPicksTheTensorCoresWhenTheirRulesHold) {
  GemmArguments a = fused();
  a.d_layout = MatrixLayout::ColMajor;
  a.ldd = 104;
  EXPECT_EQ(selected_kernel(a), GemmKernel::TensorCore);
  a = fused();
  a.a.type = a.b.type = ScalarType::F16;
  a.d_type = a.epilogue.residual.type = a.epilogue.pre_activation.type = ScalarType::F32;
  a.epilogue.bias_type = ScalarType::F32;
  EXPECT_EQ(selected_kernel(a), GemmKernel::TensorCore);
  // The SIMT GEMM runs fused epilogues too: a packed K that TMA cannot stride, fp32 and fp64
  // inputs go there.
  a = fused();
  EXPECT_EQ(error_of(a, GemmKernel::Simt), "");
  a.k = 17;
  EXPECT_EQ(selected_kernel(a), GemmKernel::Simt);
  for (ScalarType t : {ScalarType::F32, ScalarType::F64}) {
    a = fused();
    a.a.type = a.b.type = a.d_type = t;
    a.epilogue.residual.type = a.epilogue.pre_activation.type = t;
    a.epilogue.bias_type = ScalarType::F32;
    EXPECT_EQ(error_of(a), "") << to_string(t);
    EXPECT_EQ(selected_kernel(a), GemmKernel::Simt) << to_string(t);
  }
}

// Auto picks ping-pong for outputs of 8192 x 8192 and more (where it measured faster) and the
// cooperative design otherwise; an explicit design is kept.
TEST(GemmTuning, ConsumerDesignSelection) {
  GemmArguments a = valid();
  a.m = a.n = 8192;
  a.k = 1024;
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto), ConsumerDesign::PingPong);
  EXPECT_EQ(selected_design(a, ConsumerDesign::Cooperative), ConsumerDesign::Cooperative);
  a.m = 8191;
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto), ConsumerDesign::Cooperative);
  EXPECT_EQ(selected_design(a, ConsumerDesign::PingPong), ConsumerDesign::PingPong);
  a.k = 8192;
  a.m = 1024;
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto), ConsumerDesign::Cooperative);
  EXPECT_EQ(to_string(ConsumerDesign::Auto), "auto");
  EXPECT_EQ(to_string(ConsumerDesign::Cooperative), "cooperative");
  EXPECT_EQ(to_string(ConsumerDesign::PingPong), "pingpong");
}

}  // namespace
}  // namespace warploom::gemm
