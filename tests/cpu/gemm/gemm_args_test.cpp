// tests/cpu/gemm/gemm_args_test.cpp
//
// The GEMM's argument checks, without a GPU: every rule has a violating call whose error names the
// argument, and a passing call; resolution fills packed leading dimensions and batch strides;
// GemmKernel::Auto picks the tensor cores exactly when their rules hold. The bad inputs of issues
// 13 and 15 too: batch stride 0 (broadcast), extents near 2^31, strides TMA cannot hold or that
// overflow 64 bits, enumeration values out of range.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel_arguments.hpp"  // src/gemm: with_tile_width
#include "split_k.hpp"           // src/gemm: split_k_slices, selected_tile_n
#include "warploom/gemm.hpp"
#include "warploom/prepared_grouped_gemm.hpp"
#include "warploom/testing/invalid_argument.hpp"

namespace warploom::gemm {
namespace {

using warploom::testing::invalid_argument_message;

// 16-byte aligned fake addresses: the checks never dereference them. 2^44 bytes apart, so that the
// extents near kMaxExtent do not make operands overlap (D must not alias A or B).
void const* fake(std::uintptr_t i) {
  return reinterpret_cast<void const*>(i << 44);
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
  EXPECT_REJECTED(a, "d_type = fp16: D is bf16 (the input type), fp32, or e4m3 or e5m2");
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
  GemmArguments a = fp8(ScalarType::E5M2);
  a.d_type = ScalarType::F64;
  EXPECT_REJECTED(a, "d_type = fp64: D of e5m2 inputs is bf16, fp16, fp32, e4m3 or e5m2");
  // C has D's type, as for every input type.
  a = fp8();
  a.d_type = ScalarType::F32;
  a.beta = 1.0f;
  a.c = {fake(4), ScalarType::E4M3, MatrixLayout::RowMajor};
  EXPECT_REJECTED(a, "c.type = e4m3 differs from d_type = fp32");
  a.c.type = ScalarType::F32;
  EXPECT_EQ(error_of(a), "");
}

// An fp8 D (e4m3, e5m2): from 16-bit or fp8 inputs, on the tensor cores only, without C or a
// fused epilogue; scale_d and amax_d only with it, 4-byte aligned, amax_d (written) apart from
// what the kernel reads and writes.
GemmArguments fp8_d(ScalarType in = ScalarType::BF16, ScalarType out = ScalarType::E4M3) {
  GemmArguments a = in == ScalarType::BF16 ? valid() : fp8(in);
  a.a.type = a.b.type = in;
  a.d_type = out;
  a.scale_d = static_cast<float const*>(fake(6));
  a.amax_d = static_cast<float*>(const_cast<void*>(fake(7)));
  return a;
}

TEST(GemmFp8Output, FromSixteenBitAndFp8InputsOnTheTensorCores) {
  for (ScalarType in : {ScalarType::BF16, ScalarType::E4M3, ScalarType::E5M2}) {
    for (ScalarType out : {ScalarType::E4M3, ScalarType::E5M2}) {
      GemmArguments const a = fp8_d(in, out);
      EXPECT_EQ(error_of(a), "") << to_string(in) << " -> " << to_string(out);
      EXPECT_EQ(error_of(a, GemmKernel::TensorCore), "")
          << to_string(in) << " -> " << to_string(out);
      EXPECT_EQ(selected_kernel(a), GemmKernel::TensorCore);
    }
  }
  GemmArguments a = fp8_d();
  a.scale_d = nullptr;  // scale 1
  a.amax_d = nullptr;   // none
  EXPECT_EQ(error_of(a), "");
  a.a.type = a.b.type = ScalarType::F16;  // fp16 too
  EXPECT_EQ(error_of(a), "");
  a = with_inputs(ScalarType::F32);
  a.d_type = ScalarType::E4M3;
  EXPECT_REJECTED(a, "d_type = e4m3: D is fp32 (the input type)");
}

TEST(GemmFp8Output, NotOnTheSimtGemm) {
  GemmArguments a = fp8_d();
  EXPECT_NE(error_of(a, GemmKernel::Simt)
                .find("d_type = e4m3: the SIMT GEMM has no fp8 output; an fp8 D runs on the tensor "
                      "cores (GemmKernel::TensorCore or Auto)"),
            std::string::npos)
      << error_of(a, GemmKernel::Simt);
  // Auto: only where the tensor cores run it (here: an ld that is no multiple of 16 bytes).
  a.ldd = 72;
  EXPECT_REJECTED(a,
                  "ldd = 72 elements (72 bytes) must be a multiple of 16 bytes (TMA strides): for "
                  "e4m3, a multiple of 16 (an fp8 D runs on the tensor cores only)");
  a.ldd = 80;
  EXPECT_EQ(error_of(a), "");
}

TEST(GemmFp8Output, NoCAndNoFusedEpilogue) {
  GemmArguments a = fp8_d();
  a.beta = 1.0f;
  a.c = {fake(4), ScalarType::E4M3, MatrixLayout::RowMajor};
  EXPECT_REJECTED(a,
                  "beta = 1.000000 and d_type = e4m3: an fp8 D takes no C; keep beta 0 and "
                  "beta_ptr null");
  a.beta = 0.0f;
  a.beta_ptr = static_cast<float const*>(fake(8));
  EXPECT_REJECTED(a, "beta = 0.000000 with beta_ptr and d_type = e4m3: an fp8 D takes no C");
  a = fp8_d();
  a.epilogue.activation = Activation::ReLU;
  EXPECT_REJECTED(a,
                  "epilogue is fused but d_type = e4m3: an fp8 D takes the plain epilogue (run a "
                  "fused epilogue with a 16-bit D)");
}

TEST(GemmFp8Output, ScaleAndAmaxOnlyWithAnFp8D) {
  GemmArguments a = valid();
  a.scale_d = static_cast<float const*>(fake(6));
  EXPECT_REJECTED(a,
                  "scale_d is set but d_type = bf16: scale_d and amax_d belong to an fp8 (e4m3, "
                  "e5m2) D");
  a = fp8();
  a.amax_d = static_cast<float*>(const_cast<void*>(fake(7)));
  EXPECT_REJECTED(a, "amax_d is set but d_type = bf16");
  a = fp8_d();
  a.scale_d = reinterpret_cast<float const*>(static_cast<char const*>(fake(6)) + 1);
  EXPECT_REJECTED(a, "scale_d must be 4-byte aligned (it points to one float)");
  a = fp8_d();
  a.amax_d = reinterpret_cast<float*>(static_cast<char*>(const_cast<void*>(fake(7))) + 2);
  EXPECT_REJECTED(a, "amax_d must be 4-byte aligned (it points to one float, maxed atomically)");
}

TEST(GemmFp8Output, AmaxApartFromWhatTheKernelReadsAndWrites) {
  GemmArguments a = fp8_d();
  a.amax_d = static_cast<float*>(a.d) + 10;
  EXPECT_REJECTED(a,
                  "amax_d lies inside d: the kernel writes it while it reads A and B and writes "
                  "D (keep it in memory of its own)");
  a.amax_d = static_cast<float*>(const_cast<void*>(a.b.data));
  EXPECT_REJECTED(a, "amax_d lies inside b.data");
  a = fp8_d();
  a.alpha_ptr = a.amax_d;
  EXPECT_REJECTED(a, "alpha_ptr lies inside amax_d");
  a = fp8_d();
  a.scale_d = reinterpret_cast<float const*>(a.d);
  EXPECT_REJECTED(a, "scale_d lies inside d");
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
  EXPECT_REJECTED(a, "epilogue.activation = Activation(42) is out of range");
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
  EXPECT_REJECTED(a, "epilogue.bias_broadcast = Broadcast(5) is out of range");
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

// ---- Aliasing -----------------------------------------------------------------------------------
// D computed in place over C is allowed (each element is read by the thread that writes it); D
// over A or B, or over a C laid out otherwise, is refused: another CTA could read an element after
// it was overwritten.
TEST(GemmAliasing, DMayBeCInPlace) {
  GemmArguments a = valid();
  a.beta = 1.0f;
  a.c = {a.d, ScalarType::BF16, MatrixLayout::RowMajor};
  EXPECT_EQ(error_of(a), "");
  EXPECT_EQ(error_of(a, GemmKernel::TensorCore), "");
  a.batch = 3;  // packed on both sides: the same batches
  EXPECT_EQ(error_of(a), "");
  a.ldd = a.c.ld = 72;  // padded alike
  EXPECT_EQ(error_of(a), "");
  a.c.ld = 80;  // the same base, other rows
  EXPECT_REJECTED(a,
                  "c.data overlaps d but is not the same matrix: D may alias C only in place "
                  "(c.data == d, c.ld == ldd = 72, c.batch_stride == batch_stride_d = 7200; got "
                  "c.ld = 80, c.batch_stride = 8000)");
  a.c.ld = 72;
  a.c.batch_stride = 0;  // one C broadcast over D's batches
  EXPECT_REJECTED(a, "c.data overlaps d but is not the same matrix");
  a = valid();
  a.beta = 1.0f;
  a.c = {off(a.d, 128), ScalarType::BF16, MatrixLayout::RowMajor};  // C one row further
  EXPECT_REJECTED(a, "c.data overlaps d but is not the same matrix");
  // beta == 0: C is not read, so it may be anything.
  a.beta = 0.0f;
  EXPECT_EQ(error_of(a), "");
}

TEST(GemmAliasing, DMustNotAliasAOrB) {
  GemmArguments a = valid();
  a.d = const_cast<void*>(a.a.data);
  EXPECT_REJECTED(a, "d overlaps a.data: D must not alias A or B (their memory ranges overlap)");
  a.d = const_cast<char*>(off(a.b.data, 2 * 40 * 63));  // B's last column
  EXPECT_REJECTED(a, "d overlaps b.data: D must not alias A or B");
  a.d = const_cast<char*>(off(a.b.data, 2 * 40 * 64));  // just past B
  EXPECT_EQ(error_of(a), "");
  // A batched D reaching into A only through its later batches.
  a = valid();
  a.batch = 2;
  a.a.batch_stride = 0;  // one A, broadcast
  a.d = const_cast<char*>(off(a.a.data, -2 * 6400));
  EXPECT_REJECTED(a, "d overlaps a.data");
  a.batch = 1;
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

// alpha and beta in device memory (cuBLAS's device pointer mode): each kernel takes them, beta_ptr
// brings C's rules with it (whether C is read is decided on the device), a host value beside its
// pointer is refused (it would be ignored), and like every device scalar they are 4-byte aligned
// and outside the outputs.
TEST(GemmDeviceScalars, AlphaAndBetaPointersPass) {
  float const* const alpha = static_cast<float const*>(fake(5));
  float const* const beta = alpha + 1;
  for (ScalarType in : {ScalarType::BF16, ScalarType::F16, ScalarType::F32, ScalarType::F64}) {
    GemmArguments a = with_inputs(in);
    a.alpha_ptr = alpha;
    EXPECT_EQ(error_of(a), "") << to_string(in);
    EXPECT_EQ(error_of(a, GemmKernel::Simt), "") << to_string(in);
    a.beta_ptr = beta;
    a.c = {fake(4), in, MatrixLayout::RowMajor};
    EXPECT_EQ(error_of(a), "") << to_string(in);
    EXPECT_EQ(error_of(a, GemmKernel::Simt), "") << to_string(in);
  }
  GemmArguments a = valid();
  a.alpha_ptr = alpha;
  a.beta_ptr = beta;
  a.c = {a.d, ScalarType::BF16, MatrixLayout::RowMajor};  // in place
  EXPECT_EQ(error_of(a, GemmKernel::TensorCore), "");
  EXPECT_EQ(selected_kernel(a), GemmKernel::TensorCore);
  // fp8 inputs: beside the per-tensor scales.
  a = fp8();
  a.scale_a = alpha + 2;
  a.alpha_ptr = alpha;
  EXPECT_EQ(error_of(a, GemmKernel::TensorCore), "");
}

TEST(GemmDeviceScalars, BetaPointerNeedsC) {
  GemmArguments a = valid();
  a.beta_ptr = static_cast<float const*>(fake(5));
  EXPECT_REJECTED(a,
                  "c.data is null but beta_ptr is set: the kernel reads C whenever *beta_ptr != "
                  "0, which only the device knows; pass C (it may be D, in place)");
  // ... and C's rules, as for beta != 0.
  a.c = {fake(4), ScalarType::F16, MatrixLayout::RowMajor};
  EXPECT_REJECTED(a, "c.type = fp16 differs from d_type = bf16");
  a.c = {fake(4), ScalarType::BF16, MatrixLayout::ColMajor};
  EXPECT_REJECTED(a, "c.layout = column-major differs from d_layout = row-major");
  a.c = {fake(4), ScalarType::BF16, MatrixLayout::RowMajor, 10};
  EXPECT_REJECTED(a, "c.ld = 10 is less than the row-major operand's contiguous extent 64");
  a.c = {off(a.d, 128), ScalarType::BF16, MatrixLayout::RowMajor};
  EXPECT_REJECTED(a, "c.data overlaps d but is not the same matrix");
  a.c = {fake(4), ScalarType::BF16, MatrixLayout::RowMajor};
  EXPECT_EQ(error_of(a), "");
  // Resolved, C is described as given (not as D's shape, which stands in for an unread C).
  EXPECT_EQ(resolved(a).c.data, fake(4));
  EXPECT_EQ(resolved(a).c.ld, 64);
}

TEST(GemmDeviceScalars, AHostValueBesideItsPointerIsRefused) {
  GemmArguments a = valid();
  a.alpha_ptr = static_cast<float const*>(fake(5));
  a.alpha = 2.0f;
  EXPECT_REJECTED(a,
                  "alpha = 2.000000 and alpha_ptr are both set: the kernel reads *alpha_ptr in "
                  "place of alpha; leave alpha at 1");
  a = valid();
  a.c = {fake(4), ScalarType::BF16, MatrixLayout::RowMajor};
  a.beta_ptr = static_cast<float const*>(fake(5));
  a.beta = 0.5f;
  EXPECT_REJECTED(a,
                  "beta = 0.500000 and beta_ptr are both set: the kernel reads *beta_ptr in place "
                  "of beta; leave beta at 0");
  a.beta = 0.0f;
  EXPECT_EQ(error_of(a), "");
}

TEST(GemmDeviceScalars, AlignedToAFloat) {
  float const* const odd = reinterpret_cast<float const*>(static_cast<char const*>(fake(5)) + 2);
  GemmArguments a = valid();
  a.alpha_ptr = odd;
  EXPECT_REJECTED(a, "alpha_ptr must be 4-byte aligned (it points to one float)");
  a = valid();
  a.c = {fake(4), ScalarType::BF16, MatrixLayout::RowMajor};
  a.beta_ptr = odd;
  EXPECT_REJECTED(a, "beta_ptr must be 4-byte aligned (it points to one float)");
  a.beta_ptr = odd + 1;  // 6 bytes on: still odd
  EXPECT_REJECTED(a, "beta_ptr must be 4-byte aligned");
  a.beta_ptr = reinterpret_cast<float const*>(static_cast<char const*>(fake(5)) + 4);
  EXPECT_EQ(error_of(a), "");
}

TEST(GemmDeviceScalars, OutsideTheOutputs) {
  GemmArguments a = valid();
  a.alpha_ptr = reinterpret_cast<float const*>(off(a.d, 100 * 64 * 2 - 4));  // D's last float
  EXPECT_REJECTED(a,
                  "alpha_ptr lies inside d: the kernel reads it while writing there (keep it in "
                  "memory of its own)");
  a.alpha_ptr = reinterpret_cast<float const*>(off(a.d, 100 * 64 * 2));  // just past D
  EXPECT_EQ(error_of(a), "");
  // The fp8 scales too, and the pre-activation output is an output like D.
  a = fp8();
  a.scale_b = reinterpret_cast<float const*>(a.d);
  EXPECT_REJECTED(a, "scale_b lies inside d");
  a = fused();
  a.c = {fake(4), ScalarType::BF16, MatrixLayout::RowMajor};
  a.beta_ptr = reinterpret_cast<float const*>(off(a.epilogue.pre_activation.data, 64));
  EXPECT_REJECTED(a, "beta_ptr lies inside epilogue.pre_activation.data");
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

// Auto picks ping-pong for outputs of 8192 x 8192 and more (on the H200's memory bandwidth; the
// two-argument form reads it without a GPU), for outputs of 4096 x 4096 and more at K <= 1024, and
// for epilogues with a second pass below K = 4096 (where it measured faster), the cooperative
// design otherwise; an explicit design is kept.
TEST(GemmTuning, ConsumerDesignSelection) {
  GemmArguments a = valid();
  a.m = a.n = 8192;
  a.k = 1024;
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto), ConsumerDesign::PingPong);
  EXPECT_EQ(selected_design(a, ConsumerDesign::Cooperative), ConsumerDesign::Cooperative);
  a.m = a.n = 4096;  // short K on a mid-sized output
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto), ConsumerDesign::PingPong);
  a.k = 1025;
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto), ConsumerDesign::Cooperative);
  a.k = 1024;
  a.m = 4095;
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto), ConsumerDesign::Cooperative);
  a.m = 8191;
  a.n = 8192;
  a.k = 2048;
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto), ConsumerDesign::Cooperative);
  EXPECT_EQ(selected_design(a, ConsumerDesign::PingPong), ConsumerDesign::PingPong);
  a.k = 8192;
  a.m = 1024;
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto), ConsumerDesign::Cooperative);
  // An epilogue with a second pass (activation, residual, pre-activation) takes ping-pong on any
  // size below K = 4096 and the cooperative design from there on; a bias or scales alone (folded
  // into the accumulator pass) follow the plain GEMM's choice.
  float const bias[1] = {};
  a.epilogue.bias = bias;
  a.k = 2048;
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto), ConsumerDesign::Cooperative);
  a.epilogue.activation = Activation::SiLU;
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto), ConsumerDesign::PingPong);
  EXPECT_EQ(selected_design(a, ConsumerDesign::Cooperative), ConsumerDesign::Cooperative);
  a.k = 4095;
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto), ConsumerDesign::PingPong);
  a.k = 4096;
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto), ConsumerDesign::Cooperative);
  EXPECT_EQ(selected_design(a, ConsumerDesign::PingPong), ConsumerDesign::PingPong);
  a.m = a.n = 16384;  // a large output with a second pass still goes by K
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto), ConsumerDesign::Cooperative);
  a.epilogue.activation = Activation::Identity;      // bias alone: the plain GEMM's choice
  constexpr double kH200 = 4.9e12, kH100 = 3.35e12;  // DRAM bytes per second
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto, kH200), ConsumerDesign::PingPong);
  // On the H100's slower memory large outputs past K = 1024 take the cooperative design; a short
  // K (an epilogue per few K tiles) still takes ping-pong, a design asked for stays.
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto, kH100), ConsumerDesign::Cooperative);
  EXPECT_EQ(selected_design(a, ConsumerDesign::PingPong, kH100), ConsumerDesign::PingPong);
  a.k = 1025;
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto, kH100), ConsumerDesign::Cooperative);
  a.k = 1024;
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto, kH100), ConsumerDesign::PingPong);
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto, kH200), ConsumerDesign::PingPong);
  a.epilogue.residual = {fake(4), ScalarType::BF16, MatrixLayout::RowMajor};
  EXPECT_EQ(selected_design(a, ConsumerDesign::Auto), ConsumerDesign::PingPong);
  EXPECT_EQ(to_string(ConsumerDesign::Auto), "auto");
  EXPECT_EQ(to_string(ConsumerDesign::Cooperative), "cooperative");
  EXPECT_EQ(to_string(ConsumerDesign::PingPong), "pingpong");
}

