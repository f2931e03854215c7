// kernels/gemm/activation.cuh
//
// The fused epilogue's activations (warploom/gemm.hpp, Activation) on the device, in the compute
// type T of the epilogue: float for every GEMM but fp64's (double).
//
// In float the logistic forms (sigmoid, silu, and gelu_tanh as z * sigmoid(2u), the same function:
// (1 + tanh u) / 2 = sigmoid(2u)) use one ex2.approx after one multiply (as __expf: at most
// 2 + |1.173 x| ulp of fp32, CUDA C Programming Guide, "Intrinsic Functions") and one rcp.approx
// (1 ulp; warploom/arch/fast_math.hpp says why not __fdividef): a few fp32 operations and two MUFU
// per value, no branch. The IEEE
// quotient z / (1 + expf(-z)) they replace is a Newton iteration with a slow-path call around
// every element, which broke the epilogue pass into one dependent chain per value: the fused
// bias + silu GEMM ran at 0.57x the plain one (H200, 8192x8192x1024, 2026-12-01). Their error,
// a few 1e-7 relative, is far below D's rounding even for fp16 (a half-ulp is 2.4e-4), and needs no
// care near 0 (the logistic is near 1/2 there). gelu takes a rational-exponential erfc (below),
// tanh keeps tanhf (a logistic form, 2 sigmoid(2z) - 1, would cancel near 0): not tanh.approx.f32,
// whose 2^-11 relative error is one fp16 half-ulp. double keeps the accurate functions.
#pragma once

#include <type_traits>

#include "warploom/arch/fast_math.hpp"
#include "warploom/config.hpp"
#include "warploom/gemm.hpp"

