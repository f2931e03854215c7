// tests/gpu/gemm/gemm_check.cpp — see gemm_check.hpp.
#include "gemm_check.hpp"

#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>

#include "gemm/reference.hpp"
#include "repack.hpp"  // src/gemm: what gemm()'s Auto copies for the tensor cores
#include "warploom/cuda_check.hpp"

namespace warploom::gemm::testing {
namespace {

// Storage of a rows x cols operand: leading dimension (contiguous extent, rounded up to 16 bytes
// when `align`, plus `pad`) and the number of elements per batch.
struct Storage {
  std::int64_t ld, batch_elems;
};
Storage storage(MatrixLayout layout, int rows, int cols, ScalarType t, int pad, bool align) {
  std::int64_t const contiguous = layout == MatrixLayout::RowMajor ? cols : rows;
  std::int64_t const strided = layout == MatrixLayout::RowMajor ? rows : cols;
  std::int64_t const per16 = 16 / size_of(t);
  std::int64_t const ld = (align ? (contiguous + per16 - 1) / per16 * per16 : contiguous) + pad;
  return {ld, ld * strided};
}

void fill(void* p, ScalarType t, std::size_t count, std::uint64_t seed) {
  switch (t) {
    case ScalarType::F16:
      warploom::testing::fill_uniform(static_cast<__half*>(p), count, seed);
      break;
    case ScalarType::BF16:
      warploom::testing::fill_uniform(static_cast<__nv_bfloat16*>(p), count, seed);
      break;
    case ScalarType::F32:
      warploom::testing::fill_uniform(static_cast<float*>(p), count, seed);
      break;
    case ScalarType::F64:
      warploom::testing::fill_uniform(static_cast<double*>(p), count, seed);
      break;
    case ScalarType::E4M3:
      warploom::testing::fill_uniform(static_cast<__nv_fp8_e4m3*>(p), count, seed);
      break;
    case ScalarType::E5M2:
      warploom::testing::fill_uniform(static_cast<__nv_fp8_e5m2*>(p), count, seed);
      break;
  }
}

double fp8_value(unsigned char byte, __nv_fp8_interpretation_t kind) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(byte, kind)));
}

double load(unsigned char const* bytes, ScalarType t, std::int64_t i) {
  switch (t) {
    case ScalarType::F16: {
      __half h;
      std::memcpy(&h, bytes + 2 * i, 2);
      return __half2float(h);
    }
    case ScalarType::BF16: {
      __nv_bfloat16 h;
      std::memcpy(&h, bytes + 2 * i, 2);
      return __bfloat162float(h);
    }
    case ScalarType::F32: {
      float f;
      std::memcpy(&f, bytes + 4 * i, 4);
      return f;
    }
    case ScalarType::F64: {
      double f;
      std::memcpy(&f, bytes + 8 * i, 8);
      return f;
    }
    case ScalarType::E4M3:  // not an output type; decoded for completeness
      return fp8_value(bytes[i], __NV_E4M3);
    case ScalarType::E5M2:
      return fp8_value(bytes[i], __NV_E5M2);
  }
  return 0.0;
}

}  // namespace