// The grouped GEMM's Auto: cooperative where the groups' output tiles run a K of 2048
// or more on average (tiles weigh, not groups), ping-pong otherwise and for a second-pass
// epilogue; an explicit design or stage count is the caller's.
TEST(GemmTuning, GroupedSelection) {
  GemmArguments long_k = valid();
  long_k.m = 1024;
  long_k.n = 4096;
  long_k.k = 4096;
  GemmArguments short_k = long_k;
  short_k.m = short_k.n = 128;
  short_k.k = 128;
  GemmTuning const kStatic{.tile_scheduling = TileScheduling::Static};
  auto const select = [](std::vector<GemmArguments> const& g,
                         GemmTuning tuning = {.tile_scheduling = TileScheduling::Static}) {
    return selected_grouped_tuning(g.data(), g.size(), tuning);
  };
  // The static walk's design: cooperative at long K, ping-pong at short K and with a second pass.
  std::vector<GemmArguments> groups = {long_k, short_k, short_k};
  GemmTuning const moe = select(groups);
  EXPECT_EQ(moe.design, ConsumerDesign::Cooperative);
  EXPECT_EQ(moe.stages, 0);  // the design's default
  EXPECT_EQ(moe.staging_buffers, 0);
  groups = {short_k, short_k};
  EXPECT_EQ(select(groups).design, ConsumerDesign::PingPong);
  EXPECT_EQ(select(groups).stages, 0);  // the design's default
  // One long-K group among many short ones of more tiles: short on average.
  groups.assign(300, short_k);
  groups.push_back(long_k);  // 256 tiles at K = 4096 against 300 at 128: mean < 2048
  EXPECT_EQ(select(groups).design, ConsumerDesign::PingPong);
  // No group with a tile (empty or refused later): ping-pong, nothing divided by zero.
  GemmArguments empty = long_k;
  empty.m = 0;
  groups = {empty};
  EXPECT_EQ(select(groups).design, ConsumerDesign::PingPong);
  EXPECT_EQ(selected_grouped_tuning(nullptr, 0, kStatic).design, ConsumerDesign::PingPong);
  groups = {long_k};
  EXPECT_EQ(select(groups, {.design = ConsumerDesign::PingPong}).design, ConsumerDesign::PingPong);
  GemmTuning const staged =
      select(groups, {.stages = 3, .tile_scheduling = TileScheduling::Static});
  EXPECT_EQ(staged.design, ConsumerDesign::Cooperative);
  EXPECT_EQ(staged.stages, 3);  // the caller's
  groups[0].epilogue.activation = Activation::GELU;
  EXPECT_EQ(select(groups).design, ConsumerDesign::PingPong);
  // The dynamic scheduler is the cooperative design's: design Auto becomes Cooperative with it,
  // also where the static walk would take ping-pong.
  GemmTuning const dynamic = select(groups, {.tile_scheduling = TileScheduling::Dynamic});
  EXPECT_EQ(dynamic.tile_scheduling, TileScheduling::Dynamic);
  EXPECT_EQ(dynamic.design, ConsumerDesign::Cooperative);
}

