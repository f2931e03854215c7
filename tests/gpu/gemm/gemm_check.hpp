// tests/gpu/gemm/gemm_check.hpp
//
// One GEMM problem set up on the device for a check: random operands in [-1, 1) (rounded to the
// input type, so fp8 inputs are exactly representable values), a poisoned D (NaN in every type),
// optional fp8 per-tensor scales, the float64 reference, and the element-wise comparison with the
// per-type tolerance. Leading dimensions may be padded or packed, base pointers moved off 16-byte
// alignment; padding in D (and the elements before its base pointer) must stay poisoned.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "warploom/gemm.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::gemm::testing {

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
  // Operands broadcast across the batch: one matrix stored, batch stride 0.
  bool broadcast_a = false, broadcast_b = false, broadcast_c = false;

  std::string describe() const;
};

// The operands of `p` on the device, with GemmArguments pointing at them.
class ProblemData {
 public:
  explicit ProblemData(Problem const& p, std::uint64_t seed = 1);
  GemmArguments const& args() const { return args_; }
  void poison_d() const;

  // D compared with `reference` (batch x m x n doubles, row-major); every mismatch beyond the
  // tolerance of the types and of the kernel gemm() ran when asked for `kernel`, and every write
  // into D's padding counts. Returns "" when D is right, else the first few errors.
  std::string check(std::vector<double> const& reference,
                    GemmKernel kernel = GemmKernel::Auto) const;

 private:
  Problem p_;
  GemmArguments args_;
  warploom::testing::DeviceBuffer a_, b_, c_, d_, scales_;
};

// The float64 reference for `args`, copied to the host.
std::vector<double> reference_of(GemmArguments const& args);

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

}  // namespace warploom::gemm::testing
