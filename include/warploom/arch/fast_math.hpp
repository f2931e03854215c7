// warploom/arch/fast_math.hpp
//
// The approximate transcendentals the kernels' inner loops use, one hardware instruction each
// (the MUFU unit), where the IEEE functions would wrap the same instruction in range handling.
#pragma once

#include "warploom/config.hpp"

namespace warploom {

#if defined(__CUDACC__)

// 2^x for float as one MUFU.EX2: ex2.approx.ftz.f32, 2^-22 relative (PTX ISA); a result below
// 2^-126 is flushed to 0. CUDA's exp2f (without -use_fast_math) issues the same instruction inside
// a range test and two predicated multiplies that keep denormal results: four instructions where
// one does, and in the attention softmax, one exp2 per score, a quarter of its instructions (ncu,
// docs/kernels/sm90_attention.md). Probabilities and activations below 2^-126 are 0 to every
// 16-bit output anyway. e^x is exp2_approx(x * log2(e)), with log2(e) folded into a caller's own
// factor where it has one.
WL_DEVICE float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// 1 / x for float as one MUFU.RCP: rcp.approx.ftz.f32, at most 1 ulp (PTX ISA); a denormal x or
// result is flushed (x = +-0 gives +-inf, +-inf gives +-0). __fdividef(1, x) without -ftz=true
// wraps the same instruction in a test for a denormal x, a select and two multiplies: five
// instructions a value in the fused epilogue's activations, whose divisors are >= 1 (SASS of the
// ping-pong bias + GELU GEMM, 2026-12-06).
WL_DEVICE float rcp_approx(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

#endif

}  // namespace warploom
