// kernels/gemm/simt/works.cuh
//
// The work bodies of one typed SIMT GEMM configuration (config.cuh), as the schedule's resources
// call them (resources.hpp lists the interface): the global loads of an operand, the widening store
// into a stage, the FMA of one stage, and the epilogue.
#pragma once

#include <cstdint>
#include <type_traits>

#include "gemm/activation.cuh"
#include "gemm/device_scalar.cuh"
#include "gemm/simt/config.cuh"
#include "gemm/tile_raster.hpp"
#include "warploom/ts/stage_info.hpp"

namespace warploom::gemm::simt {

template <class Cfg>
struct Works {
  using Params = typename Cfg::Params;
  using Element = typename Cfg::TAcc;  // the stages hold the compute type
  using Accumulator = typename Cfg::Accumulator;
  using LoadFragment = typename Cfg::LoadFragment;
  using TIn = typename Cfg::TIn;
  using TOut = typename Cfg::TOut;
  using TAcc = typename Cfg::TAcc;
  static constexpr int kSub = Cfg::kSub;
  static constexpr int kTileM = Cfg::kTileM, kTileN = Cfg::kTileN, kTileK = Cfg::kTileK;
  static constexpr int kThreadM = Cfg::kThreadM, kThreadN = Cfg::kThreadN;
  static constexpr int kPitchA = Cfg::kPitchA, kPitchB = Cfg::kPitchB;
  static constexpr int kStageA = Cfg::kStageA, kStageB = Cfg::kStageB;
  static constexpr int kSubStrideM = Cfg::kSubStrideM, kSubStrideN = Cfg::kSubStrideN;

  static WL_DEVICE TileCoord tile_at(Params const& p, int tile) { return p.raster.coord(tile); }

  // ---- Load task --------------------------------------------------------------------------------
  // This thread's values of operand `x` (p->a or p->b) in the (kRows, BLK_K) block at (row0, k0)
  // of batch `l`, zero outside the matrix (GmemAB::load calls it once per operand). The addresses
  // advance by one stride per value (a pointer bump, not a product per value): the per-value
  // offsets are the same for every K tile, and precomputed they would take 64 of the thread's
  // registers.
  template <int kRows, class GmemAB, int kCount>
  static WL_DEVICE void load_operand(GmemAB const& gmem, Operand<TIn> const& x, int row0, int k0,
                                     int l, TIn (&v)[kCount]) {
    typename Cfg::LoadMap const map =
        Cfg::template load_map<kRows>(x.k_contiguous, Cfg::load_thread());
    int const rows_left = x.rows - row0 - map.row;  // value j is inside while j * d_row < this
    int const k_left = gmem.p->k - k0 - map.k;      // ... and j * d_k < this
    std::int64_t const step =
        std::int64_t{map.d_row} * x.stride_rows + std::int64_t{map.d_k} * x.stride_k;
    TIn const* src = x.data + l * x.stride_batch + std::int64_t{row0 + map.row} * x.stride_rows +
                     std::int64_t{k0 + map.k} * x.stride_k;
#pragma unroll
    for (int j = 0; j < kCount; ++j) {
      v[j] = j * map.d_row < rows_left && j * map.d_k < k_left ? *src : zero_of<TIn>();
      src += step;
    }
  }

  // Widens this thread's values and writes them to the acquired stage, each at (k, row).
  template <class SmemAB>
  static WL_DEVICE void store_stage(SmemAB const& smem, ts::Produce const& s,
                                    LoadFragment const& f) {
    store_operand<kTileM, kPitchA>(smem.p->a.k_contiguous, smem.a.get() + s.stage_idx * kStageA,
                                   f.a);
    store_operand<kTileN, kPitchB>(smem.p->b.k_contiguous, smem.b.get() + s.stage_idx * kStageB,
                                   f.b);
  }

