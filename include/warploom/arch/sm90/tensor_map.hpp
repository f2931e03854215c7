// warploom/arch/sm90/tensor_map.hpp
//
// Host side of TMA: encodes the CUtensorMap descriptors of row-major 2-D and 3-D tensors. The
// driver entry point is reached through CUTLASS's cudaGetDriverEntryPointByVersion wrapper, so
// binaries need no libcuda at link time and start (and skip their GPU work) on machines without a
// driver.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda.h>
#include <cuda_fp16.h>
#include <cutlass/cuda_host_adapter.hpp>  // CUTLASS_CUDA_DRIVER_WRAPPER_CALL

#include "warploom/cuda_check.hpp"

namespace warploom::sm90 {

template <class T>
constexpr CUtensorMapDataType tensor_map_dtype() {
  if constexpr (std::is_same_v<T, __half>)
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  else if constexpr (sizeof(T) == 1)
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  else if constexpr (sizeof(T) == 2)
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  else if constexpr (sizeof(T) == 4)
    return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  else
    static_assert(sizeof(T) == 8, "tensor_map_dtype: unsupported element type");
  return CU_TENSOR_MAP_DATA_TYPE_UINT64;
}

// Descriptor of a rows x cols row-major tensor at `base` read in boxes of box_rows x box_cols.
// TMA requires a 16-byte aligned base, a row pitch that is a multiple of 16 bytes and a box row of
// at most 256 elements; violations are reported with the argument's name.
template <class T>
CUtensorMap make_tensor_map_2d(void const* base, std::int64_t rows, std::int64_t cols, int box_rows,
                               int box_cols) {
  auto fail = [](std::string const& what) {
    throw std::invalid_argument("make_tensor_map_2d: " + what);
  };
  if (base == nullptr) fail("`base` is null");
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0)
    fail("`base` must be 16-byte aligned (TMA)");
  if (rows <= 0 || cols <= 0) fail("`rows` and `cols` must be positive");
  if ((cols * static_cast<std::int64_t>(sizeof(T))) % 16 != 0)
    fail("a row of `cols` elements must be a multiple of 16 bytes (TMA row pitch)");
  if (box_cols <= 0 || box_cols > 256 || box_rows <= 0 || box_rows > 256)
    fail("box dimensions must be in [1, 256] (TMA box)");
  CUtensorMap map{};
  cuuint64_t const dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  cuuint64_t const strides[1] = {static_cast<cuuint64_t>(cols) * sizeof(T)};
  cuuint32_t const box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  cuuint32_t const element_strides[2] = {1, 1};
  WL_CU_CHECK(CUTLASS_CUDA_DRIVER_WRAPPER_CALL(cuTensorMapEncodeTiled)(
      &map, tensor_map_dtype<T>(), 2, const_cast<void*>(base), dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

// Descriptor of a 3-D tensor (x innermost, contiguous) at `base`: `dims` elements per dimension,
// `pitches` the bytes between consecutive y and z, boxes of box_x x box_y x 1 with `swizzle`
// (CU_TENSOR_MAP_SWIZZLE_128B needs box_x * sizeof(T) <= 128). TMA clips stores and zero-fills
// loads outside `dims`. Violations of TMA's rules are reported with the argument's name.
template <class T>
CUtensorMap make_tensor_map_3d(void const* base, std::int64_t const (&dims)[3],
                               std::int64_t const (&pitches)[2], int box_x, int box_y,
                               CUtensorMapSwizzle swizzle) {
  auto fail = [](std::string const& what) {
    throw std::invalid_argument("make_tensor_map_3d: " + what);
  };
  if (base == nullptr) fail("`base` is null");
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0)
    fail("`base` must be 16-byte aligned (TMA)");
  for (std::int64_t d : dims)
    if (d <= 0 || d > (std::int64_t{1} << 32)) fail("`dims` must be in [1, 2^32]");
  for (std::int64_t p : pitches)
    if (p <= 0 || p % 16 != 0 || p >= (std::int64_t{1} << 40))
      fail("`pitches` must be positive multiples of 16 bytes below 2^40 (TMA strides)");
  if (box_x <= 0 || box_x > 256 || box_y <= 0 || box_y > 256)
    fail("box dimensions must be in [1, 256] (TMA box)");
  if (swizzle == CU_TENSOR_MAP_SWIZZLE_128B && box_x * static_cast<int>(sizeof(T)) > 128)
    fail("a 128B-swizzled box row must be at most 128 bytes");
  CUtensorMap map{};
  cuuint64_t const global_dims[3] = {static_cast<cuuint64_t>(dims[0]),
                                     static_cast<cuuint64_t>(dims[1]),
                                     static_cast<cuuint64_t>(dims[2])};
  cuuint64_t const strides[2] = {static_cast<cuuint64_t>(pitches[0]),
                                 static_cast<cuuint64_t>(pitches[1])};
  cuuint32_t const box[3] = {static_cast<cuuint32_t>(box_x), static_cast<cuuint32_t>(box_y), 1};
  cuuint32_t const element_strides[3] = {1, 1, 1};
  WL_CU_CHECK(CUTLASS_CUDA_DRIVER_WRAPPER_CALL(cuTensorMapEncodeTiled)(
      &map, tensor_map_dtype<T>(), 3, const_cast<void*>(base), global_dims, strides, box,
      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

}  // namespace warploom::sm90
