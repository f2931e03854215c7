// bench/half_relu.hpp
//
// The second kernel of the unfused pairs tutorial 07's forks are measured against: r = max(x, 0)
// over n 16-bit floats, as a framework runs it after a copy or a GEMM that read x (PyTorch:
// `d.copy_(x); r = x.relu()`), reading x a second time. The fused kernels read it once.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace warploom::bench {

// r = max(x, +0) (__hmax2), n a multiple of 8, x and r 16-byte aligned.
void half_relu(__half const* x, __half* r, std::int64_t n, cudaStream_t stream);
void half_relu(__nv_bfloat16 const* x, __nv_bfloat16* r, std::int64_t n, cudaStream_t stream);

}  // namespace warploom::bench