  // ---- Math task --------------------------------------------------------------------------------
  // One K tile of the thread's block: per k, kThreadM values of A and kThreadN of B from the
  // stage, then kThreadM x kThreadN FMAs. (The accumulator starts each tile at zero: store_d
  // clears it, which costs one instruction per value per tile instead of one per K tile.)
  template <class SmemAB>
  static WL_DEVICE void fma(SmemAB const& smem, ts::Consume const& s, Accumulator& acc) {
    typename Cfg::Origin const o = Cfg::math_origin();
    TAcc const* const sa = smem.a.get() + s.stage_idx * kStageA + o.row;
    TAcc const* const sb = smem.b.get() + s.stage_idx * kStageB + o.col;
#pragma unroll
    for (int k = 0; k < kTileK; ++k) {
      TAcc fa[kThreadM];
      TAcc fb[kThreadN];
#pragma unroll
      for (int i = 0; i < kThreadM / kSub; ++i)
        read_sub(sa + k * kPitchA + i * kSubStrideM, &fa[i * kSub]);
#pragma unroll
      for (int j = 0; j < kThreadN / kSub; ++j)
        read_sub(sb + k * kPitchB + j * kSubStrideN, &fb[j * kSub]);
#pragma unroll
      for (int i = 0; i < kThreadM; ++i) {
#pragma unroll
        for (int j = 0; j < kThreadN; ++j) acc.v[i][j] = fma_of(fa[i], fb[j], acc.v[i][j]);
      }
    }
  }

  // ---- Epilogue ---------------------------------------------------------------------------------
  // D (and C) are row-major. Each math thread writes its own block, element by element: D may
  // have any leading dimension and alignment, so there is no wider store to use. Clears the
  // accumulator for the next tile. A fused epilogue (Params::epilogue) is a second copy of the
  // unrolled store, with the scales and the bias, and, for an activation, residual or
  // pre-activation output, a rolled pass over the block that reads z back from D (as the tensor-
  // core GEMM does from its staging buffer: the activation sees z in D's type).
  template <class GmemD>
  static WL_DEVICE void store_d(GmemD const& gmem, ts::Produce const&, TileCoord tile,
                                Accumulator& acc) {
    Params const* const p = gmem.p;
    if (p->epilogue.fused) {
      store_block<true>(*p, tile, acc);
      if (p->epilogue.finish) finish_block(*p, tile);
    } else {
      store_block<false>(*p, tile, acc);
    }
    acc = Accumulator{};
  }

 private:
  // The thread's block of z: alpha * acc + beta * C, with kFused the row and column scales and the
  // bias too.
  template <bool kFused>
  static WL_DEVICE void store_block(Params const& p, TileCoord tile, Accumulator const& acc) {
    typename Cfg::Origin const o = Cfg::math_origin();
    int const row0 = tile.m * kTileM + o.row;
    int const col0 = tile.n * kTileN + o.col;
    TOut* const d = p.d + tile.l * p.batch_stride_d;
    // The device scalars (cuBLAS's device alpha and beta, cuBLASLt's scale pointers) are read
    // once per tile.
    TAcc const beta = device_scalar(p.beta_ptr, p.beta);
    bool const reads_c = beta != TAcc(0);  // C may be null then, and is never read
    TAcc const alpha = device_scalar(p.alpha_ptr, p.alpha) * TAcc(device_scalar(p.scale_a, 1.0f)) *
                       TAcc(device_scalar(p.scale_b, 1.0f));
    [[maybe_unused]] FusedEpilogue const& e = p.epilogue;
    // The column terms of the thread's kThreadN columns, read once per tile (1 and 0 when absent
    // or past N).
    [[maybe_unused]] TAcc col_scale[kThreadN], col_bias[kThreadN];
    if constexpr (kFused) {
#pragma unroll
      for (int j = 0; j < kThreadN; ++j) {
        int const col = col0 + j / kSub * kSubStrideN + j % kSub;
        bool const inside = col < p.n;
        col_scale[j] = inside && e.col_scale != nullptr ? TAcc(e.col_scale[col]) : TAcc(1);
        col_bias[j] = inside && e.bias != nullptr && !e.bias_per_row ? bias_at(e, col) : TAcc(0);
      }
    }
    // No break or continue: the loops unroll fully, so every accumulator index is a constant
    // and the block stays in registers.
#pragma unroll
    for (int i = 0; i < kThreadM; ++i) {
      int const row = row0 + i / kSub * kSubStrideM + i % kSub;
      TAcc row_alpha = alpha;
      [[maybe_unused]] TAcc row_bias = 0;
      if constexpr (kFused) {
        if (row < p.m) {
          if (e.row_scale != nullptr) row_alpha *= TAcc(e.row_scale[row]);
          if (e.bias != nullptr && e.bias_per_row) row_bias = bias_at(e, row);
        }
      }
#pragma unroll
      for (int j = 0; j < kThreadN; ++j) {
        int const col = col0 + j / kSub * kSubStrideN + j % kSub;
        if (row < p.m && col < p.n) {
          TAcc x = row_alpha * acc.v[i][j];
          if constexpr (kFused) x *= col_scale[j];
          if (reads_c)
            x += beta *
                 widen<TAcc>(p.c[tile.l * p.batch_stride_c + std::int64_t{row} * p.ldc + col]);
          if constexpr (kFused) x += row_bias + col_bias[j];
          d[std::int64_t{row} * p.ldd + col] = narrow<TOut>(x);
        }
      }
    }
  }