std::string Problem::describe() const {
  std::ostringstream s;
  s << m << "x" << n << "x" << k << " batch " << batch << " " << to_string(in) << "->"
    << to_string(out) << " A " << to_string(a) << " B " << to_string(b) << " D " << to_string(d)
    << " alpha " << alpha << " beta " << beta << " pad " << pad;
  if (!align_ld) s << " (packed ld)";
  if (offset != 0) s << " offset " << offset;
  if (c_offset != 0) s << " c_offset " << c_offset;
  if (scale_a) s << " scale_a " << *scale_a;
  if (scale_b) s << " scale_b " << *scale_b;
  if (device_scalars) s << " (alpha, beta in device memory)";
  if (scale_d) s << " scale_d " << *scale_d;
  if (amax_d) s << " amax_d";
  if (broadcast_a) s << " A broadcast";
  if (broadcast_b) s << " B broadcast";
  if (broadcast_c) s << " C broadcast";
  EpilogueSpec const& e = epilogue;
  if (e.fused()) {
    s << " epilogue {";
    if (e.row_scale) s << " row_scale";
    if (e.col_scale) s << " col_scale";
    if (e.bias) s << " bias " << to_string(e.bias_broadcast) << " " << to_string(e.bias_type);
    if (e.pre_activation) s << " pre_activation " << to_string(e.pre_activation_layout);
    s << " " << to_string(e.activation);
    if (e.activation == Activation::LeakyReLU) s << " slope " << e.leaky_slope;
    if (e.residual) s << " residual " << to_string(e.residual_layout);
    if (e.misalign != 0) s << " misalign " << e.misalign;
    s << " }";
  }
  return s.str();
}

double activation_slope_bound(Activation a, float leaky_slope) {
  switch (a) {
    case Activation::Identity:
    case Activation::ReLU:
    case Activation::Tanh:
      return 1.0;
    case Activation::LeakyReLU:
      return std::max(1.0, std::abs(double{leaky_slope}));
    case Activation::GELU:  // Phi(z) + z phi(z), largest at z = sqrt 2: 1.129
    case Activation::GELUTanh:
      return 1.13;
    case Activation::HardSwish:  // (2z + 3) / 6 just below z = 3
      return 1.5;
    case Activation::Sigmoid:
      return 0.25;
    case Activation::SiLU:  // sigmoid(z) (1 + z (1 - sigmoid(z))), largest near z = 2.4: 1.0998
      return 1.1;
  }
  return 1.0;
}

double tolerance(ScalarType out) {
  switch (out) {
    case ScalarType::F16:
      return 2e-3;  // half an ulp is 4.9e-4 of |ref|
    case ScalarType::BF16:
      return 1e-2;  // half an ulp is 3.9e-3
    case ScalarType::F32:
      return 1e-4;  // fp32 accumulation only
    case ScalarType::F64:
      return 1e-12;
    case ScalarType::E4M3:
      return 7e-2;  // 3 mantissa bits: half an ulp is 6.25e-2 of |ref|
    case ScalarType::E5M2:
      return 1.3e-1;  // 2 mantissa bits: 1.25e-1
  }
  return 0.0;
}

double tolerance(ScalarType in, ScalarType out) {
  // fp32 accumulation of exact fp32 products: the rounding error of K additions grows like
  // 6e-8 x K / 7 of rms (8e-6 at K = 1000), far below this.
  if (in == ScalarType::F32 && out == ScalarType::F32) return 1e-5;
  // Double against double: only the order of the sums and FMA contraction differ (~1e-14).
  if (in == ScalarType::F64) return 1e-12;
  return tolerance(out);
}

double tolerance(ScalarType in, ScalarType out, int k, GemmKernel ran) {
  bool const fp8 = in == ScalarType::E4M3 || in == ScalarType::E5M2;
  if (!fp8 || ran != GemmKernel::TensorCore) return tolerance(in, out);
  // fp8 products are exact, but Hopper's fp8 wgmma does not accumulate in full fp32 (measured by
  // DeepSeek-V3 §3.5.2 and SageAttention2: the 32 products of one k32 step are aligned to their
  // largest exponent and keep 14 bits, the accumulator keeps 13 mantissa bits, both truncated).
  // A simulation of that model on uniform [-1, 1) fp8 data gives a largest error of 4-7e-5 x
  // (|ref| + rms) per k32 step, 1.1e-4 for a single step; if the alignment also took in the
  // accumulator, up to 4.3e-4 per step. Allowed: 2^-13 for the final truncation plus 2^-11 per
  // step (K = 700: 1.1e-2), on top of the output rounding. A wrong tile, swizzle, scale or K step
  // is off by 1e-1 or more.
  int const steps = (k + 31) / 32;
  return tolerance(out) + std::ldexp(1.0, -13) + steps * std::ldexp(1.0, -11);
}

