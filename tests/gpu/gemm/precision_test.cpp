// tests/gpu/gemm/precision_test.cpp
//
// The precision of each path on integer-valued operands, where every product and partial sum is an
// integer below 2^24 and so exact in fp32: the exact result is known, and any difference is the
// kernel's own arithmetic, not rounding of the data.
// - The SIMT GEMM accumulates with fp32 FMA (fp64 for fp64): exact here, for every input type
//   (bf16, fp16, fp32), to the last bit.
// - The tensor cores (wgmma, fp32 accumulation) are measured, printed and held to a stated bound:
//   exact too while the sums stay integers below 2^24 (the products and their sums need no bits
//   past fp32's 24). (Hopper's fp8 accumulation does not keep fp32's bits: tolerance() in
//   gemm_check.cpp.)
// An fp16 D rounds the exact fp32 sum to nearest even: checked against the host's rounding.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "warploom/cuda_check.hpp"
#include "warploom/gemm.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::gemm::testing {
namespace {

using warploom::testing::DeviceBuffer;

// m x k (row-major) and k x n (column-major) integers in [-4, 4]: |partial sums| <= 16 k.
struct IntegerProblem {
  int m = 256, n = 256, k = 4096;
  std::vector<int> a, b;
  std::vector<std::int64_t> exact;  // m x n, row-major

  explicit IntegerProblem(std::uint64_t seed) {
    std::mt19937_64 gen(seed);
    std::uniform_int_distribution<int> value(-4, 4);
    a.resize(std::size_t(m) * k);
    b.resize(std::size_t(k) * n);
    for (int& x : a) x = value(gen);
    for (int& x : b) x = value(gen);
    exact.assign(std::size_t(m) * n, 0);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        std::int64_t s = 0;
        for (int l = 0; l < k; ++l)
          s += std::int64_t{a[std::size_t(i) * k + l]} * b[std::size_t(j) * k + l];
        exact[std::size_t(i) * n + j] = s;
      }
  }
};

template <class T>
T from_int(int v);
template <>
__nv_bfloat16 from_int(int v) {
  return __float2bfloat16(static_cast<float>(v));
}
template <>
__half from_int(int v) {
  return __float2half(static_cast<float>(v));
}
template <>
float from_int(int v) {
  return static_cast<float>(v);
}

template <class T>
DeviceBuffer upload_as(std::vector<int> const& values) {
  std::vector<T> converted(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) converted[i] = from_int<T>(values[i]);
  return warploom::testing::upload(converted);
}

// D (fp32) of `p` with inputs of type T on `kernel`, and its largest difference from the exact sum.
template <class T>
double largest_error(IntegerProblem const& p, ScalarType in, GemmKernel kernel) {
  DeviceBuffer a = upload_as<T>(p.a), b = upload_as<T>(p.b);
  DeviceBuffer d(std::size_t(p.m) * p.n * sizeof(float));
  warploom::testing::poison(d.get(), d.bytes());
  GemmArguments args;
  args.m = p.m, args.n = p.n, args.k = p.k;
  args.a = {a.get(), in, MatrixLayout::RowMajor};
  args.b = {b.get(), in, MatrixLayout::ColMajor};
  args.d = d.get();
  args.d_type = ScalarType::F32;
  gemm(args, nullptr, {.kernel = kernel});
  std::vector<float> got(std::size_t(p.m) * p.n);
  WL_CUDA_CHECK(cudaMemcpy(got.data(), d.get(), d.bytes(), cudaMemcpyDeviceToHost));
  double worst = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::abs(double(got[i]) - double(p.exact[i])));
  return std::isnan(worst) ? INFINITY : worst;
}

TEST(GemmPrecision, IntegerOperandsAreExactOnTheSimtGemm) {
  IntegerProblem const p(7);
  EXPECT_EQ(largest_error<__nv_bfloat16>(p, ScalarType::BF16, GemmKernel::Simt), 0.0);
  EXPECT_EQ(largest_error<__half>(p, ScalarType::F16, GemmKernel::Simt), 0.0);
  EXPECT_EQ(largest_error<float>(p, ScalarType::F32, GemmKernel::Simt), 0.0);
}

TEST(GemmPrecision, TensorCoreFp32AccumulationOnIntegers) {
  IntegerProblem const p(8);
  double const bf16 = largest_error<__nv_bfloat16>(p, ScalarType::BF16, GemmKernel::TensorCore);
  double const fp16 = largest_error<__half>(p, ScalarType::F16, GemmKernel::TensorCore);
  std::printf(
      "tensor cores, integer operands in [-4, 4], K = %d: largest |D - exact| bf16 %g, "
      "fp16 %g\n",
      p.k, bf16, fp16);
  EXPECT_EQ(bf16, 0.0);
  EXPECT_EQ(fp16, 0.0);
}

// An fp16 D is the exact fp32 sum rounded to nearest even, ties included (16 k <= 2^16: sums past
// 2048 are spaced by 2 or more in fp16, so odd sums are ties).
TEST(GemmPrecision, AnFp16DRoundsTiesToEven) {
  IntegerProblem const p(9);
  DeviceBuffer a = upload_as<__half>(p.a), b = upload_as<__half>(p.b);
  for (GemmKernel kernel : {GemmKernel::Simt, GemmKernel::TensorCore}) {
    SCOPED_TRACE(std::string(to_string(kernel)));
    DeviceBuffer d(std::size_t(p.m) * p.n * sizeof(__half));
    GemmArguments args;
    args.m = p.m, args.n = p.n, args.k = p.k;
    args.a = {a.get(), ScalarType::F16, MatrixLayout::RowMajor};
    args.b = {b.get(), ScalarType::F16, MatrixLayout::ColMajor};
    args.d = d.get();
    args.d_type = ScalarType::F16;
    gemm(args, nullptr, {.kernel = kernel});
    std::vector<__half> got(std::size_t(p.m) * p.n);
    WL_CUDA_CHECK(cudaMemcpy(got.data(), d.get(), d.bytes(), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      float const expected = __half2float(__float2half_rn(static_cast<float>(p.exact[i])));
      if (__half2float(got[i]) != expected && wrong++ < 3)
        ADD_FAILURE() << "element " << i << ": " << __half2float(got[i]) << ", exact " << p.exact[i]
                      << " rounds to " << expected;
    }
    EXPECT_EQ(wrong, 0);
  }
}

}  // namespace
}  // namespace warploom::gemm::testing
