// tests/cpu/gemm/gemm_args_test.cpp
//
// The GEMM's argument checks, without a GPU: every rule has a violating call whose error names the
// argument, and a passing call; resolution fills packed leading dimensions and batch strides.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "gemm/gemm.hpp"

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

std::string error_of(GemmArguments const& a) {
  try {
    check_arguments(a);
  } catch (std::invalid_argument const& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_REJECTED(ARGS, MESSAGE) \
  EXPECT_NE(error_of(ARGS).find(MESSAGE), std::string::npos) << "got: " << error_of(ARGS)

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
  EXPECT_REJECTED(a, "a.type = fp32");
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
  EXPECT_REJECTED(a, "a.ld = 17 elements (34 bytes) must be a multiple of 16 bytes");
  a.a.ld = 24;
  a.b.ld = 24;
  EXPECT_EQ(error_of(a), "");
  a.a.data = static_cast<char const*>(fake(1)) + 8;
  EXPECT_REJECTED(a, "a.data must be 16-byte aligned");
  a = valid();
  a.batch = 2;
  a.b.batch_stride = 64 * 40 + 4;
  EXPECT_REJECTED(a, "b.batch_stride = 2564 elements must be a multiple of 16 bytes");
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
}

}  // namespace
}  // namespace warploom::gemm