ProblemData::ProblemData(Problem const& p, std::uint64_t seed) : p_(p) {
  Storage const sa = storage(p.a, p.m, p.k, p.in, p.pad, p.align_ld);
  Storage const sb = storage(p.b, p.k, p.n, p.in, p.pad, p.align_ld);
  Storage const sd = storage(p.d, p.m, p.n, p.out, p.pad, p.align_ld);
  // Every buffer holds `offset` elements before the operand; a broadcast operand one batch.
  auto const elems = [&](Storage s, bool broadcast = false) {
    return static_cast<std::size_t>(s.batch_elems) * (broadcast ? 1 : p.batch) +
           static_cast<std::size_t>(p.offset);
  };
  auto const batch_stride = [](Storage s, bool broadcast) {
    return broadcast ? std::int64_t{0} : s.batch_elems;
  };
  auto const base = [&](warploom::testing::DeviceBuffer const& b, ScalarType t) {
    return static_cast<char*>(b.get()) + static_cast<std::ptrdiff_t>(p.offset) * size_of(t);
  };
  a_ = warploom::testing::DeviceBuffer(elems(sa, p.broadcast_a) * size_of(p.in));
  b_ = warploom::testing::DeviceBuffer(elems(sb, p.broadcast_b) * size_of(p.in));
  d_ = warploom::testing::DeviceBuffer(elems(sd) * size_of(p.out));
  fill(a_.get(), p.in, elems(sa, p.broadcast_a), seed);
  fill(b_.get(), p.in, elems(sb, p.broadcast_b), seed + 1);
  args_.m = p.m;
  args_.n = p.n;
  args_.k = p.k;
  args_.batch = p.batch;
  args_.a = {base(a_, p.in), p.in, p.a, sa.ld, batch_stride(sa, p.broadcast_a)};
  args_.b = {base(b_, p.in), p.in, p.b, sb.ld, batch_stride(sb, p.broadcast_b)};
  if (p.beta != 0.0f || p.device_scalars) {
    std::size_t const c_elems = elems(sd, p.broadcast_c) + static_cast<std::size_t>(p.c_offset);
    c_ = warploom::testing::DeviceBuffer(c_elems * size_of(p.out));
    fill(c_.get(), p.out, c_elems, seed + 2);
    args_.c = {base(c_, p.out) + static_cast<std::ptrdiff_t>(p.c_offset) * size_of(p.out), p.out,
               p.d, sd.ld, batch_stride(sd, p.broadcast_c)};
  }
  args_.d = base(d_, p.out);
  args_.d_type = p.out;
  args_.d_layout = p.d;
  args_.ldd = sd.ld;
  args_.batch_stride_d = sd.batch_elems;
  args_.alpha = p.alpha;
  args_.beta = p.beta;
  if (p.device_scalars) {
    device_scalars_ = warploom::testing::DeviceBuffer(2 * sizeof(float));
    args_.alpha = 1.0f;
    args_.beta = 0.0f;
    args_.alpha_ptr = device_scalars_.as<float>();
    args_.beta_ptr = device_scalars_.as<float>() + 1;
    set_device_scalars(p.alpha, p.beta);
  }
  if (p.scale_a || p.scale_b) {
    float const scales[2] = {p.scale_a.value_or(1.0f), p.scale_b.value_or(1.0f)};
    scales_ = warploom::testing::DeviceBuffer(sizeof(scales));
    WL_CUDA_CHECK(cudaMemcpy(scales_.get(), scales, sizeof(scales), cudaMemcpyHostToDevice));
    if (p.scale_a) args_.scale_a = scales_.as<float>();
    if (p.scale_b) args_.scale_b = scales_.as<float>() + 1;
  }

  // An fp8 D's scale and amax: [scale_d, amax_d] in one buffer, the amax poisoned (the launcher
  // must set it).
  if (p.scale_d || p.amax_d) {
    float const values[2] = {p.scale_d.value_or(1.0f), std::numeric_limits<float>::quiet_NaN()};
    out_scalars_ = warploom::testing::DeviceBuffer(sizeof(values));
    WL_CUDA_CHECK(cudaMemcpy(out_scalars_.get(), values, sizeof(values), cudaMemcpyHostToDevice));
    if (p.scale_d) args_.scale_d = out_scalars_.as<float>();
    if (p.amax_d) args_.amax_d = out_scalars_.as<float>() + 1;
  }

  // The fused epilogue: vectors past `offset` elements like every operand (element-aligned only
  // when offset is odd), the residual and the pre-activation output stored like D.
  EpilogueSpec const& e = p.epilogue;
  auto const misaligned = [&](warploom::testing::DeviceBuffer const& b, ScalarType t) {
    return base(b, t) + static_cast<std::ptrdiff_t>(e.misalign) * size_of(t);
  };
  std::size_t const extra = static_cast<std::size_t>(p.offset + e.misalign);
  if (e.bias) {
    std::size_t const count = e.bias_broadcast == Broadcast::PerRow ? p.m : p.n;
    bias_ = warploom::testing::DeviceBuffer((count + extra) * size_of(e.bias_type));
    fill(bias_.get(), e.bias_type, count + extra, seed + 3);
    args_.epilogue.bias = misaligned(bias_, e.bias_type);
    args_.epilogue.bias_type = e.bias_type;
    args_.epilogue.bias_broadcast = e.bias_broadcast;
  }
  auto const scales = [&](int count, std::uint64_t s) {
    std::mt19937_64 rng(s);
    std::uniform_real_distribution<float> u(0.5f, 1.5f);
    std::vector<float> host(static_cast<std::size_t>(count) + extra);
    for (float& v : host) v = u(rng);
    warploom::testing::DeviceBuffer b(host.size() * sizeof(float));
    WL_CUDA_CHECK(cudaMemcpy(b.get(), host.data(), b.bytes(), cudaMemcpyHostToDevice));
    return b;
  };
  if (e.row_scale) {
    row_scale_ = scales(p.m, seed + 4);
    args_.epilogue.row_scale =
        reinterpret_cast<float const*>(misaligned(row_scale_, ScalarType::F32));
  }
  if (e.col_scale) {
    col_scale_ = scales(p.n, seed + 5);
    args_.epilogue.col_scale =
        reinterpret_cast<float const*>(misaligned(col_scale_, ScalarType::F32));
  }
  if (e.residual) {
    Storage const sr = storage(e.residual_layout, p.m, p.n, p.out, p.pad, p.align_ld);
    std::size_t const count = elems(sr) + static_cast<std::size_t>(e.misalign);
    residual_ = warploom::testing::DeviceBuffer(count * size_of(p.out));
    fill(residual_.get(), p.out, count, seed + 6);
    args_.epilogue.residual = {misaligned(residual_, p.out), p.out, e.residual_layout, sr.ld,
                               sr.batch_elems};
  }
  if (e.pre_activation) {
    Storage const sp = storage(e.pre_activation_layout, p.m, p.n, p.out, p.pad, p.align_ld);
    pre_activation_ = warploom::testing::DeviceBuffer(elems(sp) * size_of(p.out));
    args_.epilogue.pre_activation = {base(pre_activation_, p.out), p.out, e.pre_activation_layout,
                                     sp.ld, sp.batch_elems};
  }
  args_.epilogue.activation = e.activation;
  args_.epilogue.leaky_slope = e.leaky_slope;
  poison_d();
}

