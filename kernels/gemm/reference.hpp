// kernels/gemm/reference.hpp
//
// The float64 reference GEMM that every GEMM is checked against: one thread per element of D,
// inputs (fp8 too) widened to double, products and sums in double. Slow and exact enough to judge
// fp32 accumulation; for fp64 inputs it is the same precision as the kernel, so it judges fp64
// accumulation only to its rounding (about 1e-16 x sqrt(K) relative). It honours every type,
// layout, leading dimension, batch stride (0: one matrix broadcast to every batch) and scale of
// GemmArguments.
#pragma once

#include <cuda_runtime_api.h>

#include "warploom/gemm.hpp"

namespace warploom::gemm {

// out[(l * m + i) * n + j] = alpha * scale_a * scale_b * sum_k A(i, k) B(k, j) + beta * C(i, j),
// for batch l (the scales read on the device, 1 when null); `out` holds batch * m * n doubles
// (row-major, packed). `args.d` is ignored. Checks `args` first.
void reference_gemm(GemmArguments const& args, double* out, cudaStream_t stream = nullptr);

}  // namespace warploom::gemm
