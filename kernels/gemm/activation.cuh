// kernels/gemm/activation.cuh
//
// The fused epilogue's activations (warploom/gemm.hpp, Activation) on the device, in the compute
// type T of the epilogue: float for every GEMM but fp64's (double). CUDA's accurate math
// functions (erff, tanhf, expf: at most 2 ulp of fp32, CUDA C Programming Guide, "Mathematical
// Functions"), not the .approx instructions: tanh.approx.f32 is off by up to 2^-11 relative,
// about one fp16 half-ulp, which the fp16 tests' tolerance could not absorb on top of the output
// rounding. The activation runs once per output element, in a rolled pass over the staged
// subtile (sm90) or over the thread's outputs (SIMT), so its cost is not in the accumulator loop.
#pragma once

#include <type_traits>

#include "warploom/config.hpp"
#include "warploom/gemm.hpp"

namespace warploom::gemm {

#if defined(__CUDACC__)

namespace detail {
template <class T>
WL_DEVICE T erf_of(T x) {
  if constexpr (std::is_same_v<T, float>) {
    return erff(x);
  } else {
    return erf(x);
  }
}
template <class T>
WL_DEVICE T tanh_of(T x) {
  if constexpr (std::is_same_v<T, float>) {
    return tanhf(x);
  } else {
    return tanh(x);
  }
}
template <class T>
WL_DEVICE T exp_of(T x) {
  if constexpr (std::is_same_v<T, float>) {
    return expf(x);
  } else {
    return exp(x);
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
    return kHalf * z * (kOne + detail::erf_of(z * T(0.70710678118654752440)));
  } else if constexpr (kA == Activation::GELUTanh) {
    // PyTorch's approximate="tanh": 0.5 z (1 + tanh(sqrt(2 / pi) (z + 0.044715 z^3))).
    T const inner = T(0.79788456080286535588) * (z + T(0.044715) * z * z * z);
    return kHalf * z * (kOne + detail::tanh_of(inner));
  } else if constexpr (kA == Activation::HardSwish) {
    T const gate = z + T(3) < kZero ? kZero : (z + T(3) > T(6) ? T(6) : z + T(3));
    return z * gate / T(6);
  } else if constexpr (kA == Activation::Sigmoid) {
    // e^-z overflows to inf for z < -88 (fp32): 1 / inf = 0, the right limit.
    return kOne / (kOne + detail::exp_of(-z));
  } else if constexpr (kA == Activation::SiLU) {
    return z / (kOne + detail::exp_of(-z));
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
