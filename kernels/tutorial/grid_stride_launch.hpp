// kernels/tutorial/grid_stride_launch.hpp
//
// What the grid-stride copies' launchers share (tutorials 01 and 04): a grid that fills the GPU,
// and the check that 32-bit grid-stride indices cannot overflow.
#pragma once

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <cuda_runtime_api.h>

#include "warploom/cuda_check.hpp"

namespace warploom::tutorial {

// As many CTAs of `threads` threads running `kernel` as the GPU holds at once.
template <class Kernel>
int blocks_filling_the_gpu(Kernel kernel, int threads) {
  int device = 0, sms = 0, per_sm = 0;
  WL_CUDA_CHECK(cudaGetDevice(&device));
  WL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  WL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  return sms * per_sm;
}

// Throws std::invalid_argument unless `n` elements in items of `elems` fit int indices (as in the
// seed) on `blocks` CTAs of `threads` threads: the last stride must not overflow.
inline void check_grid_stride_extent(std::string_view who, std::int64_t n, int elems, int blocks,
                                     int threads) {
  std::int64_t const items = (n + elems - 1) / elems;
  std::int64_t const stride = static_cast<std::int64_t>(blocks) * threads;
  if (n > INT_MAX || items > INT_MAX - stride)
    throw std::invalid_argument(std::string(who) + ": `n` = " + std::to_string(n) +
                                " is too large for 32-bit grid-stride indexing with " +
                                std::to_string(blocks) + " blocks");
}

}  // namespace warploom::tutorial
