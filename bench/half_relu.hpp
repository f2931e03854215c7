// bench/half_relu.hpp
//
// The second kernel of the unfused pair tutorial 07's fork relu is measured against: r = max(x, 0)
// over n fp16 values, as a framework runs it after a copy (PyTorch: `d.copy_(x); r = x.relu()`),
// reading x a second time. The fused kernel reads it once.
#pragma once

#include <cstdint>

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace warploom::bench {

// r = max(x, +0) (__hmax2), n a multiple of 8, x and r 16-byte aligned.
void half_relu(__half const* x, __half* r, std::int64_t n, cudaStream_t stream);

}  // namespace warploom::bench