// Auto's tile walk: the dynamic scheduler (and so the cooperative design) for 16-bit groups with
// the plain epilogue at the design's default shape, measured faster on short and long K; the
// static walk for fp8, a fused epilogue, other stages or staging buffers, and ping-pong.
TEST(GemmTuning, GroupedSelectionOfTheTileWalk) {
  GemmArguments short_k = valid();
  short_k.m = short_k.n = short_k.k = 128;
  auto const select = [](std::vector<GemmArguments> const& g, GemmTuning tuning = {}) {
    return selected_grouped_tuning(g.data(), g.size(), tuning);
  };
  std::vector<GemmArguments> groups = {short_k, short_k};
  GemmTuning const chosen = select(groups);
  EXPECT_EQ(chosen.tile_scheduling, TileScheduling::Dynamic);
  EXPECT_EQ(chosen.design, ConsumerDesign::Cooperative);
  EXPECT_EQ(select(groups, {.design = ConsumerDesign::Cooperative}).tile_scheduling,
            TileScheduling::Dynamic);
  EXPECT_EQ(selected_grouped_tuning(nullptr, 0, {}).tile_scheduling, TileScheduling::Dynamic);
  auto const walk = [&](std::vector<GemmArguments> const& g, GemmTuning tuning = {}) {
    return select(g, tuning).tile_scheduling;
  };
  EXPECT_EQ(walk(groups, {.design = ConsumerDesign::PingPong}), TileScheduling::Static);
  EXPECT_EQ(walk(groups, {.stages = 3}), TileScheduling::Static);
  EXPECT_EQ(walk(groups, {.staging_buffers = 1}), TileScheduling::Static);
  EXPECT_EQ(walk(groups, {.stages = 4, .staging_buffers = 2}), TileScheduling::Dynamic);
  std::vector<GemmArguments> fused = groups;
  fused[1].epilogue.bias = fake(9);
  EXPECT_EQ(walk(fused), TileScheduling::Static);
  EXPECT_EQ(select(fused).design, ConsumerDesign::PingPong);  // the static walk's short-K choice
  std::vector<GemmArguments> fp8 = groups;
  fp8[0].a.type = fp8[0].b.type = ScalarType::E4M3;
  EXPECT_EQ(walk(fp8), TileScheduling::Static);
}

// The dynamic tile scheduler runs the grouped kernels: gemm() refuses it by name, and an
// out-of-range value is named as every enumeration is.
TEST(GemmTuning, TheDynamicTileSchedulerIsRefusedWhereItDoesNotRun) {
  GemmTuning const dynamic{.tile_scheduling = TileScheduling::Dynamic};
  EXPECT_EQ(invalid_argument_message([&] { gemm(valid(), nullptr, dynamic); }),
            "gemm: tuning.tile_scheduling = dynamic: the dynamic tile scheduler runs the grouped "
            "GEMMs (grouped_gemm and its layouts); gemm() walks its tiles in a static order (Auto "
            "or Static) or stream-K");
  EXPECT_NE(invalid_argument_message([&] {
              gemm(valid(), nullptr, {.tile_scheduling = static_cast<TileScheduling>(4)});
            })
                .find("tuning.tile_scheduling = TileScheduling(4) is out of range: the "
                      "TileScheduling values are auto, static, dynamic, stream-k (0 to 3)"),
            std::string::npos);
  EXPECT_EQ(to_string(TileScheduling::Dynamic), "dynamic");
  EXPECT_EQ(to_string(TileScheduling::StreamK), "stream-k");
  EXPECT_EQ(invalid_argument_message([] { (void)to_string(static_cast<TileScheduling>(4)); }),
            "to_string: TileScheduling(4) is out of range (0 to 3)");
}

// ---- Batch strides: kPacked, 0 (broadcast), interleaved -----------------------------------------
TEST(GemmBatchStride, PackedIsTheDefaultAndItsOwnSpelling) {
  EXPECT_EQ(Matrix{}.batch_stride, kPacked);
  EXPECT_EQ(GemmArguments{}.batch_stride_d, kPacked);
  GemmArguments a = valid();
  a.batch = 2;
  a.a.batch_stride = kPacked;
  EXPECT_EQ(resolved(a).a.batch_stride, 4000);
  a.a.batch_stride = -5;
  EXPECT_REJECTED(a,
                  "a.batch_stride = -5 is negative: kPacked (-1) packs the batches, 0 broadcasts "
                  "one matrix, a positive stride places them");
}

// cuBLAS's and DLPack's batch stride 0: one matrix read by every batch. Resolution keeps the 0 (the
// kernels read batch 0 of it), every kernel runs it, and TMA's rules hold for it (its descriptor
// holds one batch).
TEST(GemmBatchStride, ZeroBroadcastsAOrBOrC) {
  GemmArguments a = valid();
  a.batch = 3;
  a.a.batch_stride = 0;
  a.b.batch_stride = 0;
  a.beta = 1.0f;
  a.c = {fake(4), ScalarType::BF16, MatrixLayout::RowMajor, 0, 0};
  EXPECT_EQ(error_of(a), "");
  EXPECT_EQ(error_of(a, GemmKernel::TensorCore), "");
  EXPECT_EQ(error_of(a, GemmKernel::Simt), "");
  EXPECT_EQ(selected_kernel(a), GemmKernel::TensorCore);
  GemmArguments const r = resolved(a);
  EXPECT_EQ(r.a.batch_stride, 0);
  EXPECT_EQ(r.b.batch_stride, 0);
  EXPECT_EQ(r.c.batch_stride, 0);
  EXPECT_EQ(r.batch_stride_d, 6400);
  // One batch: nothing is broadcast, and the stride resolves to one packed batch as any other.
  a.batch = 1;
  EXPECT_EQ(resolved(a).a.batch_stride, 4000);
}

