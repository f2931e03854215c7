// kernels/tutorial/grid_stride_copy.hpp
//
// Host API of tutorial 01 (01_grid_stride_copy.cu): a 1-D int16 tensor copied GMEM -> registers ->
// GMEM by one task on all warps of each CTA, in a grid-stride loop. No shared memory, no pipeline:
// the smallest kernel that uses every TS declaration. Two item widths:
//
//   GridStrideVariant::Scalar  the seed's kernel: one int16 per loop iteration.
//   GridStrideVariant::Vector  one 16-byte vector (8 int16) per iteration, the tail element-wise;
//                              `src` and `dst` must be 16-byte aligned.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "tutorial/tma_copy.hpp"  // Implementation
#include "warploom/ts/model.hpp"

namespace warploom::tutorial {

enum class GridStrideVariant { Scalar, Vector };

inline constexpr int kGridStrideWarps = 8;  // warps per CTA (the seed's num_warps)

std::string_view to_string(GridStrideVariant v);

// dst[i] = src[i] for i < n, on `blocks` CTAs (0: as many as fit on the GPU at once).
// Throws std::invalid_argument for n < 0, null or (Vector) misaligned pointers, or n too large for
// 32-bit indexing.
void grid_stride_copy(GridStrideVariant variant, Implementation impl, std::int16_t const* src,
                      std::int16_t* dst, std::int64_t n, int blocks = 0,
                      cudaStream_t stream = nullptr);

ts::ManagerModel grid_stride_copy_model(GridStrideVariant variant);

// The vector variant's tuning space (items in flight per thread) and a launcher for one of its
// points (TS kernel, blocks filling the GPU; pointers 16-byte aligned).
std::vector<std::string> grid_stride_copy_tunings();
void grid_stride_copy_tuned(int tuning, std::int16_t const* src, std::int16_t* dst, std::int64_t n,
                            cudaStream_t stream = nullptr);

}  // namespace warploom::tutorial
