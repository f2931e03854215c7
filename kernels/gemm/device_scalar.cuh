// kernels/gemm/device_scalar.cuh
//
// The value of one of the GEMM's scalars that the caller may keep in device memory (alpha_ptr,
// beta_ptr, the fp8 per-tensor scales: warploom/gemm.hpp), as both GEMM kernels read it once per
// output tile.
#pragma once

#include "warploom/config.hpp"

namespace warploom::gemm {

// *p when the caller set the pointer, else `otherwise` (the host value, or 1 for an absent scale):
// a warp-uniform test of a kernel parameter, so a null pointer costs a predicated load and nothing
// else (the plain path's SASS, docs/kernels/sm90_ts_gemm.md). The value is a float in memory and
// T the kernel's compute type (double for fp64).
template <class T>
WL_DEVICE T device_scalar(float const* p, T otherwise) {
  return p != nullptr ? static_cast<T>(*p) : otherwise;
}

// What the tensor-core GEMM's epilogue multiplies its accumulator by: alpha (or *alpha_ptr) times
// the fp8 inputs' per-tensor scales (1 where unset). `params`: an sm90 instance's kernel
// parameters (sm90/config.cuh).
template <class Params>
WL_DEVICE float accumulator_scale(Params const& params) {
  return device_scalar(params.alpha_ptr, params.alpha) * device_scalar(params.scale_a, 1.0f) *
         device_scalar(params.scale_b, 1.0f);
}

}  // namespace warploom::gemm