namespace warploom::gemm {

#if defined(__CUDACC__)

namespace detail {
// gelu(z) = z Phi(z) in float, Phi(z) = erfc(-z / sqrt 2) / 2, with Abramowitz and Stegun's
// 7.1.26 (Handbook of Mathematical Functions, 1964): for y >= 0, erfc(y) = (a1 t + a2 t^2 + a3 t^3
// + a4 t^4 + a5 t^5) e^(-y^2), t = 1 / (1 + p y), within 1.5e-7. One reciprocal, one exponential
// and a degree-5 polynomial, no branch: about 15 instructions where erff took 25 (CUDA's erff
// selects between two polynomials coefficient by coefficient), in the epilogue pass that limits the
// fused GEMM at short K (ncu, 8192x8192x1024: 244 instructions per 8 values, 30 of them per gelu).
// erfc of |z|, not 1 + erf(z): no cancellation for z < 0, where Phi is small. Error: 1.5e-7
// absolute in Phi plus a few fp32 roundings, times |z| (the GPU test bounds it by 1e-6 relative).
WL_DEVICE float gelu_erf_float(float z) {
  constexpr float kSqrtHalf = 0.70710678118654752440f;
  constexpr float kP = 0.3275911f * kSqrtHalf;            // t from |z|: y = |z| / sqrt 2
  constexpr float kHalfLog2e = -0.72134752044448170368f;  // e^(-z^2 / 2) = 2^(z^2 * this)
  // The coefficients halved: the polynomial times e^(-y^2) is erfc(y) / 2.
  constexpr float kA1 = 0.5f * 0.254829592f, kA2 = 0.5f * -0.284496736f, kA3 = 0.5f * 1.421413741f,
                  kA4 = 0.5f * -1.453152027f, kA5 = 0.5f * 1.061405429f;
  float const t = rcp_approx(fmaf(kP, fabsf(z), 1.0f));  // the divisor is >= 1
  float const poly = t * fmaf(fmaf(fmaf(fmaf(kA5, t, kA4), t, kA3), t, kA2), t, kA1);
  float const tail = poly * exp2_approx(z * kHalfLog2e * z);  // Phi(-|z|)
  // A NaN z fails z < 0 and stays NaN through 1 - tail.
  return z * (z < 0.0f ? tail : 1.0f - tail);
}
template <class T>
WL_DEVICE T tanh_of(T x) {
  if constexpr (std::is_same_v<T, float>) {
    return tanhf(x);
  } else {
    return tanh(x);
  }
}
// 1 / (1 + e^-x) times `scale`: for float with the MUFU instructions (see above). For x < -87 the
// exponential is inf or above 2^126, whose reciprocal flushes to 0: the right limit (-0 times the
// sign of scale).
template <class T>
WL_DEVICE T logistic_times(T x, T scale) {
  if constexpr (std::is_same_v<T, float>) {
    constexpr float kMinusLog2e = -1.44269504088896340736f;  // e^-x = 2^(x * this)
    return scale * rcp_approx(1.0f + exp2_approx(x * kMinusLog2e));
  } else {
    return scale / (1.0 + exp(-x));
  }
}
}  // namespace detail

// activation(z); `slope` is LeakyReLU's below 0 (the others ignore it). NaN stays NaN (no fmax,
// which would turn it into 0 for ReLU).
template <Activation kA, class T>
WL_DEVICE T activate(T z, T slope) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  constexpr T kZero = 0, kOne = 1, kHalf = T(0.5);
  if constexpr (kA == Activation::Identity) {
    return z;
  } else if constexpr (kA == Activation::ReLU) {
    return z < kZero ? kZero : z;
  } else if constexpr (kA == Activation::LeakyReLU) {
    return z < kZero ? slope * z : z;
  } else if constexpr (kA == Activation::GELU) {
    // z * Phi(z), Phi(z) = (1 + erf(z / sqrt 2)) / 2.
    if constexpr (std::is_same_v<T, float>) {
      return detail::gelu_erf_float(z);
    } else {
      return kHalf * z * (kOne + erf(z * T(0.70710678118654752440)));
    }
  } else if constexpr (kA == Activation::GELUTanh) {
    // PyTorch's approximate="tanh": 0.5 z (1 + tanh(sqrt(2 / pi) (z + 0.044715 z^3))).
    // ... = z sigmoid(2 sqrt(2 / pi) (z + 0.044715 z^3)).
    T const inner = T(0.79788456080286535588) * (z + T(0.044715) * z * z * z);
    return detail::logistic_times(T(2) * inner, z);
  } else if constexpr (kA == Activation::HardSwish) {
    T const gate = z + T(3) < kZero ? kZero : (z + T(3) > T(6) ? T(6) : z + T(3));
    // Times a sixth in float (one more rounding, 2^-24 relative): an IEEE division is a slow-path
    // call per value, which the fused epilogue's unrolled loop would copy for every value.
    if constexpr (std::is_same_v<T, float>) {
      return z * gate * (1.0f / 6.0f);
    } else {
      return z * gate / T(6);
    }
  } else if constexpr (kA == Activation::Sigmoid) {
    return detail::logistic_times(z, kOne);
  } else if constexpr (kA == Activation::SiLU) {
    return detail::logistic_times(z, z);
  } else if constexpr (kA == Activation::Tanh) {
    return detail::tanh_of(z);
  } else {
    static_assert(kA == Activation::Identity, "activate: an Activation without a device form");
    return z;
  }
}

// The same with the activation chosen at run time (a uniform branch): for kernels whose epilogue
// is not compiled per activation (the SIMT GEMM's).
template <class T>
WL_DEVICE T activate(Activation a, T z, T slope) {
  switch (a) {
    case Activation::Identity:
      return z;
    case Activation::ReLU:
      return activate<Activation::ReLU>(z, slope);
    case Activation::LeakyReLU:
      return activate<Activation::LeakyReLU>(z, slope);
    case Activation::GELU:
      return activate<Activation::GELU>(z, slope);
    case Activation::GELUTanh:
      return activate<Activation::GELUTanh>(z, slope);
    case Activation::HardSwish:
      return activate<Activation::HardSwish>(z, slope);
    case Activation::Sigmoid:
      return activate<Activation::Sigmoid>(z, slope);
    case Activation::SiLU:
      return activate<Activation::SiLU>(z, slope);
    case Activation::Tanh:
      return activate<Activation::Tanh>(z, slope);
  }
  return z;
}

#endif  // __CUDACC__

}  // namespace warploom::gemm
