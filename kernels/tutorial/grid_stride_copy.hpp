// kernels/tutorial/grid_stride_copy.hpp
//
// Host API of tutorial 01 (01_grid_stride_copy.cu): a 1-D int16 tensor copied GMEM -> registers ->
// GMEM by one task on all warps of each CTA, in a grid-stride loop. No shared memory, no pipeline:
// the smallest kernel that uses every TS declaration.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "tma_copy.hpp"  // Implementation
#include "warploom/ts/model.hpp"

namespace warploom::tutorial {

inline constexpr int kGridStrideWarps = 8;   // warps per CTA (the seed's num_warps)
inline constexpr int kGridStrideUnroll = 8;  // domain_loop unroll: 8 loads in flight per thread

// dst[i] = src[i] for i < n, on `blocks` CTAs (0: enough to fill the GPU once).
// Throws std::invalid_argument for n < 0, null pointers, or n too large for int indexing.
void grid_stride_copy(Implementation impl, std::int16_t const* src, std::int16_t* dst, std::int64_t n,
                      int blocks = 0, cudaStream_t stream = nullptr);

ts::ManagerModel grid_stride_copy_model();

}  // namespace warploom::tutorial