// D is written: a broadcast D would have every batch write the same memory.
TEST(GemmBatchStride, DIsNeverBroadcast) {
  GemmArguments a = valid();
  a.batch = 2;
  a.batch_stride_d = 0;
  EXPECT_REJECTED(a,
                  "batch_stride_d = 0 broadcasts one matrix across the batch, but d is written: "
                  "its 2 batches would all write the same memory");
  a.batch = 1;  // one batch: the stride is never followed
  EXPECT_EQ(error_of(a), "");
}

// The epilogue's matrices follow the same rule: the residual is read and may be broadcast, the
// pre-activation output is written and may not.
TEST(GemmBatchStride, ResidualMayBePreActivationNeverBroadcast) {
  GemmArguments a = fused();
  a.batch = 2;
  a.epilogue.residual.batch_stride = 0;
  EXPECT_EQ(error_of(a), "");
  EXPECT_EQ(resolved(a).epilogue.residual.batch_stride, 0);
  a.epilogue.pre_activation.batch_stride = 0;
  EXPECT_REJECTED(a,
                  "epilogue.pre_activation.batch_stride = 0 broadcasts one matrix across the "
                  "batch, but epilogue.pre_activation is written");
}

// Batches side by side inside each row (a [M][batch][N] tensor: ld = batch x N, stride N) share no
// element and are accepted; a stride that makes two batches share one is not.
TEST(GemmBatchStride, InterleavedBatchesMustNotShareAnElement) {
  GemmArguments a = valid();  // D 100 x 64 row-major
  a.batch = 4;
  a.ldd = 4 * 64;
  a.batch_stride_d = 64;
  EXPECT_EQ(error_of(a), "");
  EXPECT_EQ(selected_kernel(a), GemmKernel::TensorCore);
  a.batch_stride_d = 63;  // batch 1's first column is batch 0's last
  EXPECT_REJECTED(a,
                  "batch_stride_d = 63 is less than one batch (25600 elements): batches would "
                  "overlap (batches side by side inside each row need a batch stride of at least "
                  "64 and (batch - 1) x batch_stride + 64 <= ldd = 256)");
  a.batch_stride_d = 80;  // batch 3 runs past the row's ld
  EXPECT_REJECTED(a, "batch_stride_d = 80 is less than one batch");
  a.ldd = 304;  // now it fits: 3 x 80 + 64 = 304
  EXPECT_EQ(error_of(a), "");
  // The same rules for an input.
  a = valid();
  a.batch = 2;
  a.a.batch_stride = 39;
  EXPECT_REJECTED(a, "a.batch_stride = 39 is less than one batch (4000 elements)");
}

// ---- Extents near 2^31 --------------------------------------------------------------------------
TEST(GemmExtents, MNAndKUpToKMaxExtent) {
  EXPECT_EQ(kMaxExtent, INT_MAX - 1023);
  for (int GemmArguments::*dim : {&GemmArguments::m, &GemmArguments::n, &GemmArguments::k}) {
    GemmArguments a = valid();
    a.*dim = kMaxExtent;
    EXPECT_EQ(error_of(a), "");
    for (int too_big : {kMaxExtent + 1, INT_MAX}) {
      a.*dim = too_big;
      std::string const e = error_of(a);
      EXPECT_NE(e.find(" = " + std::to_string(too_big) +
                       " exceeds kMaxExtent = 2147482624 (2^31 - 1024): the kernels index rows, "
                       "columns and K in 32 bits"),
                std::string::npos)
          << e;
    }
  }
  GemmArguments a = valid();
  a.k = INT_MAX;  // until the cap: K tiles rounded up in int to a negative count, D = 0
  EXPECT_REJECTED(a, "k = 2147483647 exceeds kMaxExtent");
  a = valid();
  a.m = INT_MAX;  // until the cap: a negative tile count, a raw cudaErrorInvalidValue
  EXPECT_REJECTED(a, "m = 2147483647 exceeds kMaxExtent");
}

TEST(GemmExtents, TileIndicesStayBelow2To30) {
  GemmArguments a = valid();
  a.m = a.n = 1 << 21;  // 2^15 x 2^15 tiles of 64 x 64: 2^30
  a.k = 8;
  EXPECT_EQ(error_of(a), "");
  a.batch = 2;
  EXPECT_REJECTED(
      a,
      "m x n x batch = 2097152 x 2097152 x 2 is more than 2^30 output tiles of 64 x 64: "
      "the kernels count tiles in 32 bits");
  a.batch = INT_MAX;
  EXPECT_REJECTED(a, "is more than 2^30 output tiles");
}

// ---- Strides TMA cannot hold, offsets beyond 64 bits --------------------------------------------
// The probe's M = 1 with ld = 2^40 elements: until the check, CuTe built a TMA descriptor anyway
// (it only asserts the stride limit) and the kernel ended the context with an illegal
// instruction. The SIMT GEMM never follows the stride of a single row.
TEST(GemmStrides, TmaStridesBelow2To40Bytes) {
  GemmArguments a = valid();
  a.m = 1;
  a.a.ld = std::int64_t{1} << 40;
  EXPECT_REJECTED_BY_TENSOR_CORES(
      a, "a.ld = 1099511627776 elements of 2 bytes: TMA strides must be below 2^40 bytes");
  EXPECT_EQ(error_of(a), "");
  EXPECT_EQ(selected_kernel(a), GemmKernel::Simt);
  a.a.ld = (std::int64_t{1} << 39) - 8;  // 2^40 - 16 bytes: the largest TMA stride
  EXPECT_EQ(selected_kernel(a), GemmKernel::TensorCore);
  // Batch strides too.
  a = valid();
  a.batch = 2;
  a.b.batch_stride = std::int64_t{1} << 39;
  EXPECT_REJECTED_BY_TENSOR_CORES(
      a, "b.batch_stride = 549755813888 elements of 2 bytes: TMA strides must be below 2^40 bytes");
  EXPECT_EQ(selected_kernel(a), GemmKernel::Simt);
  // One batch, or one broadcast to all: the descriptor holds the stride of one packed batch.
  a = valid();
  a.m = 1 << 20;
  a.a.ld = 1 << 19;  // one batch of A: 2^39 elements, 2^40 bytes
  EXPECT_REJECTED_BY_TENSOR_CORES(
      a,
      "one batch of a (a.ld x 1048576 = 549755813888 elements of 2 bytes) must be below 2^40 "
      "bytes");
  EXPECT_EQ(selected_kernel(a), GemmKernel::Simt);
  a.batch = 3;
  a.a.batch_stride = 0;
  EXPECT_REJECTED_BY_TENSOR_CORES(a, "one batch of a (a.ld x 1048576");
}

// An ld x rows (or batch stride x batch) product beyond 64 bits was accepted, and the kernels'
// offsets wrapped around.
TEST(GemmStrides, OffsetsMustFit64Bits) {
  GemmArguments a = valid();
  a.a.ld = std::int64_t{1} << 62;
  EXPECT_REJECTED(a,
                  "a reaches beyond 64-bit byte offsets from a.data: a.ld = 4611686018427387904 "
                  "over 100 rows");
  a = valid();
  a.batch = 8;
  a.b.batch_stride = std::int64_t{1} << 61;
  EXPECT_REJECTED(a,
                  "b reaches beyond 64-bit byte offsets from b.data: b.ld = 40 over 64 columns and "
                  "b.batch_stride = 2305843009213693952 over 8 batches");
  a = valid();
  a.ldd = (std::int64_t{1} << 62) / 50;  // fits as elements, not as bytes
  EXPECT_REJECTED(a, "d reaches beyond 64-bit byte offsets from d: ldd = ");
  // Past the end of the address space.
  a = valid();
  a.d = reinterpret_cast<void*>(std::uintptr_t{1} << 63);
  EXPECT_REJECTED(a, "d reaches beyond 64-bit byte offsets from d");
  // The largest: 100 rows 2^55 elements apart end below 2^63 bytes (100 x 2^56 < 2^63).
  // (A or B placed above D: spans this long reach over every other fake address.)
  a = valid();
  a.a.data = fake(4);
  a.a.ld = std::int64_t{1} << 55;
  EXPECT_EQ(error_of(a), "");
  a = valid();
  a.b.data = fake(4);
  a.batch = 8;
  a.b.batch_stride = std::int64_t{1} << 58;  // 7 x 2^59 bytes < 2^63
  EXPECT_EQ(error_of(a), "");
}

