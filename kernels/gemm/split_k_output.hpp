// kernels/gemm/split_k_output.hpp
//
// What split-K writes once its slices' fp32 partial sums are added (src/gemm/split_k.cpp): D =
// alpha * sum + beta * C, for the slices' M x N problem — D's own, or D^T's, whose element (i, j)
// is D's (j, i) (small M: split_k.hpp). Both places that add the slices write through here: the
// reduction kernel after the slices (split_k_reduce.cu) and the slice that finishes a tile last,
// inside the GEMM (sm90/split_k_fold.cuh). Host and device alike: a launcher that the host
// compiler alone compiles (JIT) copies it into the kernel's parameters.
#pragma once

#include <cstdint>

#include "warploom/config.hpp"

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#include <cutlass/numeric_types.h>
#endif

namespace warploom::gemm {

// D's element type (warploom/gemm.hpp's ScalarType is a host header's).
enum class SplitKOutputType : int { F32, F16, BF16 };

struct SplitKOutput {
  int m = 0, n = 0;  // the slices' problem (D^T's where transposed: D is n x m)
  float alpha = 1.0f, beta = 0.0f;
  bool transposed = false;
  void const* c = nullptr;  // D's type, row-major, ld ldc; read only when beta != 0
  std::int64_t ldc = 0;
  void* d = nullptr;
  SplitKOutputType d_type = SplitKOutputType::BF16;
  std::int64_t ldd = 0;
};

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
// D's element (row, col), in D's terms, = alpha * sum + beta * C's. T: float or CUTLASS's half_t /
// bfloat16_t, whose conversions from float round to nearest (as the GEMM's epilogue stores D).
template <class T>
WL_DEVICE void write_d(SplitKOutput const& o, std::int64_t row, std::int64_t col, float sum) {
  float z = o.alpha * sum;
  if (o.beta != 0.0f)
    z += o.beta * static_cast<float>(static_cast<T const*>(o.c)[row * o.ldc + col]);
  static_cast<T*>(o.d)[row * o.ldd + col] = static_cast<T>(z);
}

// The sum of the slices' element (i, j): D's (i, j), or its (j, i) where transposed; nothing
// outside the slices' M x N.
WL_DEVICE void write_sum(SplitKOutput const& o, std::int64_t i, std::int64_t j, float sum) {
  if (i >= o.m || j >= o.n) return;
  std::int64_t const row = o.transposed ? j : i, col = o.transposed ? i : j;
  switch (o.d_type) {
    case SplitKOutputType::F32:
      return write_d<float>(o, row, col, sum);
    case SplitKOutputType::F16:
      return write_d<cutlass::half_t>(o, row, col, sum);
    case SplitKOutputType::BF16:
      return write_d<cutlass::bfloat16_t>(o, row, col, sum);
  }
}
#endif

}  // namespace warploom::gemm
