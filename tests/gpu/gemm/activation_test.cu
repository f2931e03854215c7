// tests/gpu/gemm/activation_test.cu
//
// The fused epilogue's activations (kernels/gemm/activation.cuh) on the device, in fp32 (every
// GEMM but fp64's) and double (the SIMT GEMM's fp64 epilogue), compile-time and run-time forms,
// against the reference's definitions in double (kernels/gemm/reference.hpp) on a grid of z in
// [-12, 12] and far out where exp overflows. Tight enough to tell gelu from gelu_tanh (they differ
// by up to 4.7e-4), which the GEMM tests, at bf16 and fp16 resolution, cannot.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "gemm/activation.cuh"
#include "gemm/reference.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::gemm {
namespace {

constexpr float kSlope = 0.2f;

template <Activation kA>
__global__ void activate_fp32(float const* z, float* out, int n) {
  int const i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = activate<kA>(z[i], kSlope);
}

template <class T>
__global__ void activate_at_run_time(Activation a, T const* z, T* out, int n) {
  int const i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = activate(a, z[i], T(kSlope));
}

std::vector<float> grid() {
  std::vector<float> z;
  for (int i = -12 * 256; i <= 12 * 256; ++i) z.push_back(static_cast<float>(i) / 256.0f);
  for (float far : {-100.0f, -89.0f, -88.5f, 30.0f, 89.0f, 100.0f}) z.push_back(far);
  return z;
}

template <class T>
std::vector<T> run(Activation a, std::vector<T> const& z, bool compile_time) {
  int const n = static_cast<int>(z.size());
  testing::DeviceBuffer in(z.size() * sizeof(T)), out(z.size() * sizeof(T));
  WL_CUDA_CHECK(cudaMemcpy(in.get(), z.data(), in.bytes(), cudaMemcpyHostToDevice));
  int const blocks = (n + 255) / 256;
  if constexpr (std::is_same_v<T, float>) {
    if (compile_time) {
      switch (a) {
#define WL_CASE(A)                                                                     \
  case Activation::A:                                                                  \
    activate_fp32<Activation::A><<<blocks, 256>>>(in.as<float>(), out.as<float>(), n); \
    break;
        WL_CASE(Identity)
        WL_CASE(ReLU)
        WL_CASE(LeakyReLU)
        WL_CASE(GELU)
        WL_CASE(GELUTanh)
        WL_CASE(HardSwish)
        WL_CASE(Sigmoid)
        WL_CASE(SiLU)
        WL_CASE(Tanh)
#undef WL_CASE
      }
    } else {
      activate_at_run_time<<<blocks, 256>>>(a, in.as<float>(), out.as<float>(), n);
    }
  } else {
    activate_at_run_time<<<blocks, 256>>>(a, in.as<T>(), out.as<T>(), n);
  }
  WL_CUDA_CHECK(cudaGetLastError());
  std::vector<T> host(z.size());
  WL_CUDA_CHECK(cudaMemcpy(host.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
  return host;
}

constexpr Activation kActivations[] = {
    Activation::Identity, Activation::ReLU,     Activation::LeakyReLU,
    Activation::GELU,     Activation::GELUTanh, Activation::HardSwish,
    Activation::Sigmoid,  Activation::SiLU,     Activation::Tanh,
};

// fp32: erff and tanhf are within 2 ulp (CUDA Programming Guide, "Mathematical Functions"); the
// logistic forms' __expf and __fdividef ("Intrinsic Functions") within 2 + 1.2 |x| ulp and 2 ulp,
// and where |x| is large the logistic is near 0 or 1, which absorbs its error. A few fp32
// operations around them add a few ulp more: 1e-6 relative is 8 ulp. The absolute 1e-6
// is for cancellation near 0: gelu's 1 + erf(z / sqrt 2) (and gelu_tanh's 1 + tanh) for z < -3
// is computed from values near -1, so its error is an ulp of 1 times |z| / 2 (3.6e-7 at z = -12),
// however small the result.
TEST(Activation, Fp32FormsMatchTheReference) {
  std::vector<float> const z = grid();
  for (Activation a : kActivations) {
    for (bool compile_time : {true, false}) {
      std::vector<float> const got = run(a, z, compile_time);
      int bad = 0;
      for (std::size_t i = 0; i < z.size(); ++i) {
        double const want = reference_activation(a, z[i], kSlope);
        if (!(std::abs(got[i] - want) <= 1e-6 * (std::abs(want) + 1.0)) && bad++ < 3)
          ADD_FAILURE() << to_string(a) << (compile_time ? "" : " (run time)") << "(" << z[i]
                        << ") = " << got[i] << ", expected " << want;
      }
      EXPECT_EQ(bad, 0) << to_string(a);
    }
  }
}

// double (the SIMT GEMM's fp64 epilogue): the same functions in double, so the two agree to a few
// ulp of double, absolutely 1e-15 where gelu's 1 + erf cancels.
TEST(Activation, Fp64FormMatchesTheReference) {
  std::vector<float> const zf = grid();
  std::vector<double> const z(zf.begin(), zf.end());
  for (Activation a : kActivations) {
    std::vector<double> const got = run(a, z, false);
    int bad = 0;
    for (std::size_t i = 0; i < z.size(); ++i) {
      double const want = reference_activation(a, z[i], kSlope);
      if (!(std::abs(got[i] - want) <= 1e-14 * std::abs(want) + 1e-15) && bad++ < 3)
        ADD_FAILURE() << to_string(a) << "(" << z[i] << ") = " << got[i] << ", expected " << want;
    }
    EXPECT_EQ(bad, 0) << to_string(a);
  }
}

// gelu and gelu_tanh are different functions, and the kernels compute the one asked for.
TEST(Activation, GeluAndGeluTanhDiffer) {
  std::vector<float> const z = {-2.5f, -1.0f, 1.5f, 2.5f};
  std::vector<float> const erf_form = run(Activation::GELU, z, true);
  std::vector<float> const tanh_form = run(Activation::GELUTanh, z, true);
  for (std::size_t i = 0; i < z.size(); ++i) {
    double const gap = reference_activation(Activation::GELU, z[i], 0) -
                       reference_activation(Activation::GELUTanh, z[i], 0);
    EXPECT_GT(std::abs(gap), 1e-4) << z[i];
    EXPECT_NEAR(erf_form[i] - tanh_form[i], gap, 1e-5) << z[i];
  }
}

}  // namespace
}  // namespace warploom::gemm
