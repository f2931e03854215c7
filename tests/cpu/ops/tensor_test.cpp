// tests/cpu/ops/tensor_test.cpp
//
// Views (warploom/ops/tensor.hpp, dlpack.hpp) and how a plan maps them onto gemm() arguments
// (Gemm::arguments, what run() computes), without a GPU: layouts read off strides, transposed
// and sliced views, batches, DLPack's fields, and every view a GEMM must not read refused naming
// the argument and the rule.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <tuple>

#include "stand_ins.hpp"
#include "warploom/ops/dlpack.hpp"
#include "warploom/ops/gemm.hpp"
#include "warploom/testing/invalid_argument.hpp"

namespace warploom::ops {
namespace {

using test_support::fake;

using gemm::Matrix;
using testing::invalid_argument_message;
using testing::runtime_error_message;

constexpr auto kRow = MatrixLayout::RowMajor;
constexpr auto kCol = MatrixLayout::ColMajor;
constexpr auto kBF16 = ScalarType::BF16;

// bf16, A row-major, B column-major, C and D row-major: the tensor cores' favourite.
Gemm tn_plan() {
  return Gemm(
      {.element = kBF16, .layout_a = kRow, .layout_b = kCol, .layout_d = kRow, .arch = Arch::Sm90});
}

TEST(TensorView, LayoutsReadOffStrides) {
  TensorView const r = row_major(fake(1), kBF16, 100, 64);
  EXPECT_TRUE(r.is(kRow));
  EXPECT_FALSE(r.is(kCol));
  TensorView const t = r.transposed();  // 64 x 100, column-major, same memory
  EXPECT_EQ(t.rows, 64);
  EXPECT_EQ(t.cols, 100);
  EXPECT_TRUE(t.is(kCol));
  EXPECT_FALSE(t.is(kRow));
  // A row or a column reads either way.
  EXPECT_TRUE(row_major(fake(1), kBF16, 1, 64).is(kCol));
  EXPECT_TRUE(column_major(fake(1), kBF16, 64, 1).is(kRow));
  // Overlapping rows are neither.
  TensorView overlap = r;
  overlap.row_stride = 32;
  EXPECT_FALSE(overlap.is(kRow));
  EXPECT_FALSE(overlap.is(kCol));
  EXPECT_EQ(to_string(r), "bf16 100 x 64 (strides 64, 1)");
  EXPECT_EQ(to_string(row_major(fake(1), ScalarType::F16, 128, 64, 4)),
            "fp16 4 x 128 x 64 (strides 8192, 64, 1)");
}

TEST(GemmPlanArguments, PackedViewsMapOntoPackedOperands) {
  Gemm const plan = tn_plan();
  GemmArguments const g =
      plan.arguments(row_major(fake(1), kBF16, 100, 64), column_major(fake(2), kBF16, 64, 48),
                     TensorView{}, row_major(fake(4), kBF16, 100, 48), 2.0f, 0.0f);
  EXPECT_EQ(g.m, 100);
  EXPECT_EQ(g.n, 48);
  EXPECT_EQ(g.k, 64);
  EXPECT_EQ(g.batch, 1);
  EXPECT_EQ(g.a.layout, kRow);
  EXPECT_EQ(g.a.ld, 64);
  EXPECT_EQ(g.b.layout, kCol);
  EXPECT_EQ(g.b.ld, 64);
  EXPECT_EQ(g.ldd, 48);
  EXPECT_EQ(g.c.data, nullptr);
  EXPECT_EQ(g.alpha, 2.0f);
  EXPECT_EQ(g.d, fake(4));
}

TEST(GemmPlanArguments, TransposedAndSlicedViews) {
  Gemm const plan = tn_plan();
  // B is the transpose of a row-major 48 x 64 weight (a Linear layer's W): column-major K x N.
  TensorView const w = row_major(fake(2), kBF16, 48, 64);
  // A is rows 8..107 and columns 0..63 of a row-major 200 x 128 activation: ld 128.
  TensorView a = row_major(fake(1), kBF16, 200, 128);
  a.data = static_cast<char*>(a.data) + 8 * 128 * 2;
  a.rows = 100;
  a.cols = 64;
  // D is the left 48 columns of a 100 x 64 output: ld 64.
  TensorView d = row_major(fake(4), kBF16, 100, 64);
  d.cols = 48;
  GemmArguments const g = plan.arguments(a, w.transposed(), {}, d);
  EXPECT_EQ(g.a.ld, 128);
  EXPECT_EQ(g.a.data, a.data);
  EXPECT_EQ(g.b.layout, kCol);
  EXPECT_EQ(g.b.ld, 64);
  EXPECT_EQ(g.ldd, 64);
  EXPECT_EQ(g.n, 48);
}

TEST(GemmPlanArguments, BatchesKeepTheirStrides) {
  Gemm const plan = tn_plan();
  TensorView a = row_major(fake(1), kBF16, 64, 32, 3);
  a.batch_stride = 4096;  // padded batches
  TensorView const c = row_major(fake(3), kBF16, 64, 16, 3);
  GemmArguments const g = plan.arguments(a, column_major(fake(2), kBF16, 32, 16, 3), c,
                                         row_major(fake(4), kBF16, 64, 16, 3), 1.0f, 1.0f);
  EXPECT_EQ(g.batch, 3);
  EXPECT_EQ(g.a.batch_stride, 4096);
  EXPECT_EQ(g.b.batch_stride, 32 * 16);
  EXPECT_EQ(g.c.batch_stride, 64 * 16);
  EXPECT_EQ(g.batch_stride_d, 64 * 16);
  EXPECT_EQ(g.beta, 1.0f);
}

TEST(GemmPlanArguments, WrongDtypeIsRefusedNamingBoth) {
  Gemm const plan = tn_plan();
  EXPECT_EQ(invalid_argument_message([&] {
              plan.arguments(row_major(fake(1), kBF16, 64, 64),
                             column_major(fake(2), ScalarType::F16, 64, 64), {},
                             row_major(fake(4), kBF16, 64, 64));
            }),
            "Gemm.run: argument `b` is fp16; this plan expects bf16");
  // A DtypeError, which the Python binding raises as TypeError.
  EXPECT_THROW(plan.arguments(row_major(fake(1), kBF16, 64, 64),
                              column_major(fake(2), ScalarType::F16, 64, 64), {},
                              row_major(fake(4), kBF16, 64, 64)),
               DtypeError);
}

TEST(GemmPlanArguments, WrongLayoutIsRefusedWithTheFix) {
  Gemm const plan = tn_plan();
  std::string const e = invalid_argument_message([&] {
    plan.arguments(column_major(fake(1), kBF16, 64, 32), column_major(fake(2), kBF16, 32, 64), {},
                   row_major(fake(4), kBF16, 64, 64));
  });
  EXPECT_CONTAINS(e,
                  "argument `a` (bf16 64 x 32 (strides 1, 64)) is column-major; this plan "
                  "expects row-major (make the plan with layout_a = column-major");
}

TEST(GemmPlanArguments, StridesWithoutAUnitStrideAreRefused) {
  Gemm const plan = tn_plan();
  TensorView a = row_major(fake(1), kBF16, 64, 32);
  a.col_stride = 2;  // every other column: both strides != 1
  a.row_stride = 128;
  std::string const e = invalid_argument_message([&] {
    plan.arguments(a, column_major(fake(2), kBF16, 32, 64), {}, row_major(fake(4), kBF16, 64, 64));
  });
  EXPECT_CONTAINS(e, "argument `a` (bf16 64 x 32 (strides 128, 2)) is neither row-major");
  EXPECT_CONTAINS(e, "the GEMM reads matrices with one unit stride");
  // Rows that overlap (a row stride smaller than a row) are refused the same way: a D written
  // through them would race with itself.
  TensorView d = row_major(fake(4), kBF16, 64, 64);
  d.row_stride = 0;
  EXPECT_CONTAINS(invalid_argument_message([&] {
                    plan.arguments(row_major(fake(1), kBF16, 64, 32),
                                   column_major(fake(2), kBF16, 32, 64), {}, d);
                  }),
                  "argument `d` (bf16 64 x 64 (strides 0, 1)) is neither row-major");
}

TEST(GemmPlanArguments, ShapesAndBatchesMustAgree) {
  Gemm const plan = tn_plan();
  EXPECT_CONTAINS(invalid_argument_message([&] {
                    plan.arguments(row_major(fake(1), kBF16, 64, 32),
                                   column_major(fake(2), kBF16, 48, 64), {},
                                   row_major(fake(4), kBF16, 64, 64));
                  }),
                  "argument `b` is 48 x 64: A is 64 x 32, so B has K = 32 rows");
  EXPECT_CONTAINS(invalid_argument_message([&] {
                    plan.arguments(row_major(fake(1), kBF16, 64, 32),
                                   column_major(fake(2), kBF16, 32, 64), {},
                                   row_major(fake(4), kBF16, 64, 60));
                  }),
                  "argument `d` is 64 x 60: A . B is 64 x 64");
  EXPECT_CONTAINS(invalid_argument_message([&] {
                    plan.arguments(row_major(fake(1), kBF16, 64, 32, 3),
                                   column_major(fake(2), kBF16, 32, 64), {},
                                   row_major(fake(4), kBF16, 64, 64, 4));
                  }),
                  "argument `a` has batch 3 and D batch 4: an input has D's batch count, or 1");
}

// Batch stride 0 broadcasts an input across the batch, as in cuBLAS, DLPack and torch.expand; so
// does an input of batch 1 (as torch.matmul). D cannot be broadcast: its batches would all write
// one matrix.
TEST(GemmPlanArguments, BatchStride0Broadcasts) {
  Gemm const plan = tn_plan();
  TensorView b = column_major(fake(2), kBF16, 32, 64, 4);
  b.batch_stride = 0;  // torch.expand
  GemmArguments g = plan.arguments(row_major(fake(1), kBF16, 64, 32, 4), b, {},
                                   row_major(fake(4), kBF16, 64, 64, 4));
  EXPECT_EQ(g.batch, 4);
  EXPECT_EQ(g.b.batch_stride, 0);
  g = plan.arguments(row_major(fake(1), kBF16, 64, 32), column_major(fake(2), kBF16, 32, 64, 4), {},
                     row_major(fake(4), kBF16, 64, 64, 4));
  EXPECT_EQ(g.a.batch_stride, 0);
  EXPECT_EQ(g.b.batch_stride, 32 * 64);
  TensorView d = row_major(fake(4), kBF16, 64, 64, 4);
  d.batch_stride = 0;
  EXPECT_CONTAINS(invalid_argument_message(
                      [&] { plan.arguments(row_major(fake(1), kBF16, 64, 32, 4), b, {}, d); }),
                  "batch_stride_d = 0 broadcasts one matrix across the batch, but d is written");
}

TEST(GemmPlanArguments, GemmsOwnRulesStillApply) {
  Gemm const plan = tn_plan();
  Gemm tensor_op = tn_plan();
  tensor_op.set_opclass(OperatorClass::TensorOp);
  // K = 36 bf16 elements = 72 bytes: TMA needs row strides in multiples of 16 bytes. A plan made
  // for the tensor cores refuses them, and the message names the plans that run them; an Auto
  // plan hands them to gemm()'s Auto (aligned copies for the tensor cores, or the SIMT GEMM).
  auto const k36 = [](Gemm const& p) {
    return p.arguments(row_major(fake(1), kBF16, 64, 36), column_major(fake(2), kBF16, 36, 64), {},
                       row_major(fake(4), kBF16, 64, 64));
  };
  std::string const tma = invalid_argument_message([&] { (void)k36(tensor_op); });
  EXPECT_CONTAINS(tma,
                  "Gemm.run: gemm: a.ld = 36 elements (72 bytes) must be a multiple of 16 bytes");
  EXPECT_CONTAINS(tma, "a plan made with OperatorClass::Auto runs them through aligned copies");
  EXPECT_CONTAINS(tma, "OperatorClass::Simt runs them");
  EXPECT_EQ(k36(plan).a.ld, 36);
  EXPECT_EQ(
      plan.description_for(row_major(fake(1), kBF16, 64, 36), column_major(fake(2), kBF16, 36, 64),
                           {}, row_major(fake(4), kBF16, 64, 64))
          .opclass,
      OperatorClass::Simt);  // too small to copy: the SIMT GEMM runs it
  // beta != 0 without C: no kernel runs it, and no hint is given.
  std::string const no_c = invalid_argument_message([&] {
    plan.arguments(row_major(fake(1), kBF16, 64, 32), column_major(fake(2), kBF16, 32, 64), {},
                   row_major(fake(4), kBF16, 64, 64), 1.0f, 1.0f);
  });
  EXPECT_CONTAINS(no_c, "c.data is null but beta != 0 reads C");
  EXPECT_EQ(no_c.find("OperatorClass::Simt"), std::string::npos) << no_c;
}

// The fused epilogue passes through to gemm(), which refuses it until the kernels run it. When
// they do, this test becomes the one that expects the activation in GemmArguments::epilogue.
TEST(GemmPlanArguments, TheEpiloguePassesThroughToGemm) {
  Gemm plan = tn_plan();
  plan.set_activation(Activation::ReLU);
  GemmArguments const args =
      plan.arguments(row_major(fake(1), kBF16, 64, 32), column_major(fake(2), kBF16, 32, 64), {},
                     row_major(fake(4), kBF16, 64, 64));
  EXPECT_EQ(args.epilogue.activation, Activation::ReLU);
}

// compile() obtains the instance of the plan's fused epilogue, not the plain one: with the JIT
// forbidden, a fused configuration the build did not prebuild is refused by its own name.
TEST(GemmPlanCompile, AFusedEpilogueCompilesItsOwnInstance) {
  Gemm plan = tn_plan();
  plan.set_activation(Activation::HardSwish);
  TileDescription const td = plan.tile_descriptions().front();
  ASSERT_FALSE(plan.is_prebuilt(td)) << "no build prebuilds a hard-swish instance";
  ::setenv("WARPLOOM_JIT", "0", 1);
  EXPECT_CONTAINS(runtime_error_message([&] { plan.compile(td); }), "_hardswish");
  ::unsetenv("WARPLOOM_JIT");
}

// ---- DLPack -------------------------------------------------------------------------------------

// A DLTensor with its shape and strides (up to 4-D, to test the refusal of 4-D tensors).
struct DlTensor {
  std::int64_t shape[4] = {};
  std::int64_t strides[4] = {};
  DLTensor t{};

