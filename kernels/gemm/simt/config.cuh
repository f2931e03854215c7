// kernels/gemm/simt/config.cuh
//
// One typed SIMT GEMM configuration: a schedule's shape (shape.hpp) with the input and output
// types — the element conversions, the kernel parameters, the per-thread fragments and which
// values each thread touches. The work bodies that use them are in works.cuh.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>

#include "gemm/tile_raster.hpp"
#include "warploom/config.hpp"
#include "warploom/gemm.hpp"

namespace warploom::gemm::simt {

// Element conversions, spelled with the CUDA intrinsics so that they do not depend on the
// implicit __half / __nv_bfloat16 / fp8 conversions (which __CUDA_NO_HALF_CONVERSIONS__ and
// __CUDA_NO_FP8_CONVERSIONS__ remove).
template <class T>
inline constexpr bool kIsFp8 = std::is_same_v<T, __nv_fp8_e4m3> || std::is_same_v<T, __nv_fp8_e5m2>;

template <class T>
WL_DEVICE T zero_of() {
  if constexpr (std::is_same_v<T, __half>) {
    return __ushort_as_half(0);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __ushort_as_bfloat16(0);
  } else if constexpr (kIsFp8<T>) {
    T z;
    z.__x = 0;  // +0 in both formats
    return z;
  } else {
    return T(0);
  }
}
template <class TAcc, class T>
WL_DEVICE TAcc widen(T x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(x);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(x);
  } else if constexpr (kIsFp8<T>) {
    // fp8 -> fp16 is exact for both formats (cvt.rn.f16x2.e4m3x2 / .e5m2x2 on sm_89+).
    constexpr __nv_fp8_interpretation_t kKind =
        std::is_same_v<T, __nv_fp8_e4m3> ? __NV_E4M3 : __NV_E5M2;
    return __half2float(__half(__nv_cvt_fp8_to_halfraw(x.__x, kKind)));
  } else {
    return static_cast<TAcc>(x);
  }
}
template <class T, class TAcc>
WL_DEVICE T narrow(TAcc x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(x);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(x);
  } else {
    return static_cast<T>(x);
  }
}

// One operand as the load task reads it: a (rows, K, L) view with element strides. A is (M, K),
// B is (N, K); `k_contiguous` says which of the load task's two thread mappings reads it in
// coalesced runs (stride_k == 1: lanes walk K; else lanes walk the rows).
template <class T>
struct Operand {
  T const* data = nullptr;
  std::int64_t stride_rows = 0, stride_k = 0, stride_batch = 0;
  int rows = 0;
  bool k_contiguous = false;
};

// An M x N matrix of the fused epilogue (residual, pre_activation): element (i, j) of batch l at
// data + l * batch_stride + i * stride_row + j * stride_col (either layout); data null: absent.
struct EpilogueMatrix {
  void const* data = nullptr;
  std::int64_t stride_row = 0, stride_col = 0, batch_stride = 0;
};

// The fused epilogue (warploom/gemm.hpp, GemmEpilogue), decided at run time: the SIMT GEMM is the
// fallback for shapes and types the tensor cores do not take, not worth an instance per epilogue.
// `fused` false: none (the plain GEMM's code, unchanged); `finish`: an activation, residual or
// pre-activation output, applied in a second, rolled pass over the thread's outputs.
struct FusedEpilogue {
  bool fused = false;
  bool finish = false;
  Activation activation = Activation::Identity;
  float slope = 0.0f;
  void const* bias = nullptr;  // fp32, or the output type when !bias_fp32
  bool bias_fp32 = true;
  bool bias_per_row = false;
  float const* row_scale = nullptr;
  float const* col_scale = nullptr;
  EpilogueMatrix residual, pre_activation;
};

// fp32 accumulation for fp8, 16-bit and fp32 inputs, fp64 for fp64.
template <class TIn>
using AccumulatorOf = std::conditional_t<std::is_same_v<TIn, double>, double, float>;

// Schedule shape S (its numbers are this configuration's: kTileM, kStageA, ...) run on TIn x TIn
// -> TOut.
template <class TIn_, class TOut_, class S>
struct GemmConfig : S {
  using Shape = S;
  using TIn = TIn_;
  using TOut = TOut_;
  using TAcc = AccumulatorOf<TIn>;
  static_assert(sizeof(TAcc) == S::kAccBytes,
                "the shape's stages are sized for another accumulator (Shape<sizeof(TAcc), ...>)");

  // The math thread's accumulators: (THREAD_M, THREAD_N), row i of the block is tile row
  // row0 + i / 4 * 16 + i % 4, column j is col0 + j / 4 * 32 + j % 4 (see math_origin).
  struct Accumulator {
    TAcc v[S::kThreadM][S::kThreadN] = {};
  };

  // The values one load thread carries from global memory to a stage (the input type: widening
  // waits for the loads, and it should wait in the stage's store, after the acquire).
  struct LoadFragment {
    TIn a[S::kLoadA];  // (LOAD_A)
    TIn b[S::kLoadB];  // (LOAD_B)
  };

  // Everything the kernel gets from the host (a __grid_constant__ parameter). Arguments arrive
  // normalised by gemm.cpp: row-major C and D, leading dimensions and batch strides resolved.
  struct Params {
    Operand<TIn> a;  // (M, K, L)
    Operand<TIn> b;  // (N, K, L)
    TOut const* c = nullptr;
    std::int64_t ldc = 0, batch_stride_c = 0;
    TOut* d = nullptr;
    std::int64_t ldd = 0, batch_stride_d = 0;
    int m = 0, n = 0, k = 0;
    TAcc alpha = 1, beta = 0;
    float const* alpha_ptr = nullptr;  // device alpha and beta, read in place of the values above
    float const* beta_ptr = nullptr;
    float const* scale_a = nullptr;  // fp8 per-tensor scales: device values, null = 1
    float const* scale_b = nullptr;
    TileRaster raster;
    int num_tiles = 0;
    int k_tiles = 0;
    FusedEpilogue epilogue;
  };

  // Which values of a (rows x kTileK) operand tile load thread `t` moves: value j sits at tile row
  // row + j * d_row, K index k + j * d_k. Lanes walk K on a K-contiguous operand (runs of kTileK
  // elements) and the rows otherwise (runs of 32), so each warp's loads read contiguous memory.
  struct LoadMap {
    int row = 0, k = 0, d_row = 0, d_k = 0;
  };
  template <int kRows>
  static WL_DEVICE LoadMap load_map(bool k_contiguous, int t) {
    constexpr int kTileK = S::kTileK, kLoadThreads = S::kLoadThreads;
    if (k_contiguous) return {t / kTileK, t % kTileK, kLoadThreads / kTileK, 0};
    return {t % kRows, t / kRows, 0, kLoadThreads / kRows};
  }
  static WL_DEVICE int load_thread() { return static_cast<int>(threadIdx.x) - S::kLoadWarp * 32; }

  // Where a math thread's block starts in the tile: its warp's tile, then its lane's first
  // sub-block. Sub-blocks repeat every kLanesM * 4 rows and kLanesN * 4 columns.
  struct Origin {
    int row = 0, col = 0;
  };
  static WL_DEVICE Origin math_origin() {
    int const t = static_cast<int>(threadIdx.x);
    int const warp = t / 32;
    int const lane = t % 32;
    return {warp / S::kWarpsN * S::kWarpTileM + lane / S::kLanesN * S::kSub,
            warp % S::kWarpsN * S::kWarpTileN + lane % S::kLanesN * S::kSub};
  }
};

}  // namespace warploom::gemm::simt
