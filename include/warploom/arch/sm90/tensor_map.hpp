// warploom/arch/sm90/tensor_map.hpp
//
// Host side of TMA: encodes the CUtensorMap descriptors of row-major 2-D and 3-D tensors. The
// driver's cuTensorMapEncodeTiled is reached through the runtime's
// cudaGetDriverEntryPointByVersion, so binaries need no libcuda at link time and start (and skip
// their GPU work) on machines without a driver. (Not through CUTLASS's wrapper of the same call:
// CUTLASS 4.2 reads its query status uninitialised when no driver is installed, which UBSan stops.)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

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

namespace detail {

// The driver's cuTensorMapEncodeTiled (CUDA 12.0's signature), looked up once; throws
// warploom::CudaError naming the reason when the driver does not provide it.
// (Its type from cuda.h's own prototype: cudaTypedefs.h spells it differently across toolkits.)
using TensorMapEncoder = decltype(&cuTensorMapEncodeTiled);
inline TensorMapEncoder tensor_map_encoder() {
  static TensorMapEncoder const encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    WL_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                   cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || fn == nullptr)
      throw std::runtime_error(
          "TMA: the CUDA driver does not provide cuTensorMapEncodeTiled (CUDA 12.0 or newer)");
    return reinterpret_cast<TensorMapEncoder>(fn);
  }();
  return encode;
}

// cuTensorMapEncodeTiled for a tensor of `kRank` dimensions (x innermost and contiguous):
// `dims` elements per dimension, `pitches` the bytes between consecutive indices of each outer
// dimension, boxes of `box` elements. Checks TMA's rules first; `who` names the caller in errors.
template <class T, std::size_t kRank>
CUtensorMap encode_tiled(char const* who, void const* base,
                         std::array<std::int64_t, kRank> const& dims,
                         std::array<std::int64_t, kRank - 1> const& pitches,
                         std::array<int, kRank> const& box, CUtensorMapSwizzle swizzle) {
  auto fail = [who](std::string const& what) {
    throw std::invalid_argument(std::string(who) + ": " + what);
  };
  if (base == nullptr) fail("`base` is null");
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0)
    fail("`base` must be 16-byte aligned (TMA)");
  for (std::int64_t d : dims)
    if (d <= 0 || d > (std::int64_t{1} << 32)) fail("dimensions must be in [1, 2^32]");
  for (std::int64_t p : pitches)
    if (p <= 0 || p % 16 != 0 || p >= (std::int64_t{1} << 40))
      fail("row and batch pitches must be positive multiples of 16 bytes below 2^40 (TMA)");
  for (int b : box)
    if (b <= 0 || b > 256) fail("box dimensions must be in [1, 256] (TMA box)");
  if (swizzle == CU_TENSOR_MAP_SWIZZLE_128B && box[0] * static_cast<int>(sizeof(T)) > 128)
    fail("a 128B-swizzled box row must be at most 128 bytes");
  std::array<cuuint64_t, kRank> global_dims{};
  std::array<cuuint64_t, kRank - 1> strides{};
  std::array<cuuint32_t, kRank> box_dims{};
  std::array<cuuint32_t, kRank> element_strides{};
  for (std::size_t i = 0; i < kRank; ++i) {
    global_dims[i] = static_cast<cuuint64_t>(dims[i]);
    box_dims[i] = static_cast<cuuint32_t>(box[i]);
    element_strides[i] = 1;
    if (i + 1 < kRank) strides[i] = static_cast<cuuint64_t>(pitches[i]);
  }
  CUtensorMap map{};
  WL_CU_CHECK(tensor_map_encoder()(
      &map, tensor_map_dtype<T>(), static_cast<cuuint32_t>(kRank), const_cast<void*>(base),
      global_dims.data(), strides.data(), box_dims.data(), element_strides.data(),
      CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

}  // namespace detail

// Descriptor of a packed rows x cols row-major tensor at `base` read in boxes of
// box_rows x box_cols, unswizzled. TMA requires a 16-byte aligned base, a row pitch that is a
// multiple of 16 bytes and boxes of at most 256 elements a side; violations throw
// std::invalid_argument naming the rule.
template <class T>
CUtensorMap make_tensor_map_2d(void const* base, std::int64_t rows, std::int64_t cols, int box_rows,
                               int box_cols) {
  return detail::encode_tiled<T, 2>("make_tensor_map_2d", base, {cols, rows},
                                    {cols * static_cast<std::int64_t>(sizeof(T))},
                                    {box_cols, box_rows}, CU_TENSOR_MAP_SWIZZLE_NONE);
}

// Descriptor of a 3-D tensor (x innermost, contiguous) at `base`: `dims` elements per dimension,
// `pitches` the bytes between consecutive y and z, boxes of box_x x box_y x 1 with `swizzle`
// (CU_TENSOR_MAP_SWIZZLE_128B needs box_x * sizeof(T) <= 128). TMA zero-fills loads outside
// `dims` and clips stores (along x in 16-byte units: see docs/kernels/sm90_ts_gemm.md).
template <class T>
CUtensorMap make_tensor_map_3d(void const* base, std::array<std::int64_t, 3> const& dims,
                               std::array<std::int64_t, 2> const& pitches, int box_x, int box_y,
                               CUtensorMapSwizzle swizzle) {
  return detail::encode_tiled<T, 3>("make_tensor_map_3d", base, dims, pitches, {box_x, box_y, 1},
                                    swizzle);
}

}  // namespace warploom::sm90
