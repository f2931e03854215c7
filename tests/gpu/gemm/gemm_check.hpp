// tests/gpu/gemm/gemm_check.hpp
//
// One GEMM problem set up on the device for a check: random operands in [-1, 1) (rounded to the
// input type, so fp8 inputs are exactly representable values), a poisoned D (NaN in every type),
// optional fp8 per-tensor scales, the float64 reference, and the element-wise comparison with the
// per-type tolerance. Leading dimensions may be padded or packed, base pointers moved off 16-byte
// alignment; padding in D (and the elements before its base pointer) must stay poisoned. A fused
// epilogue (bias, row and column scales, activation, residual, pre-activation output) is set up
// the same way: random vectors and residual, a poisoned pre-activation output checked like D.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "warploom/gemm.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::gemm::testing {

// The fused epilogue of a Problem (warploom/gemm.hpp, GemmEpilogue), in D's (the caller's) terms.
// Bias and residual are uniform in [-1, 1); the scales uniform in [0.5, 1.5) (within a factor of
// 3 of each other, so that rms(z) still measures every element's accumulation error).
struct EpilogueSpec {
  Activation activation = Activation::Identity;
  float leaky_slope = 0.1f;
  bool bias = false;
  Broadcast bias_broadcast = Broadcast::PerColumn;
  ScalarType bias_type = ScalarType::F32;  // or D's type
  bool row_scale = false, col_scale = false;
  bool residual = false;
  MatrixLayout residual_layout = MatrixLayout::RowMajor;
  bool pre_activation = false;
  MatrixLayout pre_activation_layout = MatrixLayout::RowMajor;
  // Elements the vectors and the residual lie past their allocation's 16-byte start besides
  // Problem::offset (the kernels read them with element alignment only).
  int misalign = 0;

  bool fused() const {
    return activation != Activation::Identity || bias || row_scale || col_scale || residual ||
           pre_activation;
  }
  // All of it, with the given activation, bias and matrix layouts.
  static EpilogueSpec every_op(Activation a, Broadcast bias_broadcast, ScalarType bias_type,
                               MatrixLayout residual_layout = MatrixLayout::RowMajor,
                               MatrixLayout pre_activation_layout = MatrixLayout::RowMajor) {
    return {.activation = a,
            .bias = true,
            .bias_broadcast = bias_broadcast,
            .bias_type = bias_type,
            .row_scale = true,
            .col_scale = true,
            .residual = true,
            .residual_layout = residual_layout,
            .pre_activation = true,
            .pre_activation_layout = pre_activation_layout};
  }
};

struct Problem {
  ScalarType in = ScalarType::BF16;
  ScalarType out = ScalarType::BF16;
  MatrixLayout a = MatrixLayout::RowMajor;
  MatrixLayout b = MatrixLayout::ColMajor;
  MatrixLayout d = MatrixLayout::RowMajor;
  int m = 128, n = 128, k = 64, batch = 1;
  float alpha = 1.0f, beta = 0.0f;
  int pad = 0;  // extra elements per leading dimension (beyond TMA's 16-byte rounding)
  // false: leading dimensions are the contiguous extent + pad, not rounded up to 16 bytes (what a
  // packed fp16 K = 17 looks like; only the SIMT GEMM runs it).
  bool align_ld = true;
  int offset = 0;  // elements every base pointer lies past its allocation's (16-byte) start
  // elements C alone lies past it besides (C is read by the threads: element alignment only)
  int c_offset = 0;
  // fp8 per-tensor scales, passed as device pointers; none = nullptr (a scale of 1).
  std::optional<float> scale_a = std::nullopt, scale_b = std::nullopt;
  // alpha and beta passed in device memory (GemmArguments::alpha_ptr, beta_ptr; the host values
  // at their defaults); C is then given whatever beta is, since beta_ptr needs it.
  bool device_scalars = false;
  // An fp8 D's per-tensor scale (GemmArguments::scale_d; none = nullptr, 1) and whether amax_d is
  // set (check() compares it with max |z|).
  std::optional<float> scale_d = std::nullopt;
  bool amax_d = false;
  // Operands broadcast across the batch: one matrix stored, batch stride 0.
  bool broadcast_a = false, broadcast_b = false, broadcast_c = false;
  EpilogueSpec epilogue = {};

  std::string describe() const;
};

// What the float64 reference computes: D and z, the pre-activation values (both batch x m x n,
// row-major).
struct Reference {
  std::vector<double> d, z;
};

