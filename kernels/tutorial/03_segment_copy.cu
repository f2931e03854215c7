// kernels/tutorial/03_segment_copy.cu
//
// Tutorial 03, second part: variable-length segments into padded rows. The schedule and the copy
// kernel are in segment_copy_schedule.cuh (read it first); this file holds the kernel that computes
// the segments' start offsets on the device and the host launcher.
#include "segment_copy.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include <cub/block/block_scan.cuh>

#include "grid_stride_launch.hpp"  // blocks_filling_the_gpu
#include "segment_copy_schedule.cuh"
#include "warploom/cuda_check.hpp"
#include "warploom/ts/launch.hpp"

namespace warploom::tutorial {
namespace {

constexpr int kScanThreads = 1024;

// offsets[s] = the sum of lengths[0..s) (negative lengths count as 0), by one CTA walking the
// lengths in chunks of kScanThreads with a running carry: a handful of microseconds for the
// thousands of segments a launch copies, and no scratch memory to allocate.
__global__ void __launch_bounds__(kScanThreads)
    segment_offsets_kernel(int const* lengths, int num_segments, int* offsets) {
  using BlockScan = cub::BlockScan<int, kScanThreads>;
  __shared__ typename BlockScan::TempStorage scan;
  int carry = 0;
  for (int base = 0; base < num_segments; base += kScanThreads) {
    int const s = base + static_cast<int>(threadIdx.x);
    int const length = s < num_segments ? max(lengths[s], 0) : 0;
    int before = 0, chunk = 0;
    BlockScan(scan).ExclusiveSum(length, before, chunk);
    if (s < num_segments) offsets[s] = carry + before;
    carry += chunk;
    __syncthreads();  // the next chunk reuses `scan`
  }
}

}  // namespace

void check_segment_copy_args(std::int16_t const* packed, int const* lengths, int num_segments,
                             int row_elems, std::int16_t* padded, int* offsets) {
  auto const fail = [](std::string const& what) {
    throw std::invalid_argument("segment_copy: " + what);
  };
  if (num_segments < 0) fail("`num_segments` = " + std::to_string(num_segments) + " must be >= 0");
  if (row_elems < 0) fail("`row_elems` = " + std::to_string(row_elems) + " must be >= 0");
  if (num_segments == 0 || row_elems == 0) return;
  if (packed == nullptr) fail("`packed` must not be null");
  if (lengths == nullptr) fail("`lengths` must not be null");
  if (padded == nullptr) fail("`padded` must not be null");
  if (offsets == nullptr)
    fail("`offsets` must not be null (num_segments ints of device memory for the start offsets)");
}

void segment_copy(std::int16_t const* packed, int const* lengths, int num_segments, int row_elems,
                  std::int16_t* padded, int* offsets, int blocks, cudaStream_t stream) {
  check_segment_copy_args(packed, lengths, num_segments, row_elems, padded, offsets);
  if (blocks < 0) throw std::invalid_argument("segment_copy: `blocks` must be >= 0");
  if (num_segments == 0 || row_elems == 0) return;
  using Cfg = SegmentCopy;
  segment_offsets_kernel<<<1, kScanThreads, 0, stream>>>(lengths, num_segments, offsets);
  WL_CUDA_CHECK(cudaGetLastError());
  if (blocks == 0)
    blocks = blocks_filling_the_gpu(segment_copy_kernel<Cfg>, Cfg::Manager::num_threads);
  ts::launch<Cfg::Manager>(ts::verified<Cfg>(), ts::StreamOrder::Serial, segment_copy_kernel<Cfg>,
                           dim3(blocks), stream, packed, lengths, static_cast<int const*>(offsets),
                           num_segments, row_elems, padded);
}

}  // namespace warploom::tutorial
