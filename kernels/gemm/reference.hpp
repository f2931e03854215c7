// kernels/gemm/reference.hpp
//
// The float64 reference GEMM that every GEMM is checked against: one thread per element of D,
// inputs (fp8 too) widened to double, products and sums in double. Slow and exact enough to judge
// fp32 accumulation; for fp64 inputs it is the same precision as the kernel, so it judges fp64
// accumulation only to its rounding (about 1e-16 x sqrt(K) relative). It honours every type,
// layout, leading dimension, batch stride (0: one matrix broadcast to every batch) and scale of
// GemmArguments, and the fused epilogue (GemmEpilogue), computed in double from its definition in
// warploom/gemm.hpp: its own activation formulas (erf, tanh, exp in double), no code shared with
// the kernels.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>

#include "warploom/config.hpp"
#include "warploom/gemm.hpp"

namespace warploom::gemm {

// The activations of warploom/gemm.hpp in double, as the reference defines them (host and device:
// the activation unit test compares the kernels' fp32 forms with these).
WL_HOST_DEVICE double reference_activation(Activation a, double z, double slope) {
  constexpr double kPi = 3.14159265358979323846;
  switch (a) {
    case Activation::Identity:
      return z;
    case Activation::ReLU:
      return z > 0.0 ? z : 0.0;
    case Activation::LeakyReLU:
      return z > 0.0 ? z : slope * z;
    case Activation::GELU:
      return 0.5 * z * (1.0 + erf(z / sqrt(2.0)));
    case Activation::GELUTanh:
      return 0.5 * z * (1.0 + tanh(sqrt(2.0 / kPi) * (z + 0.044715 * z * z * z)));
    case Activation::HardSwish:
      return z * fmin(fmax(z + 3.0, 0.0), 6.0) / 6.0;
    case Activation::Sigmoid:
      return 1.0 / (1.0 + exp(-z));
    case Activation::SiLU:
      return z / (1.0 + exp(-z));
    case Activation::Tanh:
      return tanh(z);
  }
  return z;
}

// With z(l, i, j) = alpha * scale_a * scale_b * row_scale[i] * col_scale[j] * sum_k A(i, k) B(k, j)
// + beta * C(i, j) + bias (the scales read on the device, 1 when null; alpha and beta through
// alpha_ptr and beta_ptr when set, as the GEMM reads them; no bias: 0),
// out[(l * m + i) * n + j] = activation(z) + residual(i, j), and, when `pre_activation` is not
// null, pre_activation[(l * m + i) * n + j] = z. Both hold batch * m * n doubles (row-major,
// packed). `args.d` and `args.epilogue.pre_activation` are ignored. Checks `args` first.
void reference_gemm(GemmArguments const& args, double* out, cudaStream_t stream = nullptr,
                    double* pre_activation = nullptr);

}  // namespace warploom::gemm
