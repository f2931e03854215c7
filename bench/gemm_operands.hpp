// bench/gemm_operands.hpp
//
// What every GEMM contender is measured on: operand sets of random A and B and a D to write, with
// leading dimensions rounded up to 16 bytes (TMA's rule, so the odd shapes stay on every kernel
// that can run them), fp8 scales where they apply, and the check of a result against the float64
// reference. Shared by gemm_bench and the `gemm` family of `warploom bench`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "warploom/gemm.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::bench {

// A GEMM problem as the benchmarks pose it: D (row-major, of `d_type`) = activation(A . B + bias),
// batch 1, beta 0; the bias, when there is one, a row vector of D's type (one value per column of
// D: a Linear layer's, and the one cuBLASLt's bias epilogues add).
struct GemmProblem {
  int m = 0, n = 0, k = 0;
  gemm::ScalarType type = gemm::ScalarType::BF16;  // A and B
  gemm::MatrixLayout a_layout = gemm::MatrixLayout::RowMajor;
  gemm::MatrixLayout b_layout = gemm::MatrixLayout::ColMajor;
  bool bias = false;
  gemm::Activation activation = gemm::Activation::Identity;
};

bool is_fp8(gemm::ScalarType t);
// D's type: the input type for 16-bit inputs, bf16 for fp8 inputs.
gemm::ScalarType output_type(gemm::ScalarType input);
// "bf16", "fp16", "e4m3", "e5m2" -> the type; std::invalid_argument naming `option` otherwise.
gemm::ScalarType parse_input_type(std::string const& name, std::string const& option);
// BLAS layout letters on column-major storage ("tn": A row-major, B column-major) -> layouts;
// std::invalid_argument naming `option` otherwise.
void parse_layout(std::string const& letters, std::string const& option, GemmProblem& problem);

// Per-tensor fp8 scales (0.5 for A, 3 for B) on the device, 16 bytes apart: cuBLASLt refuses scale
// pointers that are not 16-byte aligned (status 15 from cublasLtMatmul, measured 2026-11-29).
class Fp8Scales {
 public:
  Fp8Scales();
  float const* a() const { return buffer_.as<float>(); }
  float const* b() const { return buffer_.as<float>() + 4; }
  static constexpr float kA = 0.5f, kB = 3.0f;

 private:
  testing::DeviceBuffer buffer_;
};

// The fused epilogues the benchmarks pose, by name: "none", "bias", "bias_relu", "bias_gelu",
// "bias_gelu_tanh", "bias_silu" (the first is the default); std::invalid_argument naming `option`
// for another name.
std::vector<std::string> const& epilogue_names();
void parse_epilogue(std::string const& name, std::string const& option, GemmProblem& problem);

// `problem`'s arguments on A, B, D (and the bias) at the given addresses, with the leading
// dimensions GemmOperands allocates (each rounded up to 16 bytes) and, for fp8, the scale pointers.
gemm::GemmArguments gemm_arguments(GemmProblem const& problem, void const* a, void const* b,
                                   void* d, float const* scale_a, float const* scale_b,
                                   void const* bias = nullptr);
// `problem`'s arguments at placeholder addresses (aligned, 2^40 bytes apart, never dereferenced),
// for the rules a contender checks before anything is allocated.
gemm::GemmArguments placeholder_arguments(GemmProblem const& problem);

// One operand set: A, B (and the bias) uniform in [-1, 1) from `seed`, D allocated (not written).
class GemmOperands {
 public:
  // `scales` is used for fp8 problems only (and must outlive the set then).
  GemmOperands(GemmProblem const& problem, std::uint64_t seed, Fp8Scales const* scales);

  gemm::GemmArguments const& args() const { return args_; }
  void* d() const { return d_.get(); }
  std::size_t d_bytes() const { return d_.bytes(); }
  // A's, B's and D's bytes as allocated (for the rotation).
  static std::size_t bytes(GemmProblem const& problem);

 private:
  testing::DeviceBuffer a_, b_, d_, bias_;
  gemm::GemmArguments args_;
};

// max |D - reference| / max |reference| over D's rows [first_row, first_row + rows), the reference
// in float64 (too slow for the whole of a large problem; the GPU tests check every element). D of a
// 16-bit type; a fused residual (args.epilogue.residual) is added to the reference, its rows moving
// with D's. NaN in D (a poisoned, unwritten output) gives infinity.
double max_relative_error(gemm::GemmArguments const& args, int first_row, int rows);

// The largest max_relative_error a correct kernel shows on uniform [-1, 1) data: 16-bit inputs
// 1e-2 (bf16 D rounds to 2^-9 of the largest value); fp8 5e-2 (the tensor cores accumulate fp8
// with fewer bits than fp32, an error that grows with K). A wrong kernel is off by far more.
double error_tolerance(gemm::ScalarType input);

}  // namespace warploom::bench