void ProblemData::set_device_scalars(float alpha, float beta, cudaStream_t stream) const {
  if (device_scalars_.get() == nullptr)
    throw std::logic_error("set_device_scalars: the problem has no device_scalars");
  float const values[2] = {alpha, beta};
  WL_CUDA_CHECK(cudaMemcpyAsync(device_scalars_.get(), values, sizeof(values),
                                cudaMemcpyHostToDevice, stream));
  WL_CUDA_CHECK(cudaStreamSynchronize(stream));  // `values` is on this stack frame
}

void ProblemData::poison_d() const {
  warploom::testing::poison(d_.get(), d_.bytes());
  if (pre_activation_.get() != nullptr)
    warploom::testing::poison(pre_activation_.get(), pre_activation_.bytes());
}

namespace {

// One output matrix (D or the pre-activation output) against its reference: every element within
// `bound(i)` of reference[i] (i = (l * m + row) * n + col; a NaN fails) in batch l's first
// valid_rows[l] rows (all m when valid_rows is empty), and every other element of the buffer
// (rows past the valid ones, padding, before the base pointer) still the poison. Appends the
// first few errors to `errors`, returns how many there were.
template <class Bound>
std::int64_t compare(char const* what, warploom::testing::DeviceBuffer const& buffer,
                     Problem const& p, ScalarType type, MatrixLayout layout, std::int64_t ld,
                     std::int64_t batch_stride, std::vector<double> const& reference,
                     Bound const& bound, std::ostringstream& errors, int& reported,
                     std::span<int const> valid_rows = {}) {
  std::vector<unsigned char> got(buffer.bytes());
  WL_CUDA_CHECK(cudaMemcpy(got.data(), buffer.get(), got.size(), cudaMemcpyDeviceToHost));
  bool const row_major = layout == MatrixLayout::RowMajor;
  std::vector<bool> written(got.size() / size_of(type), false);
  std::int64_t bad = 0;
  for (int l = 0; l < p.batch; ++l) {
    int const rows = valid_rows.empty() ? p.m : valid_rows[static_cast<std::size_t>(l)];
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < p.n; ++j) {
        std::int64_t const at = p.offset + l * batch_stride +
                                (row_major ? std::int64_t{i} * ld + j : std::int64_t{j} * ld + i);
        written[static_cast<std::size_t>(at)] = true;
        double const value = load(got.data(), type, at);
        std::size_t const r = (static_cast<std::size_t>(l) * p.m + i) * p.n + j;
        if (!(std::abs(value - reference[r]) <= bound(r))) {  // NaN fails too
          if (reported++ < 5)
            errors << "  " << what << "[" << l << "](" << i << ", " << j << ") = " << value
                   << ", expected " << reference[r] << " (bound " << bound(r) << ")\n";
          ++bad;
        }
      }
    }
  }
  std::int64_t const width = size_of(type);
  for (std::size_t e = 0; e < written.size(); ++e) {
    if (written[e]) continue;
    for (std::int64_t byte = 0; byte < width; ++byte) {
      if (got[e * width + byte] != 0xFF) {
        if (reported++ < 5)
          errors << "  padding element " << e << " of " << what << " was written\n";
        ++bad;
        break;
      }
    }
  }
  return bad;
}

