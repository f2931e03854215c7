// kernels/gemm/copy_matrix.cu — launch_matrix_copy (copy_matrix.hpp).
//
// A block copies one row (of `contiguous` elements) of one batch at a time, its threads on
// consecutive elements (coalesced on both sides), rows in a grid-stride loop: the copies feed a
// GEMM of far more work, so a plain element-wise loop is enough. A transposing copy goes through
// 32 x 32 tiles in shared memory so that both its reads and its writes stay coalesced.
#include "gemm/copy_matrix.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "warploom/cuda_check.hpp"

namespace warploom::gemm {
namespace {

template <class T>
__global__ void copy_matrix_kernel(MatrixCopy c) {
  auto const* src = static_cast<T const*>(c.src);
  auto* dst = static_cast<T*>(c.dst);
  std::int64_t const rows = c.strided * c.batches;
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    std::int64_t const b = row / c.strided, i = row % c.strided;
    T const* from = src + b * c.src_batch_stride + i * c.src_ld;
    T* to = dst + b * c.dst_batch_stride + i * c.dst_ld;
    for (std::int64_t j = threadIdx.x; j < c.contiguous; j += blockDim.x) to[j] = from[j];
  }
}

constexpr int kTile = 32;
constexpr int kTileRows = 8;  // threads per tile column: each thread moves kTile / kTileRows

template <class T>
__global__ void transpose_matrix_kernel(MatrixCopy c) {
  __shared__ T tile[kTile][kTile + 1];  // + 1: a column read hits 32 banks
  auto const* src = static_cast<T const*>(c.src);
  auto* dst = static_cast<T*>(c.dst);
  std::int64_t const tiles_s = (c.strided + kTile - 1) / kTile;
  std::int64_t const tiles_c = (c.contiguous + kTile - 1) / kTile;
  std::int64_t const tiles = tiles_s * tiles_c * c.batches;
  for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    std::int64_t const b = t / (tiles_s * tiles_c), in_batch = t % (tiles_s * tiles_c);
    std::int64_t const s0 = in_batch / tiles_c * kTile, c0 = in_batch % tiles_c * kTile;
    T const* from = src + b * c.src_batch_stride;
    T* to = dst + b * c.dst_batch_stride;
    for (int y = threadIdx.y; y < kTile; y += kTileRows) {
      std::int64_t const i = s0 + y, j = c0 + threadIdx.x;
      if (i < c.strided && j < c.contiguous) tile[y][threadIdx.x] = from[i * c.src_ld + j];
    }
    __syncthreads();
    for (int y = threadIdx.y; y < kTile; y += kTileRows) {
      std::int64_t const j = c0 + y, i = s0 + threadIdx.x;
      if (i < c.strided && j < c.contiguous) to[j * c.dst_ld + i] = tile[threadIdx.x][y];
    }
    __syncthreads();  // the tile is refilled next
  }
}

template <class T>
void launch(MatrixCopy const& c, cudaStream_t stream) {
  if (c.transpose) {
    std::int64_t const tiles =
        (c.strided + kTile - 1) / kTile * ((c.contiguous + kTile - 1) / kTile) * c.batches;
    auto const blocks = static_cast<unsigned>(std::min<std::int64_t>(tiles, 65535));
    transpose_matrix_kernel<T><<<blocks, dim3(kTile, kTileRows), 0, stream>>>(c);
    WL_CUDA_CHECK(cudaGetLastError());
    return;
  }
  constexpr int kThreads = 256;
  std::int64_t const rows = c.strided * c.batches;
  // Enough blocks to fill every SM many times over; the grid-stride loop takes the rest.
  auto const blocks = static_cast<unsigned>(std::min<std::int64_t>(rows, 65535));
  copy_matrix_kernel<T><<<blocks, kThreads, 0, stream>>>(c);
  WL_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void launch_matrix_copy(MatrixCopy const& c, cudaStream_t stream) {
  if (c.strided * c.contiguous * c.batches == 0) return;
  switch (c.element_bytes) {
    case 1:
      return launch<std::uint8_t>(c, stream);
    case 2:
      return launch<std::uint16_t>(c, stream);
    case 4:
      return launch<std::uint32_t>(c, stream);
    default:
      throw std::logic_error("gemm: internal error: matrix copies move 1-, 2- or 4-byte elements");
  }
}

}  // namespace warploom::gemm