  static WL_DEVICE TAcc bias_at(FusedEpilogue const& e, int i) {
    return e.bias_fp32 ? TAcc(static_cast<float const*>(e.bias)[i])
                       : widen<TAcc>(static_cast<TOut const*>(e.bias)[i]);
  }

  // The block's z, as stored in D, through the pre-activation output, the activation and the
  // residual, back into D. Rolled: the activation's code once, not per output (this reads D, not
  // the accumulator, whose indices would have to be constants); each thread rereads only what it
  // wrote itself.
  static WL_DEVICE void finish_block(Params const& p, TileCoord tile) {
    typename Cfg::Origin const o = Cfg::math_origin();
    FusedEpilogue const& e = p.epilogue;
    TOut* const d = p.d + tile.l * p.batch_stride_d;
    TOut* const pre = e.pre_activation.data == nullptr
                          ? nullptr
                          : const_cast<TOut*>(static_cast<TOut const*>(e.pre_activation.data)) +
                                tile.l * e.pre_activation.batch_stride;
    TOut const* const residual =
        e.residual.data == nullptr
            ? nullptr
            : static_cast<TOut const*>(e.residual.data) + tile.l * e.residual.batch_stride;
#pragma unroll 1
    for (int v = 0; v < kThreadM * kThreadN; ++v) {
      int const i = v / kThreadN, j = v % kThreadN;
      int const row = tile.m * kTileM + o.row + i / kSub * kSubStrideM + i % kSub;
      int const col = tile.n * kTileN + o.col + j / kSub * kSubStrideN + j % kSub;
      if (row >= p.m || col >= p.n) continue;
      TOut* const out = d + std::int64_t{row} * p.ldd + col;
      TAcc z = widen<TAcc>(*out);
      if (pre != nullptr)
        pre[row * e.pre_activation.stride_row + col * e.pre_activation.stride_col] = *out;
      z = activate(e.activation, z, TAcc(e.slope));
      if (residual != nullptr)
        z += widen<TAcc>(residual[row * e.residual.stride_row + col * e.residual.stride_col]);
      *out = narrow<TOut>(z);
    }
  }

  template <int kRows, int kPitch, int kCount>
  static WL_DEVICE void store_operand(bool k_contiguous, TAcc* stage, TIn const (&v)[kCount]) {
    typename Cfg::LoadMap const map =
        Cfg::template load_map<kRows>(k_contiguous, Cfg::load_thread());
#pragma unroll
    for (int j = 0; j < kCount; ++j)
      stage[(map.k + j * map.d_k) * kPitch + map.row + j * map.d_row] = widen<TAcc>(v[j]);
  }

  // Four consecutive values at a 16-byte aligned address: one 16-byte read for fp32, two for
  // fp64.
  static WL_DEVICE void read_sub(TAcc const* src, TAcc* dst) {
    if constexpr (std::is_same_v<TAcc, float>) {
      float4 const v = *reinterpret_cast<float4 const*>(src);
      dst[0] = v.x;
      dst[1] = v.y;
      dst[2] = v.z;
      dst[3] = v.w;
    } else {
      double2 const v0 = reinterpret_cast<double2 const*>(src)[0];
      double2 const v1 = reinterpret_cast<double2 const*>(src)[1];
      dst[0] = v0.x;
      dst[1] = v0.y;
      dst[2] = v1.x;
      dst[3] = v1.y;
    }
  }
  static WL_DEVICE TAcc fma_of(TAcc x, TAcc y, TAcc z) {
    if constexpr (std::is_same_v<TAcc, float>) {
      return __fmaf_rn(x, y, z);
    } else {
      return __fma_rn(x, y, z);
    }
  }
};

}  // namespace warploom::gemm::simt