double rms_of(std::vector<double> const& v) {
  double sum_sq = 0.0;
  for (double x : v) sum_sq += x * x;
  return std::sqrt(sum_sq / static_cast<double>(v.size()));
}

// The kernel gemm() runs for `args` asked for `kernel`: Auto's copies for the tensor cores
// (src/gemm/repack.hpp) run the tensor cores, with their fp8 accumulation.
GemmKernel kernel_run(GemmArguments const& args, GemmKernel kernel) {
  if (kernel == GemmKernel::Auto && repacks(args)) return GemmKernel::TensorCore;
  return selected_kernel(args, kernel);
}

}  // namespace

std::string ProblemData::check(std::vector<double> const& reference, GemmKernel kernel) const {
  return check(Reference{reference, {}}, kernel);
}

// An fp8 D holds saturate(scale_d * z): the reference of D from that of z.
std::vector<double> fp8_stored(std::vector<double> z, ScalarType out, double scale_d) {
  double const largest = out == ScalarType::E4M3 ? 448.0 : 57344.0;
  for (double& v : z) v = std::clamp(v * scale_d, -largest, largest);
  return z;
}

std::string ProblemData::check(Reference const& unscaled, GemmKernel kernel,
                               std::span<int const> valid_rows) const {
  bool const fp8_out = p_.out == ScalarType::E4M3 || p_.out == ScalarType::E5M2;
  std::string amax_error;
  if (fp8_out && p_.amax_d) {
    // max |z| before the scale: z's accumulation error only (the fp32 output's tolerance).
    float got = 0.0f;
    WL_CUDA_CHECK(cudaMemcpy(&got, args_.amax_d, sizeof(got), cudaMemcpyDeviceToHost));
    double expected = 0.0;
    for (double v : unscaled.d) expected = std::max(expected, std::abs(v));
    double const bound =
        tolerance(p_.in, ScalarType::F32, p_.k, kernel_run(args_, kernel)) * 2.0 * expected;
    if (!(std::abs(got - expected) <= bound))
      amax_error = "amax_d = " + std::to_string(got) + ", expected " + std::to_string(expected) +
                   " (bound " + std::to_string(bound) + ")\n";
  }
  Reference const ref =
      fp8_out ? Reference{fp8_stored(unscaled.d, p_.out, p_.scale_d.value_or(1.0f)), {}} : unscaled;
  // z's tolerance is the plain GEMM's: accumulation (fp8: the tensor cores' reduced precision)
  // and the rounding of z to D's type. Without a fused epilogue D is z.
  double const tol_z = tolerance(p_.in, p_.out, p_.k, kernel_run(args_, kernel));
  std::vector<double> const& z = ref.z.empty() ? ref.d : ref.z;
  double const rms = rms_of(ref.d), rms_z = rms_of(z);
  EpilogueSpec const& e = p_.epilogue;
  // With a fused epilogue, D = round(activation(z') + residual) where z' is the kernel's z in D's
  // type (the activation reads the staged z, epilogue_ops.cuh): z's error reaches D through the
  // activation's slope (at most `slope` times), and D adds its own rounding (the activation in
  // fp32, within a few ulp of fp32 (kernels/gemm/activation.cuh), is far below both).
  double const slope = activation_slope_bound(e.activation, e.leaky_slope);
  double const tol_out = tolerance(p_.out);
  auto const d_bound = [&](std::size_t i) {
    if (!e.fused()) return tol_z * (std::abs(ref.d[i]) + rms);
    return slope * tol_z * (std::abs(z[i]) + rms_z) + tol_out * (std::abs(ref.d[i]) + rms);
  };
  std::ostringstream errors;
  int reported = 0;
  std::int64_t bad = compare("D", d_, p_, p_.out, p_.d, args_.ldd, args_.batch_stride_d, ref.d,
                             d_bound, errors, reported, valid_rows);
  if (e.pre_activation) {
    auto const z_bound = [&](std::size_t i) { return tol_z * (std::abs(z[i]) + rms_z); };
    GemmEpilogue const& ge = args_.epilogue;
    bad +=
        compare("pre_activation", pre_activation_, p_, p_.out, e.pre_activation_layout,
                ge.pre_activation.ld, ge.pre_activation.batch_stride, z, z_bound, errors, reported);
  }
  if (bad == 0) return amax_error;
  return amax_error + std::to_string(bad) + " wrong elements (tolerance of z " +
         std::to_string(tol_z) + " x (|z| + rms " + std::to_string(rms_z) + ")" +
         (e.fused() ? " x activation slope " + std::to_string(slope) + ", of D's rounding " +
                          std::to_string(tol_out) + " x (|ref| + rms " + std::to_string(rms) + ")"
                    : std::string()) +
         "):\n" + errors.str();
}