// The operands of `p` on the device, with GemmArguments pointing at them.
class ProblemData {
 public:
  explicit ProblemData(Problem const& p, std::uint64_t seed = 1);
  GemmArguments const& args() const { return args_; }
  void poison_d() const;  // and the pre-activation output
  // With Problem::device_scalars: the values alpha_ptr and beta_ptr point to, written on `stream`
  // (what a caller does between replays of a captured graph); the reference reads them too.
  void set_device_scalars(float alpha, float beta, cudaStream_t stream = nullptr) const;

  // D compared with `reference` (batch x m x n doubles, row-major); every mismatch beyond the
  // tolerance of the types and of the kernel gemm() ran when asked for `kernel`, and every write
  // into D's padding counts. Returns "" when D is right, else the first few errors. The
  // Reference form also checks the pre-activation output against z, and allows for the
  // activation's slope on z's error (epilogue_tolerance). `valid_rows`, when given: per batch, the
  // rows of D that count (grouped_gemm_masked); the rest must still hold the poison.
  std::string check(std::vector<double> const& reference,
                    GemmKernel kernel = GemmKernel::Auto) const;
  std::string check(Reference const& reference, GemmKernel kernel = GemmKernel::Auto,
                    std::span<int const> valid_rows = {}) const;

 private:
  Problem p_;
  GemmArguments args_;
  warploom::testing::DeviceBuffer a_, b_, c_, d_, scales_, device_scalars_, out_scalars_;
  warploom::testing::DeviceBuffer bias_, row_scale_, col_scale_, residual_, pre_activation_;
};

// The float64 reference for `args`, copied to the host: D, or D and z.
std::vector<double> reference_of(GemmArguments const& args);
Reference full_reference_of(GemmArguments const& args);

// The largest |activation'(z)| (a Lipschitz constant): how much of z's error reaches D.
double activation_slope_bound(Activation a, float leaky_slope);

// Relative tolerance of one output element: |d - ref| <= tol * (|ref| + rms(ref)). The one-type
// form is the 16-bit-input GEMM's (fp32 accumulation, rounding to `out`); the two-type form also
// knows fp32 and fp64 inputs (fp32 -> fp32: accumulation error only; fp64: fp64 accumulation);
// the full form adds the fp8 tensor cores' reduced-precision accumulation, which grows with K.
double tolerance(ScalarType out);
double tolerance(ScalarType in, ScalarType out);
double tolerance(ScalarType in, ScalarType out, int k, GemmKernel ran);

// Runs gemm() on fresh random data for `p` (outputs poisoned) with `tuning` and expects it to
// match the float64 reference (a GoogleTest expectation, traced with the problem and the kernel
// that ran).
void expect_correct(Problem const& p, GemmTuning const& tuning = {});

// gemm(p, tuning) run `runs` + 1 times, D poisoned between runs: the same bits every run (a
// reduction that adds partial sums in a fixed order: split-K, stream-K).
void expect_same_bits_every_run(Problem const& p, GemmTuning const& tuning, int runs = 3);

// gemm(p, tuning) and gemm(p, other) on the same data: the same bits (two ways of adding the same
// partial sums in the same order), and D right.
void expect_same_bits_as(Problem const& p, GemmTuning const& tuning, GemmTuning const& other);

// gemm(args, stream, tuning) captured once in a CUDA graph on a non-blocking stream of its own
// (relaxed capture: gemm() asks the driver about its pointers before it launches), to replay.
class CapturedGemm {
 public:
  CapturedGemm(GemmArguments const& args, GemmTuning const& tuning);
  ~CapturedGemm();
  CapturedGemm(CapturedGemm const&) = delete;
  CapturedGemm& operator=(CapturedGemm const&) = delete;
  cudaStream_t stream() const { return stream_; }
  // Launches the graph on the stream, after all work on the device so far (the legacy stream's
  // poison and fills, which a non-blocking stream does not wait for), and waits for it.
  void replay() const;

 private:
  cudaStream_t stream_ = nullptr;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// gemm(p, tuning) captured once (CapturedGemm), replayed twice, D poisoned before each replay and
// checked after (a workspace becomes the graph's allocation, a memset its node).
void expect_captured_graph_replays(Problem const& p, GemmTuning const& tuning);

// Every kernel and design gemm() runs bf16 "tn" problems on (prebuilt in every build), named for
// SCOPED_TRACE: the tests that must hold on each of them loop over these.
struct Runner {
  char const* name;
  GemmTuning tuning;
};
inline std::vector<Runner> const& runners() {
  static std::vector<Runner> const r = {
      {"tensor-core cooperative",
       {.design = ConsumerDesign::Cooperative, .kernel = GemmKernel::TensorCore}},
      {"tensor-core ping-pong",
       {.design = ConsumerDesign::PingPong, .kernel = GemmKernel::TensorCore}},
      {"simt", {.kernel = GemmKernel::Simt}},
  };
  return r;
}

}  // namespace warploom::gemm::testing
