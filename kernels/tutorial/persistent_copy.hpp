// kernels/tutorial/persistent_copy.hpp
//
// Host API of tutorial 03's first part (03_persistent_copy.cu, persistent_copy_schedule.cuh): a
// 1-D int16 tensor copied tile by tile by persistent CTAs that take their tiles from a work queue,
// leaving the tiles a mask marks skipped untouched. Two queues, one schedule:
//
//   TileQueueKind::Static   CTA b copies tiles b, b + grid, b + 2·grid, ... (no shared memory)
//   TileQueueKind::Dynamic  a scheduler warp per CTA takes the next tile from a global counter and
//                           hands it to the copy warps through a shared-memory ring: CTAs that
//                           finish early take more tiles
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace warploom::tutorial {

enum class TileQueueKind { Static, Dynamic };

inline constexpr int kPersistentTileElems = 4096;  // int16 elements per tile (8 KiB)
inline constexpr int kPersistentItemElems = 8;     // elements per 16-byte item

// Throws std::invalid_argument unless the arguments describe a copy persistent_copy can run;
// the message names the argument. (The checks persistent_copy makes before any CUDA call.)
void check_persistent_copy_args(std::int16_t const* src, std::int16_t* dst, std::int64_t n,
                                std::uint8_t const* skip, TileQueueKind queue, int blocks,
                                int* counter);

// dst[i] = src[i] for every i < n whose tile t = i / kPersistentTileElems is not skipped
// (skip == nullptr or skip[t] == 0); a skipped tile's elements of dst are not written. `blocks`
// CTAs (0: as many as fit on the GPU at once; more than there are tiles is fine). The dynamic
// queue takes tiles from `counter` (4 bytes of device memory), which the call zeroes on `stream`
// before the launch (a node of its own in a captured graph). n must be a multiple of 8 (16-byte
// items) and src, dst 16-byte aligned.
void persistent_copy(std::int16_t const* src, std::int16_t* dst, std::int64_t n,
                     std::uint8_t const* skip, TileQueueKind queue, int blocks = 0,
                     int* counter = nullptr, cudaStream_t stream = nullptr);

}  // namespace warploom::tutorial
