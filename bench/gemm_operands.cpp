// bench/gemm_operands.cpp
#include "gemm_operands.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "gemm/reference.hpp"
#include "warploom/cuda_check.hpp"

namespace warploom::bench {
namespace {

namespace wg = warploom::gemm;
namespace wt = warploom::testing;

// Elements per row (row-major) or column, rounded up to 16 bytes.
std::int64_t leading_dimension(int contiguous, wg::ScalarType t) {
  std::int64_t const per16 = 16 / wg::size_of(t);
  return (contiguous + per16 - 1) / per16 * per16;
}

struct Extents {
  std::int64_t lda, ldb, ldd;
  std::size_t a_bytes, b_bytes, d_bytes, bias_bytes;
};

Extents extents_of(GemmProblem const& p) {
  bool const a_rows = p.a_layout == wg::MatrixLayout::RowMajor;
  bool const b_rows = p.b_layout == wg::MatrixLayout::RowMajor;
  wg::ScalarType const out = output_type(p.type);
  std::size_t const in_size = wg::size_of(p.type), out_size = wg::size_of(out);
  Extents e{};
  e.lda = leading_dimension(a_rows ? p.k : p.m, p.type);
  e.ldb = leading_dimension(b_rows ? p.n : p.k, p.type);
  e.ldd = leading_dimension(p.n, out);
  e.a_bytes = static_cast<std::size_t>(e.lda) * (a_rows ? p.m : p.k) * in_size;
  e.b_bytes = static_cast<std::size_t>(e.ldb) * (b_rows ? p.k : p.n) * in_size;
  e.d_bytes = static_cast<std::size_t>(e.ldd) * p.m * out_size;
  e.bias_bytes = p.bias ? static_cast<std::size_t>(e.ldd) * out_size : 0;
  return e;
}

void fill(wt::DeviceBuffer& buf, wg::ScalarType t, std::uint64_t seed) {
  switch (t) {
    case wg::ScalarType::BF16:
      return wt::fill_uniform(buf.as<__nv_bfloat16>(), buf.bytes() / 2, seed);
    case wg::ScalarType::F16:
      return wt::fill_uniform(buf.as<__half>(), buf.bytes() / 2, seed);
    case wg::ScalarType::E4M3:
      return wt::fill_uniform(buf.as<__nv_fp8_e4m3>(), buf.bytes(), seed);
    case wg::ScalarType::E5M2:
      return wt::fill_uniform(buf.as<__nv_fp8_e5m2>(), buf.bytes(), seed);
    default:
      throw std::invalid_argument("GemmOperands: inputs must be bf16, fp16, e4m3 or e5m2");
  }
}

float widen(std::uint16_t bits, wg::ScalarType t) {
  if (t == wg::ScalarType::BF16) {
    std::uint32_t const wide = std::uint32_t{bits} << 16;
    float v;
    std::memcpy(&v, &wide, 4);
    return v;
  }
  __half_raw raw;
  raw.x = bits;
  return __half2float(__half(raw));
}

}  // namespace

bool is_fp8(wg::ScalarType t) {
  return t == wg::ScalarType::E4M3 || t == wg::ScalarType::E5M2;
}

wg::ScalarType output_type(wg::ScalarType input) {
  return is_fp8(input) ? wg::ScalarType::BF16 : input;
}

wg::ScalarType parse_input_type(std::string const& name, std::string const& option) {
  if (name == "bf16") return wg::ScalarType::BF16;
  if (name == "fp16") return wg::ScalarType::F16;
  if (name == "e4m3") return wg::ScalarType::E4M3;
  if (name == "e5m2") return wg::ScalarType::E5M2;
  throw std::invalid_argument(option + ": `" + name +
                              "` is not an input type (bf16, fp16, e4m3, e5m2)");
}

void parse_layout(std::string const& letters, std::string const& option, GemmProblem& problem) {
  auto const layout = [&](char c) {
    if (c == 't') return wg::MatrixLayout::RowMajor;  // A^T (or B^T) stored column-major
    if (c == 'n') return wg::MatrixLayout::ColMajor;
    throw std::invalid_argument(option + ": `" + letters +
                                "` is not a layout (BLAS letters of A and B: tn, nn, nt, tt)");
  };
  if (letters.size() != 2) layout('?');
  problem.a_layout = layout(letters[0]);
  problem.b_layout = layout(letters[1]);
}

struct NamedEpilogue {
  std::string name;
  bool bias;
  wg::Activation activation;
};

std::vector<NamedEpilogue> const& named_epilogues() {
  static std::vector<NamedEpilogue> const all = {
      {"none", false, wg::Activation::Identity},          {"bias", true, wg::Activation::Identity},
      {"bias_relu", true, wg::Activation::ReLU},          {"bias_gelu", true, wg::Activation::GELU},
      {"bias_gelu_tanh", true, wg::Activation::GELUTanh}, {"bias_silu", true, wg::Activation::SiLU},
  };
  return all;
}

std::vector<std::string> const& epilogue_names() {
  static std::vector<std::string> const names = [] {
    std::vector<std::string> out;
    for (NamedEpilogue const& e : named_epilogues()) out.push_back(e.name);
    return out;
  }();
  return names;
}

void parse_epilogue(std::string const& name, std::string const& option, GemmProblem& problem) {
  for (NamedEpilogue const& e : named_epilogues()) {
    if (e.name != name) continue;
    problem.bias = e.bias;
    problem.activation = e.activation;
    return;
  }
  std::string all;
  for (std::string const& n : epilogue_names()) all += (all.empty() ? "" : ", ") + n;
  throw std::invalid_argument(option + ": `" + name + "` is not an epilogue (" + all + ")");
}

Fp8Scales::Fp8Scales() : buffer_(2 * 16) {
  float const host[5] = {kA, 0.0f, 0.0f, 0.0f, kB};
  WL_CUDA_CHECK(cudaMemcpy(buffer_.get(), host, sizeof(host), cudaMemcpyHostToDevice));
}

wg::GemmArguments gemm_arguments(GemmProblem const& p, void const* a, void const* b, void* d,
                                 float const* scale_a, float const* scale_b, void const* bias) {
  Extents const e = extents_of(p);
  wg::GemmArguments args;
  args.m = p.m;
  args.n = p.n;
  args.k = p.k;
  args.a = {a, p.type, p.a_layout, e.lda, 0};
  args.b = {b, p.type, p.b_layout, e.ldb, 0};
  args.d = d;
  args.d_type = output_type(p.type);
  args.ldd = e.ldd;
  if (is_fp8(p.type)) {
    args.scale_a = scale_a;
    args.scale_b = scale_b;
  }
  args.epilogue.activation = p.activation;
  if (p.bias) {
    args.epilogue.bias = bias;
    args.epilogue.bias_type = args.d_type;
    args.epilogue.bias_broadcast = wg::Broadcast::PerColumn;
  }
  return args;
}

GemmOperands::GemmOperands(GemmProblem const& p, std::uint64_t seed, Fp8Scales const* scales) {
  if (is_fp8(p.type) && scales == nullptr)
    throw std::invalid_argument("GemmOperands: fp8 inputs need scales");
  Extents const e = extents_of(p);
  a_ = wt::DeviceBuffer(e.a_bytes);
  b_ = wt::DeviceBuffer(e.b_bytes);
  d_ = wt::DeviceBuffer(e.d_bytes);
  fill(a_, p.type, 2 * seed);
  fill(b_, p.type, 2 * seed + 1);
  if (p.bias) {
    bias_ = wt::DeviceBuffer(e.bias_bytes);
    fill(bias_, output_type(p.type), 3 * seed + 7);
  }
  args_ = gemm_arguments(p, a_.get(), b_.get(), d_.get(), scales ? scales->a() : nullptr,
                         scales ? scales->b() : nullptr, bias_.get());
}

std::size_t GemmOperands::bytes(GemmProblem const& p) {
  Extents const e = extents_of(p);
  return e.a_bytes + e.b_bytes + e.d_bytes + e.bias_bytes;
}

double max_relative_error(wg::GemmArguments const& args, int first_row, int rows) {
  if (wg::size_of(args.d_type) != 2 || args.d_layout != wg::MatrixLayout::RowMajor)
    throw std::invalid_argument("max_relative_error: D must be row-major bf16 or fp16");
  if (first_row < 0 || rows < 1 || first_row + rows > args.m)
    throw std::invalid_argument("max_relative_error: rows out of D");
  // The band of rows is a GEMM of its own: A's rows and D's rows move, B stays.
  wg::GemmArguments r = args;
  std::int64_t const a_step = args.a.layout == wg::MatrixLayout::RowMajor ? args.a.ld : 1;
  r.a.data = static_cast<char const*>(args.a.data) + first_row * a_step * wg::size_of(args.a.type);
  r.d = static_cast<char*>(args.d) + first_row * args.ldd * 2;
  if (wg::Matrix& res = r.epilogue.residual; res.data != nullptr) {
    // The residual's rows move with D's; its ld is fixed first, as the packed default would
    // follow the band's row count for a column-major residual.
    bool const res_rows = res.layout == wg::MatrixLayout::RowMajor;
    res.ld = res.ld != 0 ? res.ld : (res_rows ? args.n : args.m);
    res.data =
        static_cast<char const*>(res.data) +
        first_row * (res_rows ? res.ld : 1) * static_cast<std::int64_t>(wg::size_of(res.type));
  }
  r.m = rows;
  std::size_t const count = static_cast<std::size_t>(rows) * r.n;
  wt::DeviceBuffer ref(count * sizeof(double));
  wg::reference_gemm(r, ref.as<double>());
  std::vector<double> want(count);
  std::vector<std::uint16_t> got(count);
  WL_CUDA_CHECK(cudaMemcpy(want.data(), ref.get(), count * sizeof(double), cudaMemcpyDeviceToHost));
  WL_CUDA_CHECK(
      cudaMemcpy2D(got.data(), r.n * 2, r.d, r.ldd * 2, r.n * 2, r.m, cudaMemcpyDeviceToHost));
  double err = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < count; ++i) {
    float const v = widen(got[i], r.d_type);
    err = std::max(err, std::isnan(v) ? INFINITY : std::abs(v - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  return err / scale;
}

double error_tolerance(wg::ScalarType input) {
  return is_fp8(input) ? 5e-2 : 1e-2;
}

gemm::GemmArguments placeholder_arguments(GemmProblem const& problem) {
  // 2^40 bytes apart: no operand overlaps another (gemm() refuses D aliasing A or B).
  auto const address = [](std::uintptr_t i) { return reinterpret_cast<char*>(i << 40); };
  auto const* const scale = reinterpret_cast<float const*>(address(5));
  return gemm_arguments(problem, address(1), address(2), address(3), scale, scale, address(4));
}

}  // namespace warploom::bench