Reference full_reference_of(GemmArguments const& args) {
  std::size_t const count = static_cast<std::size_t>(args.batch) * args.m * args.n;
  warploom::testing::DeviceBuffer d(count * sizeof(double)), z(count * sizeof(double));
  reference_gemm(args, d.as<double>(), nullptr, z.as<double>());
  Reference host{std::vector<double>(count), std::vector<double>(count)};
  WL_CUDA_CHECK(cudaMemcpy(host.d.data(), d.get(), count * sizeof(double), cudaMemcpyDeviceToHost));
  WL_CUDA_CHECK(cudaMemcpy(host.z.data(), z.get(), count * sizeof(double), cudaMemcpyDeviceToHost));
  return host;
}

std::vector<double> reference_of(GemmArguments const& args) {
  std::size_t const count = static_cast<std::size_t>(args.batch) * args.m * args.n;
  warploom::testing::DeviceBuffer out(count * sizeof(double));
  reference_gemm(args, out.as<double>());
  std::vector<double> host(count);
  WL_CUDA_CHECK(cudaMemcpy(host.data(), out.get(), count * sizeof(double), cudaMemcpyDeviceToHost));
  return host;
}

namespace {

// The bytes of D (one batch, either layout) after a run.
std::vector<unsigned char> d_bytes(ProblemData const& data, Problem const& p) {
  bool const col = p.d == MatrixLayout::ColMajor;
  std::int64_t const lines = col ? p.n : p.m, line = col ? p.m : p.n;
  std::size_t const bytes = static_cast<std::size_t>((lines - 1) * data.args().ldd + line) *
                            static_cast<std::size_t>(size_of(p.out));
  std::vector<unsigned char> out(bytes);
  WL_CUDA_CHECK(cudaMemcpy(out.data(), data.args().d, bytes, cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace

void expect_same_bits_every_run(Problem const& p, GemmTuning const& tuning, int runs) {
  ProblemData const data(p);
  gemm(data.args(), nullptr, tuning);
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> const first = d_bytes(data, p);
  for (int run = 0; run < runs; ++run) {
    data.poison_d();
    gemm(data.args(), nullptr, tuning);
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(d_bytes(data, p), first) << "run " << run;
  }
}

void expect_same_bits_as(Problem const& p, GemmTuning const& tuning, GemmTuning const& other) {
  ProblemData const data(p);
  gemm(data.args(), nullptr, other);
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> const theirs = d_bytes(data, p);
  data.poison_d();
  gemm(data.args(), nullptr, tuning);
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(d_bytes(data, p), theirs);
  EXPECT_EQ(data.check(reference_of(data.args()), GemmKernel::TensorCore), "");
}

CapturedGemm::CapturedGemm(GemmArguments const& args, GemmTuning const& tuning) {
  WL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  WL_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed));
  gemm(args, stream_, tuning);
  WL_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph_));
  WL_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
}

