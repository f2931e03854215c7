// tests/gpu/gemm/gemm_epilogue_test.cpp
//
// The fused epilogue (warploom/gemm.hpp, GemmEpilogue) on both GEMMs against the float64
// reference (kernels/gemm/reference.cu), outputs poisoned: every activation with every op at once
// (row and column scales, a bias along rows or columns in fp32 or D's type, pre-activation output,
// residual, each matrix in either layout), fp16, bf16 and e4m3 -> bf16 inputs, column-major D
// (which swaps the kernel's rows and columns), partial chains, odd shapes (M, N, K not multiples
// of the tiles), batches with C and padding; and the SIMT GEMM, which runs the epilogue for what
// the tensor cores do not take.
//
// Tolerances (gemm_check.cpp, ProblemData::check): the pre-activation output z is held to the
// plain GEMM's tolerance; D = activation(z) + residual to that times the activation's largest
// slope (1 to 1.5; the activation reads z rounded to D's type, one more rounding of z) plus D's
// own rounding (bf16 1e-2, fp16 2e-3, fp32 1e-4 of |D| + rms). gelu and gelu_tanh differ by at
// most 4.7e-4 (near |z| = 2.5), below bf16's and fp16's resolution here: activation_test.cu tells
// them apart.
//
// Every tensor-core configuration these tests run is prebuilt by WARPLOOM_GEMM_INSTANCES=all
// (kernels/gemm/CMakeLists.txt, "fused epilogues"), so that an `all` build compiles nothing while
// they run; in a `minimal` build each is compiled when first used (about 20 s each).
#include <gtest/gtest.h>

#include <vector>

#include "gemm_check.hpp"
#include "warploom/gemm.hpp"