  DlTensor(void* data, DLDataType dtype, std::initializer_list<std::int64_t> shape_,
           std::initializer_list<std::int64_t> strides_ = {}) {
    int i = 0;
    for (std::int64_t s : shape_) shape[i++] = s;
    i = 0;
    for (std::int64_t s : strides_) strides[i++] = s;
    t.data = data;
    t.device = {kDLCUDA, 0};
    t.ndim = static_cast<int>(shape_.size());
    t.dtype = dtype;
    t.shape = shape;
    t.strides = strides_.size() != 0 ? strides : nullptr;
    t.byte_offset = 0;
  }
};

constexpr DLDataType kDlBF16{kDLBfloat, 16, 1};

TEST(FromDlpack, CompactRowMajorWhenStridesAreNull) {
  DlTensor const x(fake(1), kDlBF16, {100, 64});
  TensorView const v = from_dlpack(x.t, "a");
  EXPECT_EQ(v.dtype, kBF16);
  EXPECT_EQ(v.rows, 100);
  EXPECT_EQ(v.cols, 64);
  EXPECT_EQ(v.row_stride, 64);
  EXPECT_EQ(v.col_stride, 1);
  EXPECT_EQ(v.batch, 1);
  EXPECT_EQ(v.device, 0);
}

TEST(FromDlpack, StridesOffsetsBatchesAndTypes) {
  // torch.empty(4, 64, 128).transpose(1, 2)[:, 8:, :]: batch 4 of 120 x 64 column-major, offset.
  DlTensor x(fake(1), DLDataType{kDLFloat, 16, 1}, {4, 120, 64}, {8192, 1, 128});
  x.t.byte_offset = 8 * 2;
  TensorView const v = from_dlpack(x.t);
  EXPECT_EQ(v.dtype, ScalarType::F16);
  EXPECT_EQ(v.batch, 4);
  EXPECT_EQ(v.batch_stride, 8192);
  EXPECT_EQ(v.row_stride, 1);
  EXPECT_EQ(v.col_stride, 128);
  EXPECT_EQ(v.data, static_cast<char*>(fake(1)) + 16);
  EXPECT_TRUE(v.is(kCol));
  for (auto [code, bits, type] :
       {std::tuple{10, 8, ScalarType::E4M3}, std::tuple{12, 8, ScalarType::E5M2},
        std::tuple{int{kDLFloat}, 32, ScalarType::F32},
        std::tuple{int{kDLFloat}, 64, ScalarType::F64}}) {
    DlTensor const y(
        fake(1), DLDataType{static_cast<std::uint8_t>(code), static_cast<std::uint8_t>(bits), 1},
        {16, 16});
    EXPECT_EQ(from_dlpack(y.t).dtype, type);
  }
}

TEST(FromDlpack, RefusalsNameTheField) {
  DlTensor x(fake(1), DLDataType{kDLInt, 8, 1}, {16, 16});
  EXPECT_CONTAINS(invalid_argument_message([&] { from_dlpack(x.t, "b"); }),
                  "from_dlpack: b: dtype (code 0, bits 8, lanes 1) is not a GEMM element type");
  EXPECT_THROW(from_dlpack(x.t, "b"), DtypeError);
  x.t.dtype = DLDataType{kDLFloat, 16, 2};
  EXPECT_CONTAINS(invalid_argument_message([&] { from_dlpack(x.t, "b"); }), "lanes 2");
  x.t.dtype = kDlBF16;
  x.t.device = {kDLCPU, 0};
  EXPECT_CONTAINS(invalid_argument_message([&] { from_dlpack(x.t, "b"); }),
                  "device type 1 (device 0): the GEMM reads CUDA device memory");
  x.t.device = {kDLCUDA, 0};
  x.t.byte_offset = 3;
  EXPECT_CONTAINS(invalid_argument_message([&] { from_dlpack(x.t, "b"); }),
                  "byte_offset = 3 is not a whole number of 2-byte bf16 elements");
  DlTensor const four(fake(1), kDlBF16, {2, 2, 16, 16});
  EXPECT_CONTAINS(invalid_argument_message([&] { from_dlpack(four.t, "c"); }), "ndim = 4");
  DlTensor const reversed(fake(1), kDlBF16, {16, 16}, {-16, 1});
  EXPECT_CONTAINS(invalid_argument_message([&] { from_dlpack(reversed.t, "a"); }),
                  "strides[0] = -16: negative strides");
}

TEST(FromDlpack, AsAPlanSeesThem) {
  Gemm const plan = tn_plan();
  DlTensor const a(fake(1), kDlBF16, {64, 32});
  DlTensor const bt(fake(2), kDlBF16, {64, 32});  // B^T, row-major: B is column-major
  DlTensor const d(fake(4), kDlBF16, {64, 64});
  TensorView const b = from_dlpack(bt.t).transposed();
  GemmArguments const g = plan.arguments(from_dlpack(a.t), b, {}, from_dlpack(d.t));
  EXPECT_EQ(g.k, 32);
  EXPECT_EQ(g.b.layout, kCol);
  EXPECT_EQ(g.b.ld, 32);
}

}  // namespace
}  // namespace warploom::ops