// ---- Enumerations out of range ------------------------------------------------------------------
// Bindings and deserialisers cast integers to the enumerations: each field is refused by name with
// its value (an out-of-range type once made size_of 0 and a division by it SIGFPE).
TEST(GemmEnums, EveryFieldIsCheckedByName) {
  struct Case {
    void (*set)(GemmArguments&);
    char const* message;
  };
  Case const cases[] = {
      {[](GemmArguments& a) { a.a.type = static_cast<ScalarType>(6); },
       "a.type = ScalarType(6) is out of range: the ScalarType values are fp16, bf16, fp32, fp64, "
       "e4m3, e5m2 (0 to 5)"},
      {[](GemmArguments& a) { a.b.type = static_cast<ScalarType>(-1); },
       "b.type = ScalarType(-1) is out of range"},
      {[](GemmArguments& a) { a.a.layout = static_cast<MatrixLayout>(2); },
       "a.layout = MatrixLayout(2) is out of range: the MatrixLayout values are row-major, "
       "column-major (0 to 1)"},
      {[](GemmArguments& a) { a.b.layout = static_cast<MatrixLayout>(7); },
       "b.layout = MatrixLayout(7)"},
      {[](GemmArguments& a) { a.c.type = static_cast<ScalarType>(100); },
       "c.type = ScalarType(100)"},
      {[](GemmArguments& a) { a.c.layout = static_cast<MatrixLayout>(-3); },
       "c.layout = MatrixLayout(-3)"},
      {[](GemmArguments& a) { a.d_type = static_cast<ScalarType>(6); }, "d_type = ScalarType(6)"},
      {[](GemmArguments& a) { a.d_layout = static_cast<MatrixLayout>(2); },
       "d_layout = MatrixLayout(2)"},
      {[](GemmArguments& a) { a.epilogue.activation = static_cast<Activation>(9); },
       "epilogue.activation = Activation(9) is out of range: the Activation values are identity, "
       "relu, leaky_relu, gelu, gelu_tanh, hardswish, sigmoid, silu, tanh (0 to 8)"},
      {[](GemmArguments& a) { a.epilogue.bias_type = static_cast<ScalarType>(8); },
       "epilogue.bias_type = ScalarType(8)"},
      {[](GemmArguments& a) { a.epilogue.bias_broadcast = static_cast<Broadcast>(2); },
       "epilogue.bias_broadcast = Broadcast(2) is out of range: the Broadcast values are per-row, "
       "per-column (0 to 1)"},
      {[](GemmArguments& a) { a.epilogue.residual.type = static_cast<ScalarType>(6); },
       "epilogue.residual.type = ScalarType(6)"},
      {[](GemmArguments& a) { a.epilogue.pre_activation.layout = static_cast<MatrixLayout>(5); },
       "epilogue.pre_activation.layout = MatrixLayout(5)"},
  };
  for (Case const& c : cases) {
    GemmArguments a = valid();
    c.set(a);
    EXPECT_REJECTED(a, c.message);
    EXPECT_NE(invalid_argument_message([&] { gemm(a); }).find(c.message), std::string::npos);
    EXPECT_NE(invalid_argument_message([&] { (void)selected_kernel(a); }).find(c.message),
              std::string::npos);
  }
}

TEST(GemmEnums, KernelAndDesignArguments) {
  GemmArguments const a = valid();
  auto const kernel = static_cast<GemmKernel>(3);
  auto const design = static_cast<ConsumerDesign>(-1);
  std::string const bad_kernel =
      "kernel = GemmKernel(3) is out of range: the GemmKernel values are auto, tensor-core, simt "
      "(0 "
      "to 2)";
  EXPECT_NE(error_of(a, kernel).find(bad_kernel), std::string::npos) << error_of(a, kernel);
  EXPECT_NE(invalid_argument_message([&] { (void)selected_kernel(a, kernel); }).find(bad_kernel),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] { (void)resolved(a, kernel); }).find(bad_kernel),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] { (void)selected_design(a, design); })
                .find("design = ConsumerDesign(-1) is out of range: the ConsumerDesign values are "
                      "auto, cooperative, pingpong (0 to 2)"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] {
              gemm(a, nullptr, GemmTuning{.kernel = kernel});
            }).find("tuning.kernel = GemmKernel(3)"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] {
              gemm(a, nullptr, GemmTuning{.design = design});
            }).find("tuning.design = ConsumerDesign(-1)"),
            std::string::npos);
}

TEST(GemmEnums, NamesAndSizesRefuseValuesOutOfRange) {
  EXPECT_EQ(invalid_argument_message([] { (void)to_string(static_cast<ScalarType>(6)); }),
            "to_string: ScalarType(6) is out of range (0 to 5)");
  EXPECT_EQ(invalid_argument_message([] { (void)size_of(static_cast<ScalarType>(-1)); }),
            "size_of: ScalarType(-1) is out of range (0 to 5)");
  EXPECT_EQ(invalid_argument_message([] { (void)to_string(static_cast<MatrixLayout>(2)); }),
            "to_string: MatrixLayout(2) is out of range (0 to 1)");
  EXPECT_EQ(invalid_argument_message([] { (void)to_string(static_cast<GemmKernel>(3)); }),
            "to_string: GemmKernel(3) is out of range (0 to 2)");
  EXPECT_EQ(invalid_argument_message([] { (void)to_string(static_cast<ConsumerDesign>(9)); }),
            "to_string: ConsumerDesign(9) is out of range (0 to 2)");
  EXPECT_EQ(invalid_argument_message([] { (void)to_string(static_cast<Activation>(9)); }),
            "to_string: Activation(9) is out of range (0 to 8)");
  EXPECT_EQ(invalid_argument_message([] { (void)to_string(static_cast<Broadcast>(2)); }),
            "to_string: Broadcast(2) is out of range (0 to 1)");
  EXPECT_EQ(to_string(MatrixLayout::ColMajor), "column-major");
  EXPECT_EQ(to_string(Broadcast::PerRow), "per-row");
}

// grouped_gemm checks every group as gemm() checks one, before any launch, and names the group.
TEST(GroupedGemm, EveryGroupIsCheckedFirstAndNamed) {
  EXPECT_EQ(invalid_argument_message([] { grouped_gemm(nullptr, 2); }),
            "grouped_gemm: groups is null with count = 2: give count groups");
  grouped_gemm(nullptr, 0);  // nothing to run, nothing checked against a device
  std::vector<GemmArguments> groups = {valid(), valid(), valid()};
  groups[2].k = 0;
  groups[1].b.type = ScalarType::F16;
  std::string const message =
      invalid_argument_message([&] { grouped_gemm(groups.data(), groups.size()); });
  EXPECT_EQ(message.rfind("grouped_gemm: groups[1]: ", 0), 0u) << message;
  EXPECT_NE(message.find("a.type = bf16 and b.type = fp16 differ"), std::string::npos) << message;
  groups[1] = valid();
  EXPECT_NE(invalid_argument_message([&] {
              grouped_gemm(groups.data(), groups.size());
            }).find("grouped_gemm: groups[2]: gemm: k = 0 must be at least 1"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] {
              grouped_gemm(groups.data(), groups.size(), nullptr, {.raster_panel = 0});
            }).find("tuning.raster_panel = 0"),
            std::string::npos);
}

// prepare_grouped_gemm checks as grouped_gemm does, under its own name, before it sets anything
// up; a prepared GEMM made empty or moved from runs nothing.
TEST(GroupedGemm, PreparingChecksEveryGroupFirstAndNamesItself) {
  EXPECT_EQ(invalid_argument_message([] { (void)prepare_grouped_gemm(nullptr, 2); }),
            "prepare_grouped_gemm: groups is null with count = 2: give count groups");
  std::vector<GemmArguments> groups = {valid(), valid()};
  groups[1].k = 0;
  EXPECT_NE(invalid_argument_message([&] {
              (void)prepare_grouped_gemm(groups.data(), groups.size());
            }).find("prepare_grouped_gemm: groups[1]: gemm: k = 0 must be at least 1"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] {
              (void)prepare_grouped_gemm(groups.data(), groups.size(), nullptr, {.split_k = 2});
            }).find("prepare_grouped_gemm: tuning.split_k = 2"),
            std::string::npos);
  PreparedGroupedGemm empty;
  EXPECT_EQ(empty.groups(), 0u);
  EXPECT_EQ(empty.grouped_launches(), 0u);
  empty.run();  // nothing to enqueue, no device asked
  PreparedGroupedGemm moved = std::move(empty);
  moved.run();
}

// One launch counts the tiles of all its groups in 32 bits: groups each within gemm()'s bound that
// together pass 2^30 tiles of 64 x 64 are refused, naming the group that crossed it.
TEST(GroupedGemm, TheTilesOfOneLaunchFitThirtyBits) {
  GemmArguments big = valid();
  big.m = 1 << 18;  // 2^12 x 2^14 = 2^26 tiles of 64 x 64 per group; D's one batch 2^39 bytes
  big.n = 1 << 20;
  big.k = 64;
  std::vector<GemmArguments> groups(17, big);
  for (std::size_t i = 0; i < groups.size(); ++i) {  // operands 2^44 bytes apart, none shared
    groups[i].a.data = fake(3 * i + 1);
    groups[i].b.data = fake(3 * i + 2);
    groups[i].d = const_cast<void*>(fake(3 * i + 3));
  }
  EXPECT_NE(invalid_argument_message([&] {
              grouped_gemm(groups.data(), groups.size(), nullptr,
                           {.kernel = GemmKernel::TensorCore});
            })
                .find("grouped_gemm: groups[16]: the groups up to this one make 1140850688 output "
                      "tiles"),
            std::string::npos);
}

