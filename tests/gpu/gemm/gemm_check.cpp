// tests/gpu/gemm/gemm_check.cpp — see gemm_check.hpp.
#include "gemm_check.hpp"

#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>
#include <cstring>
#include <sstream>

#include "gemm/reference.hpp"
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
  if (broadcast_a) s << " A broadcast";
  if (broadcast_b) s << " B broadcast";
  if (broadcast_c) s << " C broadcast";
  return s.str();
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
    case ScalarType::E4M3:  // not output types
    case ScalarType::E5M2:
      break;
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
  if (p.beta != 0.0f) {
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
  if (p.scale_a || p.scale_b) {
    float const scales[2] = {p.scale_a.value_or(1.0f), p.scale_b.value_or(1.0f)};
    scales_ = warploom::testing::DeviceBuffer(sizeof(scales));
    WL_CUDA_CHECK(cudaMemcpy(scales_.get(), scales, sizeof(scales), cudaMemcpyHostToDevice));
    if (p.scale_a) args_.scale_a = scales_.as<float>();
    if (p.scale_b) args_.scale_b = scales_.as<float>() + 1;
  }
  poison_d();
}

void ProblemData::poison_d() const {
  warploom::testing::poison(d_.get(), d_.bytes());
}

std::string ProblemData::check(std::vector<double> const& reference, GemmKernel kernel) const {
  std::vector<unsigned char> d(d_.bytes());
  WL_CUDA_CHECK(cudaMemcpy(d.data(), d_.get(), d.size(), cudaMemcpyDeviceToHost));
  double sum_sq = 0.0;
  for (double r : reference) sum_sq += r * r;
  double const rms = std::sqrt(sum_sq / static_cast<double>(reference.size()));
  double const tol = tolerance(p_.in, p_.out, p_.k, selected_kernel(args_, kernel));
  bool const row_major = p_.d == MatrixLayout::RowMajor;

  std::vector<bool> written(d.size() / size_of(p_.out), false);
  std::ostringstream errors;
  int reported = 0;
  std::int64_t bad = 0;
  for (int l = 0; l < p_.batch; ++l) {
    for (int i = 0; i < p_.m; ++i) {
      for (int j = 0; j < p_.n; ++j) {
        std::int64_t const at =
            p_.offset + l * args_.batch_stride_d +
            (row_major ? std::int64_t{i} * args_.ldd + j : std::int64_t{j} * args_.ldd + i);
        written[static_cast<std::size_t>(at)] = true;
        double const got = load(d.data(), p_.out, at);
        double const want = reference[(static_cast<std::size_t>(l) * p_.m + i) * p_.n + j];
        if (!(std::abs(got - want) <= tol * (std::abs(want) + rms))) {  // NaN fails too
          if (reported++ < 5)
            errors << "  D[" << l << "](" << i << ", " << j << ") = " << got << ", expected "
                   << want << "\n";
          ++bad;
        }
      }
    }
  }
  // Padding between rows/columns and batches: still the poison.
  std::int64_t const width = size_of(p_.out);
  for (std::size_t e = 0; e < written.size(); ++e) {
    if (written[e]) continue;
    for (std::int64_t byte = 0; byte < width; ++byte) {
      if (d[e * width + byte] != 0xFF) {
        if (reported++ < 5) errors << "  padding element " << e << " of D was written\n";
        ++bad;
        break;
      }
    }
  }
  if (bad == 0) return "";
  return std::to_string(bad) + " wrong elements (tolerance " + std::to_string(tol) +
         " x (|ref| + rms " + std::to_string(rms) + ")):\n" + errors.str();
}

std::vector<double> reference_of(GemmArguments const& args) {
  std::size_t const count = static_cast<std::size_t>(args.batch) * args.m * args.n;
  warploom::testing::DeviceBuffer out(count * sizeof(double));
  reference_gemm(args, out.as<double>());
  std::vector<double> host(count);
  WL_CUDA_CHECK(cudaMemcpy(host.data(), out.get(), count * sizeof(double), cudaMemcpyDeviceToHost));
  return host;
}

void expect_correct(Problem const& p, GemmTuning const& tuning) {
  ProblemData data(p);
  SCOPED_TRACE(p.describe() + " on the " +
               std::string(to_string(selected_kernel(data.args(), tuning.kernel))) + " GEMM");
  gemm(data.args(), nullptr, tuning);
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(data.check(reference_of(data.args()), tuning.kernel), "");
}

}  // namespace warploom::gemm::testing
