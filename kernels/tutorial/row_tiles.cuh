// kernels/tutorial/row_tiles.cuh
//
// What tutorial 07's kernels share: a row-major fp16 matrix cut into tiles of kTileRows x 128, each
// CTA a band of rows of one 128-wide column, each tile moved as 16-byte vectors of 8 halves that
// `kThreads` threads of a task take in turn (thread t: vectors t, t + kThreads, ...). The tiles in
// shared memory are dense, vector v of a tile at v (row v / 16, vector v % 16 of the row).
#pragma once

#include <cstdint>

#include <cuda_fp16.h>

#include "warploom/ts/resource.hpp"
#include "warploom/ts/stage_info.hpp"

namespace warploom::tutorial::rows {

inline constexpr int kTileCols = 128;
inline constexpr int kVec = 8;  // halves per vector
inline constexpr int kVecsPerRow = kTileCols / kVec;
using Vec = uint4;

// The CTA's band of rows: the blockIdx.y-th slice of rows_per_cta rows.
struct Band {
  int begin, end;
};
__device__ inline Band band_of(int rows, int rows_per_cta) {
  int const begin = static_cast<int>(blockIdx.y) * rows_per_cta;
  return {begin, min(rows, begin + rows_per_cta)};
}

// The loads' coordinate-only source (a TS resource without a pipeline): the CTA's band, and the
// first row of the tile the loop is at.
struct BandInput {
  static constexpr ts::ResourceSpec spec{.name = "input_gmem"};
  int row_begin = 0;
  int row_end = 0;
  __device__ int compute_coords(ts::Consume const& stage) const { return stage.loop_offset; }
};

template <int kTileRows, int kThreads>
struct Tiles {
  static constexpr int kVecsPerTile = kTileRows * kVecsPerRow;
  static constexpr int kVecsPerThread = kVecsPerTile / kThreads;
  static constexpr int kStageBytes = kTileRows * kTileCols * static_cast<int>(sizeof(__half));
  static_assert(kVecsPerTile % kThreads == 0, "a tile must split evenly over the threads");

  struct Fragment {
    Vec v[kVecsPerThread];  // (VECS_PER_THREAD)
  };

  // This thread's vectors of a tile in shared memory; `thread` counts from the task's first.
  static __device__ Fragment fragment_of(Vec const* tile, int thread) {
    Fragment f;
#pragma unroll
    for (int j = 0; j < kVecsPerThread; ++j) f.v[j] = tile[j * kThreads + thread];
    return f;
  }

  // Stores this thread's vectors of the tile at `row` (its first row) of column `col`, each as
  // `op(vector j)`, leaving out rows past `rows`.
  template <class Op>
  static __device__ void store(__half* dst, int rows, int cols, int col, int row, int thread,
                               Op&& op) {
#pragma unroll
    for (int j = 0; j < kVecsPerThread; ++j) {
      int const v = j * kThreads + thread;
      int const r = row + v / kVecsPerRow;
      if (r < rows)
        *reinterpret_cast<Vec*>(dst + static_cast<std::int64_t>(r) * cols + col +
                                (v % kVecsPerRow) * kVec) = op(j);
    }
  }
};

}  // namespace warploom::tutorial::rows