// grouped_gemm_masked refuses, before any launch and naming the argument: a null or misaligned
// count array, a column-major D (the counts are of D's rows), the epilogue tensors it does not take
// yet, a problem only the SIMT GEMM runs, an fp8 D, and whatever gemm() refuses of the batched
// problem itself.
TEST(GroupedGemm, TheMaskedLayoutRefusesByName) {
  GemmArguments moe = valid();
  moe.batch = 4;
  auto const* counts = static_cast<int const*>(fake(5));
  auto const message = [](GemmArguments const& a, int const* valid_m) {
    return invalid_argument_message([&] { grouped_gemm_masked(a, valid_m); });
  };
  EXPECT_EQ(message(moe, nullptr),
            "grouped_gemm_masked: valid_m is null: give batch = 4 int32 counts of valid rows in "
            "device memory");
  EXPECT_EQ(message(moe, reinterpret_cast<int const*>(reinterpret_cast<char const*>(counts) + 2)),
            "grouped_gemm_masked: valid_m is not 4-byte aligned: it holds int32 counts");
  GemmArguments col_d = moe;
  col_d.d_layout = MatrixLayout::ColMajor;
  EXPECT_EQ(message(col_d, counts),
            "grouped_gemm_masked: d_layout is column-major: valid_m counts rows of D, which must "
            "be row-major");
  GemmArguments residual = moe;
  residual.epilogue.residual = {fake(6), ScalarType::BF16, MatrixLayout::RowMajor};
  EXPECT_NE(message(residual, counts).find("a residual or pre-activation tensor is not taken"),
            std::string::npos);
  GemmArguments simt = moe;
  simt.k = 17;  // 34-byte rows of A: TMA cannot read them
  simt.a.ld = 17;
  EXPECT_NE(message(simt, counts)
                .find("grouped_gemm_masked: the problem is one only the SIMT "
                      "GEMM runs"),
            std::string::npos)
      << message(simt, counts);
  GemmArguments no_k = moe;
  no_k.k = 0;
  EXPECT_NE(message(no_k, counts).find("grouped_gemm_masked: gemm: k = 0 must be at least 1"),
            std::string::npos)
      << message(no_k, counts);
  EXPECT_EQ(message(fp8_d(), counts),
            "grouped_gemm_masked: an fp8 D (its amax spans the batch) is not taken in the masked "
            "layout");
}

// A grouped call's workspace (its groups' kernel parameters): 2 KiB a group, and the caller's is
// refused by name before any launch when it is too small, misaligned for the TMA descriptors it
// holds, or shares bytes with a group's operand; a group's own workspace is refused (the call's is
// grouped_gemm's argument), and the MoE layouts check args.workspace alike.
TEST(GroupedGemm, ACallersWorkspaceIsCheckedByName) {
  EXPECT_EQ(grouped_gemm_workspace_bytes(50), 50u * 2048u);
  EXPECT_NE(invalid_argument_message([] {
              (void)grouped_gemm_workspace_bytes(SIZE_MAX / 2);
            }).find("groups = 9223372036854775807 overflows the byte count"),
            std::string::npos);
  GemmArguments const g0 = valid();
  GemmArguments g1 = valid();
  g1.a.data = fake(4);
  g1.b.data = fake(5);
  g1.d = const_cast<void*>(fake(6));
  std::vector<GemmArguments> groups = {g0, g1};
  auto* const workspace = const_cast<void*>(fake(9));
  auto const refusal = [&](void* w, std::size_t bytes) {
    return invalid_argument_message([&] { grouped_gemm(groups.data(), 2, nullptr, {}, w, bytes); });
  };
  EXPECT_EQ(refusal(workspace, 4095),
            "grouped_gemm: workspace_bytes = 4095 is less than the 4096 bytes 2 groups need "
            "(grouped_gemm_workspace_bytes), or leave workspace null for the library's pool");
  EXPECT_NE(refusal(static_cast<char*>(workspace) + 64, 4096)
                .find("is not 128-byte aligned: the groups' TMA descriptors live in it"),
            std::string::npos);
  // Group 1's B is 40 x 64 bf16 (5120 bytes) from fake(5): a workspace inside it.
  EXPECT_EQ(refusal(const_cast<void*>(fake(5)), 4096),
            "grouped_gemm: groups[1]: gemm: workspace overlaps b.data: the kernel writes its "
            "workspace while it reads the operands and writes D");
  groups[0].workspace = workspace;
  EXPECT_EQ(refusal(nullptr, 0),
            "grouped_gemm: groups[0]: workspace = 0x900000000000: a group takes no workspace of "
            "its own; the call's is grouped_gemm's workspace argument");
  GemmArguments batched = valid();
  batched.batch = 3;
  batched.workspace = workspace;
  batched.workspace_bytes = 2048;
  auto const* counts = static_cast<int const*>(fake(7));
  EXPECT_EQ(invalid_argument_message([&] { grouped_gemm_masked(batched, counts); }),
            "grouped_gemm_masked: workspace_bytes = 2048 is less than the 6144 bytes 3 groups "
            "need (grouped_gemm_workspace_bytes), or leave workspace null for the library's pool");
}

// grouped_gemm_contiguous refuses, before any launch and naming the argument: no group, a null or
// misaligned row_ends, a batched problem (the groups lie along M), operands whose rows cannot be
// sliced (column-major A, D or C), the epilogue pieces indexed by stacked rows, the groups' B that
// overlap, misalign, leave the address space or meet D, a tile count past 32 bits, and whatever
// gemm() refuses of the stacked problem.
TEST(GroupedGemm, TheContiguousLayoutRefusesByName) {
  GemmArguments moe = valid();  // 100 x 64 x 40, B column-major (40 x 64, ld 40): 2560 elements
  auto const* ends = static_cast<int const*>(fake(5));
  auto const message = [](GemmArguments const& a, int groups, int const* row_ends) {
    return invalid_argument_message([&] { grouped_gemm_contiguous(a, groups, row_ends); });
  };
  EXPECT_EQ(message(moe, 0, ends), "grouped_gemm_contiguous: groups = 0: give at least one group");
  EXPECT_EQ(message(moe, 4, nullptr),
            "grouped_gemm_contiguous: row_ends is null: give groups = 4 int32 cumulative row ends "
            "in device memory");
  EXPECT_EQ(message(moe, 4, reinterpret_cast<int const*>(reinterpret_cast<char const*>(ends) + 2)),
            "grouped_gemm_contiguous: row_ends is not 4-byte aligned: it holds int32 row ends");
  GemmArguments batched = moe;
  batched.batch = 2;
  EXPECT_NE(message(batched, 4, ends).find("batch = 2: the groups lie along M"), std::string::npos);
  GemmArguments col_a = moe;
  col_a.a.layout = MatrixLayout::ColMajor;
  EXPECT_NE(message(col_a, 4, ends).find("a.layout is column-major"), std::string::npos);
  GemmArguments col_d = moe;
  col_d.d_layout = MatrixLayout::ColMajor;
  EXPECT_NE(message(col_d, 4, ends).find("d_layout is column-major"), std::string::npos);
  GemmArguments col_c = moe;
  col_c.c = {fake(6), ScalarType::BF16, MatrixLayout::ColMajor};
  col_c.beta = 1.0f;
  EXPECT_NE(message(col_c, 4, ends).find("c.layout is column-major"), std::string::npos);
  GemmArguments residual = moe;
  residual.epilogue.residual = {fake(6), ScalarType::BF16, MatrixLayout::RowMajor};
  EXPECT_NE(message(residual, 4, ends).find("a residual or pre-activation tensor is not taken"),
            std::string::npos);
  float const* vector = static_cast<float const*>(fake(7));
  GemmArguments row_bias = moe;
  row_bias.epilogue.bias = vector;
  row_bias.epilogue.bias_broadcast = Broadcast::PerRow;
  EXPECT_NE(message(row_bias, 4, ends).find("a per-row bias are not taken"), std::string::npos);
  GemmArguments no_k = moe;
  no_k.k = 0;
  EXPECT_NE(message(no_k, 4, ends).find("grouped_gemm_contiguous: gemm: k = 0 must be at least 1"),
            std::string::npos)
      << message(no_k, 4, ends);
  EXPECT_EQ(message(fp8_d(), 4, ends),
            "grouped_gemm_contiguous: an fp8 D (its amax spans the groups) is not taken in the "
            "contiguous layout");
  // The groups' B.
  GemmArguments b = moe;
  b.b.batch_stride = -2;
  EXPECT_NE(message(b, 4, ends).find("b.batch_stride = -2 is negative"), std::string::npos);
  b.b.batch_stride = 2000;  // < 40 x 64
  EXPECT_EQ(message(b, 4, ends),
            "grouped_gemm_contiguous: b.batch_stride = 2000 is less than one group's B (2560 "
            "elements: ld 40 x 64 columns): the groups' B would overlap");
  b.b.batch_stride = 2564;  // 5128 bytes
  EXPECT_NE(message(b, 4, ends).find("is not a multiple of 16 bytes"), std::string::npos);
  b.b.batch_stride = std::int64_t{1} << 62;
  EXPECT_NE(message(b, 4, ends).find("reaches past the address space"), std::string::npos);
  b.b.batch_stride = std::int64_t{1} << 43;  // group 2's B starts at fake(3), D
  EXPECT_NE(message(b, 4, ends).find("d overlaps the B of the groups"), std::string::npos);
  EXPECT_NE(message(b, 2, ends).find("overlaps"), std::string::npos);  // group 1's ends in D
  // A tile count past 32 bits: every group may end a partial tile row.
  GemmArguments wide = moe;
  wide.b.batch_stride = 0;  // one B for all
  EXPECT_NE(message(wide, 1 << 30, ends).find("more than 2^30"), std::string::npos);
}