CapturedGemm::~CapturedGemm() {
  (void)cudaGraphExecDestroy(exec_);
  (void)cudaGraphDestroy(graph_);
  (void)cudaStreamDestroy(stream_);
}

void CapturedGemm::replay() const {
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  WL_CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
  WL_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void expect_captured_graph_replays(Problem const& p, GemmTuning const& tuning) {
  ProblemData const data(p);
  CapturedGemm const graph(data.args(), tuning);
  for (int replay = 0; replay < 2; ++replay) {
    data.poison_d();
    graph.replay();
    EXPECT_EQ(data.check(reference_of(data.args()), GemmKernel::TensorCore), "")
        << "replay " << replay;
  }
}

void expect_correct(Problem const& p, GemmTuning const& tuning) {
  ProblemData data(p);
  SCOPED_TRACE(p.describe() + " on the " +
               std::string(to_string(selected_kernel(data.args(), tuning.kernel))) + " GEMM");
  gemm(data.args(), nullptr, tuning);
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  if (p.epilogue.fused()) {
    EXPECT_EQ(data.check(full_reference_of(data.args()), tuning.kernel), "");
  } else {
    EXPECT_EQ(data.check(reference_of(data.args()), tuning.kernel), "");
  }
}

}  // namespace warploom::gemm::testing
