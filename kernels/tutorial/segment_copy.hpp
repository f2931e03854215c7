// kernels/tutorial/segment_copy.hpp
//
// Host API of tutorial 03's second part (03_segment_copy.cu, segment_copy_schedule.cuh): a dynamic
// domain. Variable-length int16 segments stored back to back (packed) are copied into the rows of
// a padded matrix, one segment per row; each row's loop runs as many times as its segment is long,
// a bound read from the data, and where a segment starts in the packed input (the cumulative sum
// of the lengths before it) is computed on the device.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace warploom::tutorial {

// Throws std::invalid_argument unless the arguments describe a copy segment_copy can run; the
// message names the argument.
void check_segment_copy_args(std::int16_t const* packed, int const* lengths, int num_segments,
                             int row_elems, std::int16_t* padded, int* offsets);

// For every segment s < num_segments of lengths[s] elements (packed one after another in
// `packed`): padded[s * row_elems + i] = packed[offsets[s] + i] for i < min(lengths[s],
// row_elems); the rest of each row is not written. `offsets` (num_segments ints of device memory)
// receives the exclusive prefix sum of `lengths`, computed by a first kernel on `stream`; `blocks`
// persistent CTAs (0: as many as fit at once) then copy the segments, one per tile of a static
// work queue. Lengths must be >= 0 and sum to less than 2^31.
void segment_copy(std::int16_t const* packed, int const* lengths, int num_segments, int row_elems,
                  std::int16_t* padded, int* offsets, int blocks = 0,
                  cudaStream_t stream = nullptr);

}  // namespace warploom::tutorial