// Split-K (GemmTuning::split_k): a count out of range, and a split asked of what it cannot run, are
// refused before anything touches a device, naming the tuning field and the rule.
TEST(GemmSplitK, RefusedWhereItCannotRunNamingTheRule) {
  auto const refusal = [](GemmArguments const& a, GemmTuning t) {
    return invalid_argument_message([&] { gemm(a, nullptr, t); });
  };
  GemmTuning split{.kernel = GemmKernel::TensorCore, .split_k = 4};
  EXPECT_EQ(refusal(valid(), {.split_k = 33}),
            "gemm: tuning.split_k = 33 must be 0 (Auto), 1 (no split) or 2 to 32 slices of K");
  EXPECT_NE(refusal(valid(), {.split_k = -1}).find("tuning.split_k = -1 must be 0 (Auto)"),
            std::string::npos);
  GemmArguments batched = valid();
  batched.batch = 2;
  EXPECT_NE(
      refusal(batched, split).find("tuning.split_k = 4: split-K takes one matrix (batch = 2)"),
      std::string::npos)
      << refusal(batched, split);
  GemmArguments fused = valid();
  fused.epilogue.activation = Activation::ReLU;
  EXPECT_NE(refusal(fused, split).find("split-K takes the plain epilogue"), std::string::npos);
  GemmArguments device_alpha = valid();
  device_alpha.alpha_ptr = static_cast<float const*>(fake(6));
  EXPECT_NE(refusal(device_alpha, split).find("split-K takes alpha and beta from the host"),
            std::string::npos);
  EXPECT_NE(refusal(fp8_d(), split).find("split-K writes a 16-bit or fp32 D, not fp8"),
            std::string::npos);
  split.kernel = GemmKernel::Simt;
  EXPECT_NE(refusal(valid(), split).find("split-K runs on the tensor-core GEMM only"),
            std::string::npos);
  // The grouped kernel runs whole tiles: a split asked of it is refused, not ignored.
  GemmTuning const grouped_split{.split_k = 2};
  EXPECT_EQ(invalid_argument_message([&] { grouped_gemm(nullptr, 0, nullptr, grouped_split); }),
            "grouped_gemm: tuning.split_k = 2: the grouped kernel does not split K (split-K runs "
            "one matrix, through gemm()); leave it 0 (Auto) or 1");
  EXPECT_NE(invalid_argument_message([&] {
              grouped_gemm_masked(valid(), nullptr, nullptr, grouped_split);
            }).find("grouped_gemm_masked: tuning.split_k = 2"),
            std::string::npos);
}

// Where split-K's slices are added (GemmTuning::split_k_reduction): an out-of-range value, and the
// slices adding themselves up asked of a design or cluster that cannot, are refused by name.
TEST(GemmSplitK, InKernelReductionIsRefusedWhereTheSlicesCannotFold) {
  auto const refusal = [](GemmTuning t) {
    return invalid_argument_message([&] { gemm(valid(), nullptr, t); });
  };
  EXPECT_NE(refusal({.split_k_reduction = static_cast<SplitKReduction>(3)})
                .find("tuning.split_k_reduction = SplitKReduction(3) is out of range: the "
                      "SplitKReduction values are auto, in-kernel, separate-kernel (0 to 2)"),
            std::string::npos)
      << refusal({.split_k_reduction = static_cast<SplitKReduction>(3)});
  GemmTuning const pingpong{.design = ConsumerDesign::PingPong,
                            .split_k = 4,
                            .split_k_reduction = SplitKReduction::InKernel};
  EXPECT_EQ(refusal(pingpong),
            "gemm: tuning.split_k_reduction = in-kernel: the slices add themselves up on the "
            "cooperative design with 1x1 clusters (asked: design pingpong, cluster 1x1); ask for "
            "design Auto or Cooperative and a 1x1 cluster, or split_k_reduction SeparateKernel");
  EXPECT_NE(refusal({.cluster_m = 2, .split_k_reduction = SplitKReduction::InKernel})
                .find("(asked: design auto, cluster 2x1)"),
            std::string::npos);
  EXPECT_EQ(to_string(SplitKReduction::InKernel), "in-kernel");
  EXPECT_EQ(to_string(SplitKReduction::SeparateKernel), "separate-kernel");
  EXPECT_EQ(invalid_argument_message([] { (void)to_string(static_cast<SplitKReduction>(3)); }),
            "to_string: SplitKReduction(3) is out of range (0 to 2)");
}

// Stream-K (TileScheduling::StreamK): refused, naming the field, where it does not run; a
// workspace the caller gives is checked before anything is enqueued.
TEST(GemmStreamK, RefusedWhereItCannotRunNamingTheRule) {
  auto const refusal = [](GemmArguments const& a, GemmTuning t) {
    return invalid_argument_message([&] { gemm(a, nullptr, t); });
  };
  GemmTuning const stream_k{.tile_scheduling = TileScheduling::StreamK};
  GemmTuning pingpong = stream_k;
  pingpong.design = ConsumerDesign::PingPong;
  EXPECT_NE(refusal(valid(), pingpong)
                .find("gemm: tuning.tile_scheduling = stream-k runs on the cooperative design"),
            std::string::npos);
  GemmTuning cluster = stream_k;
  cluster.cluster_m = 2;
  EXPECT_EQ(refusal(valid(), cluster),
            "gemm: tuning.tile_scheduling = stream-k runs 1x1 clusters (tuning.cluster_m x "
            "cluster_n = 2x1)");
  GemmTuning split = stream_k;
  split.split_k = 4;
  EXPECT_EQ(refusal(valid(), split),
            "gemm: tuning.tile_scheduling = stream-k and split-K (tuning.split_k = 4) are two ways "
            "to cut K: ask for one");
  GemmTuning simt = stream_k;
  simt.kernel = GemmKernel::Simt;
  EXPECT_NE(refusal(valid(), simt).find("runs on the tensor-core GEMM (tuning.kernel = simt"),
            std::string::npos);
  // fp32 inputs run on the SIMT GEMM only.
  GemmArguments fp32 = valid();
  fp32.a.type = fp32.b.type = ScalarType::F32;
  fp32.d_type = ScalarType::F32;
  EXPECT_NE(refusal(fp32, stream_k)
                .find("tuning.tile_scheduling = stream-k runs on the tensor-core GEMM, whose "
                      "rules these arguments do not keep"),
            std::string::npos)
      << refusal(fp32, stream_k);
  EXPECT_NE(invalid_argument_message([&] { grouped_gemm(nullptr, 0, nullptr, stream_k); })
                .find("grouped_gemm: tuning.tile_scheduling = stream-k: stream-K cuts the tiles "
                      "of one matrix"),
            std::string::npos);
}

TEST(GemmStreamK, AGivenWorkspaceIsChecked) {
  GemmTuning const stream_k{.tile_scheduling = TileScheduling::StreamK};
  std::size_t const needed = gemm_workspace_bytes(valid(), stream_k);
  EXPECT_EQ(gemm_workspace_bytes(valid(), {}), 0u) << "no stream-K, no workspace";
  // One fp32 128 x 256 tile and one flag per CTA, at most one CTA per SM.
  EXPECT_EQ(needed % (128 * 256 * 4 + 4), 0u);
  EXPECT_GE(needed, 128u * 256 * 4 + 4);
  GemmTuning capped = stream_k;
  capped.max_ctas = 2;
  EXPECT_EQ(gemm_workspace_bytes(valid(), capped), 2 * (128u * 256 * 4 + 4));
  auto const refusal = [&](GemmArguments const& a) {
    return invalid_argument_message([&] { gemm(a, nullptr, stream_k); });
  };
  GemmArguments small = valid();
  small.workspace = const_cast<void*>(fake(7));
  small.workspace_bytes = needed - 1;
  EXPECT_EQ(refusal(small), "gemm: workspace_bytes = " + std::to_string(needed - 1) +
                                " is less than the " + std::to_string(needed) +
                                " bytes this call needs (gemm_workspace_bytes), or leave "
                                "workspace null for the library's pool");
  GemmArguments misaligned = valid();
  misaligned.workspace = static_cast<char*>(const_cast<void*>(fake(7))) + 8;
  misaligned.workspace_bytes = needed;
  EXPECT_NE(refusal(misaligned).find("is not 16-byte aligned"), std::string::npos);
  GemmArguments over_d = valid();
  over_d.workspace = over_d.d;
  over_d.workspace_bytes = needed;
  EXPECT_EQ(refusal(over_d),
            "gemm: workspace overlaps d: the kernel writes its workspace while it reads the "
            "operands and writes D");
  GemmArguments over_a = valid();
  over_a.workspace = const_cast<void*>(over_a.a.data);
  over_a.workspace_bytes = needed;
  EXPECT_NE(refusal(over_a).find("workspace overlaps a.data"), std::string::npos);
}

// The tile width (GemmTuning::tile_n): a width out of range, or one ping-pong does not run, or any
// width asked of the grouped kernel, is refused naming the field and the rule.
TEST(GemmTileWidth, RefusedOutOfRangeOrWhereNoKernelRunsIt) {
  auto const refusal = [](GemmTuning t) {
    return invalid_argument_message([&] { gemm(valid(), nullptr, t); });
  };
  EXPECT_EQ(refusal({.tile_n = 96}),
            "gemm: tuning.tile_n = 96 must be 0 (Auto) or one of 256, 128, 64");
  EXPECT_NE(refusal({.tile_n = -64}).find("tuning.tile_n = -64 must be"), std::string::npos);
  EXPECT_NE(refusal({.design = ConsumerDesign::PingPong, .tile_n = 64})
                .find("tuning.tile_n = 64 with tuning.design = pingpong: ping-pong runs tiles 128 "
                      "wide"),
            std::string::npos);
  EXPECT_NE(refusal({.design = ConsumerDesign::PingPong, .tile_n = 256}).find("tile_n = 256"),
            std::string::npos);
  EXPECT_EQ(invalid_argument_message([&] { grouped_gemm(nullptr, 0, nullptr, {.tile_n = 64}); }),
            "grouped_gemm: tuning.tile_n = 64: the grouped kernel runs its design's tile (narrow "
            "tiles are gemm()'s, for outputs too small to fill the SMs); leave it 0");
}