namespace warploom::gemm::testing {
namespace {

constexpr MatrixLayout kRow = MatrixLayout::RowMajor;
constexpr MatrixLayout kCol = MatrixLayout::ColMajor;
constexpr ConsumerDesign kCoop = ConsumerDesign::Cooperative;
constexpr ConsumerDesign kPing = ConsumerDesign::PingPong;

GemmTuning tensor_cores(ConsumerDesign design) {
  return {.design = design, .kernel = GemmKernel::TensorCore};
}

struct Shape {
  int m, n, k, batch;
  float beta;
  int pad;
};

// Odd in every dimension: partial tiles in M, N and K (N = 300 and 257 also end a subtile inside
// a 16-byte chunk, so the threads store D's last subtile), batches with C and padded leading
// dimensions, a single element.
constexpr Shape kShapes[] = {
    {257, 300, 136, 2, 0.5f, 8},
    {64, 48, 16, 1, 0.0f, 0},
    {1, 1, 16, 1, 0.0f, 0},
};

Problem problem(ScalarType in, ScalarType out, MatrixLayout a, MatrixLayout b, MatrixLayout d,
                Shape const& s, EpilogueSpec const& e) {
  return {.in = in,
          .out = out,
          .a = a,
          .b = b,
          .d = d,
          .m = s.m,
          .n = s.n,
          .k = s.k,
          .batch = s.batch,
          .beta = s.beta,
          .pad = s.pad,
          .epilogue = e};
}

// One activation with every op, in a design, its bias along rows or columns in fp32 or D's type,
// the residual and the pre-activation output in the given layouts.
struct Chain {
  Activation activation;
  ConsumerDesign design;
  Broadcast bias;
  ScalarType bias_type;
  MatrixLayout residual, pre_activation;
};

// bf16 "tn", D row-major. The designs alternate (the activation's code is the same in both), as do
// the bias's broadcast and type and the matrices' layouts, so that each op meets each design.
TEST(TsGemmEpilogue, EveryActivationWithEveryOp) {
  constexpr ScalarType kBf16 = ScalarType::BF16, kF32 = ScalarType::F32;
  constexpr Broadcast kRows = Broadcast::PerRow, kCols = Broadcast::PerColumn;
  Chain const chains[] = {
      {Activation::Identity, kCoop, kCols, kF32, kRow, kCol},
      {Activation::ReLU, kPing, kCols, kBf16, kCol, kRow},
      {Activation::LeakyReLU, kCoop, kRows, kF32, kRow, kRow},
      {Activation::GELU, kPing, kRows, kBf16, kCol, kCol},
      {Activation::GELUTanh, kCoop, kCols, kBf16, kRow, kRow},
      {Activation::HardSwish, kPing, kCols, kF32, kCol, kRow},
      {Activation::Sigmoid, kCoop, kRows, kBf16, kRow, kCol},
      {Activation::SiLU, kPing, kRows, kF32, kCol, kRow},
      {Activation::Tanh, kCoop, kCols, kF32, kRow, kRow},
  };
  for (Chain const& c : chains) {
    SCOPED_TRACE(to_string(c.design));
    EpilogueSpec const e =
        EpilogueSpec::every_op(c.activation, c.bias, c.bias_type, c.residual, c.pre_activation);
    for (Shape const& s : kShapes)
      expect_correct(problem(kBf16, kBf16, kRow, kCol, kRow, s, e), tensor_cores(c.design));
  }
}

// A column-major D: the kernel computes D^T, so a bias along D's rows runs along its columns, the
// row and column scales trade places and the matrices are read transposed. Each chain here is one
// of EveryActivationWithEveryOp's as the kernel sees it.
TEST(TsGemmEpilogue, ColumnMajorD) {
  constexpr ScalarType kBf16 = ScalarType::BF16, kF32 = ScalarType::F32;
  constexpr Broadcast kRows = Broadcast::PerRow, kCols = Broadcast::PerColumn;
  Chain const chains[] = {
      {Activation::Identity, kCoop, kRows, kF32, kCol, kRow},
      {Activation::ReLU, kPing, kRows, kBf16, kRow, kCol},
      {Activation::LeakyReLU, kCoop, kCols, kF32, kCol, kCol},
      {Activation::GELU, kPing, kCols, kBf16, kRow, kRow},
      {Activation::SiLU, kPing, kCols, kF32, kCol, kCol},
  };
  Shape const shapes[] = {{300, 257, 72, 2, 1.0f, 0}, {17, 129, 64, 1, 0.0f, 8}};
  for (Chain const& c : chains) {
    SCOPED_TRACE(to_string(c.design));
    EpilogueSpec const e =
        EpilogueSpec::every_op(c.activation, c.bias, c.bias_type, c.residual, c.pre_activation);
    for (Shape const& s : shapes)
      expect_correct(problem(kBf16, kBf16, kRow, kCol, kCol, s, e), tensor_cores(c.design));
  }
}

// fp16 (two operand layouts, D either way; and fp32 D, whose 16-byte chunks hold 4 values, not
// 8) and e4m3 -> bf16 with per-tensor scales.
TEST(TsGemmEpilogue, EveryInputType) {
  constexpr ScalarType kF16 = ScalarType::F16, kF32 = ScalarType::F32;
  for (Shape const& s : kShapes) {
    expect_correct(
        problem(kF16, kF32, kRow, kCol, kRow, s,
                EpilogueSpec::every_op(Activation::HardSwish, Broadcast::PerRow, kF32, kRow, kCol)),
        tensor_cores(kCoop));
    expect_correct(
        problem(kF16, kF16, kRow, kCol, kRow, s,
                EpilogueSpec::every_op(Activation::GELU, Broadcast::PerColumn, kF16, kCol, kRow)),
        tensor_cores(kCoop));
    // A column-major, B row-major ("nt"); with D column-major the kernel sees "nt" again, and the
    // bias along D's columns runs along its rows.
    expect_correct(problem(kF16, kF16, kCol, kRow, kRow, s,
                           EpilogueSpec::every_op(Activation::SiLU, Broadcast::PerRow, kF32)),
                   tensor_cores(kPing));
    expect_correct(
        problem(kF16, kF16, kCol, kRow, kCol, s,
                EpilogueSpec::every_op(Activation::SiLU, Broadcast::PerColumn, kF32, kRow, kCol)),
        tensor_cores(kPing));
  }
  // fp8: K a multiple of 16 (TMA's 16-byte strides for 1-byte elements).
  constexpr ScalarType kE4m3 = ScalarType::E4M3, kBf16 = ScalarType::BF16;
  for (Shape const& s : {Shape{300, 260, 336, 2, 0.5f, 16}, Shape{129, 257, 64, 1, 0.0f, 0}}) {
    Problem p = problem(kE4m3, kBf16, kRow, kCol, kRow, s,
                        EpilogueSpec::every_op(Activation::ReLU, Broadcast::PerColumn, kBf16));
    p.scale_a = 0.5f;
    p.scale_b = 1.5f;
    expect_correct(p, tensor_cores(kCoop));
    p.epilogue = EpilogueSpec::every_op(Activation::GELUTanh, Broadcast::PerRow, kF32, kCol, kCol);
    expect_correct(p, tensor_cores(kPing));
    p.d = kCol;  // the same kernel: the bias along D's columns is the kernel's rows
    p.epilogue.bias_broadcast = Broadcast::PerColumn;
    expect_correct(p, tensor_cores(kPing));
  }
}

// Chains without some of the ops: each phase of the epilogue alone (column terms only, no
// activation pass; the activation pass without matrices; the residual alone), and the common
// ones: a Linear layer's bias, bias + gelu, and bias + gelu keeping z for the backward pass.
TEST(TsGemmEpilogue, PartialChains) {
  constexpr ScalarType kBf16 = ScalarType::BF16, kF32 = ScalarType::F32;
  struct Partial {
    ConsumerDesign design;
    EpilogueSpec epilogue;
  };
  Partial const partials[] = {
      {kCoop, {.bias = true, .bias_type = kBf16}},
      {kCoop, {.activation = Activation::GELU, .bias = true, .bias_type = kF32}},
      {kPing, {.activation = Activation::GELU, .bias = true, .bias_type = kF32}},
      {kCoop,
       {.activation = Activation::GELU,
        .bias = true,
        .bias_type = kBf16,
        .pre_activation = true,
        .pre_activation_layout = kRow}},
      {kPing, {.row_scale = true, .col_scale = true}},
      {kCoop, {.residual = true, .residual_layout = kCol}},
      {kPing, {.activation = Activation::ReLU}},
  };
  for (Partial const& c : partials) {
    SCOPED_TRACE(to_string(c.design));
    for (Shape const& s : kShapes)
      expect_correct(problem(kBf16, kBf16, kRow, kCol, kRow, s, c.epilogue),
                     tensor_cores(c.design));
  }
  // Many tiles per CTA (the persistent loop: row terms per tile, column terms per subtile) with a
  // capped grid.
  Problem p = problem(kBf16, kBf16, kRow, kCol, kRow, {1000, 1500, 200, 2, 0.0f, 0},
                      {.activation = Activation::GELU, .bias = true, .bias_type = kF32});
  for (ConsumerDesign design : {kCoop, kPing}) {
    GemmTuning t = tensor_cores(design);
    t.max_ctas = 7;
    expect_correct(p, t);
  }
  // Vectors and the residual aligned to their element only: the column terms are read element by
  // element (no pairs), the residual without 16-byte vectors.
  for (Shape const& s : kShapes) {
    EpilogueSpec e = EpilogueSpec::every_op(Activation::Identity, Broadcast::PerColumn, kF32);
    e.misalign = 1;
    expect_correct(problem(kBf16, kBf16, kRow, kCol, kRow, s, e), tensor_cores(kCoop));
    e = EpilogueSpec::every_op(Activation::ReLU, Broadcast::PerColumn, kBf16, kCol, kRow);
    e.misalign = 3;
    expect_correct(problem(kBf16, kBf16, kRow, kCol, kRow, s, e), tensor_cores(kPing));
  }
}

// Every activation without a pre-activation output or residual (the chains a Linear layer and
// its activation make), each with a bias (along rows or columns, fp32 or bf16) or the scales, in
// both designs, D either way.
TEST(TsGemmEpilogue, EveryActivationWithABiasOrScalesAlone) {
  constexpr ScalarType kBf16 = ScalarType::BF16, kF32 = ScalarType::F32;
  Activation const activations[] = {
      Activation::ReLU,      Activation::LeakyReLU, Activation::GELU, Activation::GELUTanh,
      Activation::HardSwish, Activation::Sigmoid,   Activation::SiLU, Activation::Tanh,
  };
  int i = 0;
  for (Activation a : activations) {
    EpilogueSpec e{.activation = a};
    if (i % 3 == 2) {
      e.row_scale = e.col_scale = true;
    } else {
      e.bias = true;
      e.bias_broadcast = i % 2 == 0 ? Broadcast::PerColumn : Broadcast::PerRow;
      e.bias_type = i % 3 == 0 ? kF32 : kBf16;
    }
    ConsumerDesign const design = i % 2 == 0 ? kPing : kCoop;
    SCOPED_TRACE(to_string(design));
    for (MatrixLayout d : {kRow, kCol})
      for (Shape const& s : kShapes)
        expect_correct(problem(kBf16, kBf16, kRow, kCol, d, s, e), tensor_cores(design));
    ++i;
  }
}

// ---- SIMT
// ----------------------------------------------------------------------------------------- The
// SIMT GEMM runs the epilogue with run-time ops (no instance per epilogue): every activation with
// every op, over its type pairs (fp32 and fp64 inputs, which the tensor cores do not take; packed
// leading dimensions no TMA accepts; fp8 in layouts wgmma cannot read), D either way.

TEST(SimtGemmEpilogue, EveryActivationWithEveryOp) {
  struct Types {
    ScalarType in, out;
    MatrixLayout a, b;
  };
  Types const types[] = {
      {ScalarType::F32, ScalarType::F32, kRow, kCol},
      {ScalarType::F64, ScalarType::F64, kCol, kRow},
      {ScalarType::BF16, ScalarType::BF16, kRow, kRow},
      {ScalarType::F16, ScalarType::F32, kCol, kCol},
      {ScalarType::E5M2, ScalarType::F16, kCol, kRow},
  };
  Activation const activations[] = {
      Activation::Identity, Activation::ReLU,     Activation::LeakyReLU,
      Activation::GELU,     Activation::GELUTanh, Activation::HardSwish,
      Activation::Sigmoid,  Activation::SiLU,     Activation::Tanh,
  };
  Shape const shapes[] = {{130, 70, 24, 2, 1.0f, 5}, {17, 17, 17, 1, 0.0f, 0}};
  GemmTuning const simt{.kernel = GemmKernel::Simt};
  int i = 0;
  for (Activation a : activations) {
    Types const& t = types[i % 5];
    EpilogueSpec const e = EpilogueSpec::every_op(
        a, i % 2 == 0 ? Broadcast::PerColumn : Broadcast::PerRow,
        i % 3 == 0 ? ScalarType::F32 : t.out, i % 2 == 0 ? kRow : kCol, i % 4 < 2 ? kRow : kCol);
    for (MatrixLayout d : {kRow, kCol}) {
      for (Shape const& s : shapes) {
        Problem p = problem(t.in, t.out, t.a, t.b, d, s, e);
        p.align_ld = false;  // packed: K = 17 is 34-byte rows
        p.offset = 1;        // every base pointer, the vectors' too, off 16-byte alignment
        expect_correct(p, simt);
      }
    }
    ++i;
  }
}

// GemmKernel::Auto sends a fused epilogue whose operands TMA cannot read to the SIMT GEMM.
TEST(SimtGemmEpilogue, AutoSendsWhatTheTensorCoresCannotTake) {
  Problem p =
      problem(ScalarType::BF16, ScalarType::BF16, kRow, kCol, kRow, {100, 60, 17, 2, 0.5f, 0},
              EpilogueSpec::every_op(Activation::GELU, Broadcast::PerColumn, ScalarType::BF16));
  p.align_ld = false;
  ProblemData const data(p);
  EXPECT_EQ(selected_kernel(data.args()), GemmKernel::Simt);
  expect_correct(p);
}

}  // namespace
}  // namespace warploom::gemm::testing