// Auto's width (split_k.hpp): the design's 256 where its tiles fill half the SMs, else the widest
// narrower one that does, else (split-K's regime) 64 for N <= 64 and 128 otherwise.
TEST(GemmTileWidth, AutoNarrowsTheTileOnlyWhereTheSmsWouldIdle) {
  auto const width = [](int m, int n, int batch = 1) {
    GemmArguments r = valid();
    r.m = m;
    r.n = n;
    r.batch = batch;
    return selected_tile_n(r, 132);
  };
  EXPECT_EQ(width(4096, 4096), 0);      // 512 tiles of 128 x 256
  EXPECT_EQ(width(1024, 8192), 0);      // 256
  EXPECT_EQ(width(1024, 4096), 0);      // 128 of 132: more than half
  EXPECT_EQ(width(256, 4096, 2), 128);  // batches count: 64 tiles at 256, 128 at 128
  EXPECT_EQ(width(1024, 1024), 64);     // 32 tiles at 256, 64 at 128, 128 at 64
  EXPECT_EQ(width(256, 4096), 64);      // 32, 64, 128
  EXPECT_EQ(width(2048, 1024), 128);    // 64 at 256, 128 at 128
  EXPECT_EQ(width(1024, 16), 64);       // 8 tiles at any width: the narrowest wastes least
  EXPECT_EQ(width(1024, 64), 64);
  EXPECT_EQ(width(1024, 100), 128);  // split-K's regime, N > 64
  EXPECT_EQ(width(512, 512), 128);   // 8, 16, 32 tiles
  EXPECT_EQ(width(64, 4096), 128);   // 16, 32, 64 tiles
}

// When Auto narrows at all (kernel_arguments.hpp, with_tile_width): the plain 16-bit GEMM with
// no shape asked for; a width asked for stands (and takes the cooperative design); stages, a
// ping-pong design, fp8 inputs or a fused epilogue keep the design's own tile.
TEST(GemmTileWidth, AutoNarrowsOnlyThePlainSixteenBitGemmWithoutAShape) {
  GemmArguments r = valid();  // 100 x 64 bf16: one tile at any width
  EXPECT_EQ(with_tile_width(r, {}, 132).tile_n, 64);
  EXPECT_EQ(with_tile_width(r, {}, 132).design, ConsumerDesign::Cooperative);
  EXPECT_EQ(with_tile_width(r, {.tile_n = 128}, 132).tile_n, 128);
  EXPECT_EQ(with_tile_width(r, {.tile_n = 256}, 132).design, ConsumerDesign::Cooperative);
  EXPECT_EQ(with_tile_width(r, {.stages = 4}, 132).tile_n, 0);
  EXPECT_EQ(with_tile_width(r, {.staging_buffers = 1}, 132).tile_n, 0);
  EXPECT_EQ(with_tile_width(r, {.design = ConsumerDesign::PingPong}, 132).tile_n, 0);
  EXPECT_EQ(with_tile_width(r, {.design = ConsumerDesign::PingPong}, 132).design,
            ConsumerDesign::PingPong);
  GemmArguments fused = r;
  fused.epilogue.activation = Activation::ReLU;
  EXPECT_EQ(with_tile_width(fused, {}, 132).tile_n, 0);
  EXPECT_EQ(with_tile_width(fused, {}, 132).design, ConsumerDesign::Auto);
  GemmArguments fp8 = r;
  fp8.a.type = fp8.b.type = ScalarType::E4M3;
  EXPECT_EQ(with_tile_width(fp8, {}, 132).tile_n, 0);
}

// Where D has at most 64 rows (and more columns), Auto's slices compute D^T = B^T . A^T: 128-row
// tiles along N, 64 wide along M (split_k.hpp, split_k_choice). 64 x 4096 x 16384: D's own tiles
// are 32 of 128 x 128 (half of each row empty) in 4 slices; D^T's 32 of 128 x 64, in 4.
TEST(GemmSplitK, SmallMSplitsTheTransposedProblem) {
  auto const problem = [](int m, int n, int k) {
    GemmArguments r = valid();
    r.m = m, r.n = n, r.k = k;
    return r;
  };
  auto const choice = [&](int m, int n, int k, GemmTuning const& t = {}) {
    SplitChoice const c = split_k_choice(problem(m, n, k), t, 132);
    return std::to_string(c.slices) + (c.swap_ab ? " swapped " : " ") +
           std::to_string(c.tuning.tile_n);
  };
  EXPECT_EQ(choice(64, 4096, 16384), "4 swapped 64");
  EXPECT_EQ(choice(1, 4096, 8192), "4 swapped 64");
  // D's own 128 tiles of 128 x 64 fill the SMs unsplit; D^T's 64 of 128 x 64 split in two.
  EXPECT_EQ(choice(32, 8192, 8192), "2 swapped 64");
  EXPECT_EQ(choice(64, 16384, 4096), "1 128");  // D^T's 128 tiles fill the SMs: D's own, unsplit
  EXPECT_EQ(choice(64, 300, 1000, {.split_k = 8}), "8 swapped 64");  // slices asked: kept
  EXPECT_EQ(choice(65, 4096, 16384), "4 128");  // 128-row tiles half full or more: D's own
  EXPECT_EQ(choice(1024, 16, 8192), "8 64");    // N <= 64: D's own tiles are the narrow ones
  EXPECT_EQ(choice(64, 64, 65536), "32 64");    // N is no wider: nothing to gain
  EXPECT_EQ(choice(64, 4096, 256), "1 128");    // K too short to split
  EXPECT_EQ(choice(64, 4096, 16384, {.tile_n = 128}), "4 128");  // a width asked for: D's tiles
  EXPECT_EQ(choice(64, 4096, 16384, {.stages = 4}), "8 0");     // the design's own tile: 16 of them
  EXPECT_EQ(choice(64, 4096, 16384, {.split_k = 1}), "1 128");  // no split asked
  // The swapped problem's cluster is D^T's: a 1x2 cluster along D's N is 2x1 along its rows.
  SplitChoice const c = split_k_choice(problem(64, 4096, 16384), {.cluster_n = 2}, 132);
  EXPECT_TRUE(c.swap_ab);
  EXPECT_EQ(c.tuning.cluster_m, 2);
  EXPECT_EQ(c.tuning.cluster_n, 1);
}

// Where Auto adds the slices inside the GEMM (split_k.hpp, auto_folds): on D^T, where each tile's
// last slice reads at most one tile of partial sums inside the output; elsewhere a kernel after.
TEST(GemmSplitK, AutoFoldsTheTransposedSplitWhereTheLastSliceReadsATile) {
  // The slices' problems (D^T's where swapped: 8192 x 32 for a 32 x 8192 D), 128 x 64 tiles.
  EXPECT_TRUE(auto_folds(true, 8192, 32, 2, 128, 64));    // 32x8192x8192: two half tiles
  EXPECT_TRUE(auto_folds(true, 4096, 16, 4, 128, 64));    // 16x4096x4096: four quarters
  EXPECT_TRUE(auto_folds(true, 4096, 1, 32, 128, 64));    // one row of D: 32 slivers
  EXPECT_FALSE(auto_folds(true, 8192, 32, 4, 128, 64));   // four half tiles
  EXPECT_FALSE(auto_folds(true, 4096, 64, 2, 128, 64));   // 64x4096x16384: whole tiles
  EXPECT_FALSE(auto_folds(false, 1024, 16, 8, 128, 64));  // D's own tiles: the reduction kernel
  EXPECT_FALSE(auto_folds(false, 512, 512, 8, 128, 128));
}

// How K is cut: equal slices where a count more than half of the wanted one divides K's tiles (one
// launch), else the wanted count with a shorter last slice (two launches).
TEST(GemmSplitK, SlicesAreEqualWhereACountCloseToTheWantedOneDivides) {
  auto const cut = [](std::int64_t k, int wanted) {
    KSlices const s = split_k_slices(k, 64, wanted);
    return std::to_string(s.count) + "x" + std::to_string(s.slice_k) + "/" +
           std::to_string(s.last_k);
  };
  EXPECT_EQ(cut(65536, 16), "16x4096/4096");
  EXPECT_EQ(cut(8192, 16), "16x512/512");
  EXPECT_EQ(cut(4096, 4), "4x1024/1024");
  EXPECT_EQ(cut(64 * 12, 8), "6x128/128");      // 8 and 7 do not divide 12 tiles; 6 does
  EXPECT_EQ(cut(64 * 11, 4), "4x192/128");      // 11 tiles: a prime, a shorter last slice
  EXPECT_EQ(cut(64 * 10 + 5, 2), "2x384/261");  // K not a whole number of tiles
  EXPECT_EQ(cut(128, 8), "2x64/64");            // fewer tiles than wanted slices
  EXPECT_EQ(cut(64 * 3, 2), "2x128/64");
}

}  // namespace
}  // namespace warploom::gemm
