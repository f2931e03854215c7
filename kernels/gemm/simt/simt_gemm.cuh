// kernels/gemm/simt/simt_gemm.cuh
//
// The SIMT GEMM in TS: D = alpha * (A . B) + beta * C with FMA on the CUDA cores, no tensor cores.
// The fallback of warploom::gemm::gemm for what the sm90 tensor-core GEMM cannot run: fp32 and
// fp64 inputs, fp8 inputs that are not both K-major (wgmma reads 8-bit operands K-major only), and
// 16-bit or fp8 inputs whose pointers, leading dimensions or batch strides break TMA's 16-byte
// rules (a packed fp16 K = 17, an fp8 K = 40). Its only alignment rule is the element's own. fp8
// values are widened to fp32 in the stages, so products and sums are exact fp32 FMA.
//
//   Tiles ──tile──▶ LoadTask ──frag──▶ SmemAB (threads -> threads) ──▶ MathTask ──acc──▶ GmemD
//   (raster order)  warps 8-11:        STAGES x (A as K x M,            warps 0-7: wait,
//                   global loads,      B as K x N), in the compute      FMA from smem into
//                   acquire, store,    type, rows padded by 16 bytes    registers, release;
//                   commit                                              after the last K tile
//                                                                       store (alpha, beta)
//
// Every CTA walks output tiles blockIdx.x, blockIdx.x + gridDim.x, ... in the raster order of
// `TileRaster`. For each tile the load task reads the K tiles of A and B from global memory with
// plain predicated loads (zero outside the matrix, so partial tiles need no other care), *then*
// acquires a stage, widens the values to the compute type, stores them K-major and commits: the
// loads are in flight while the task waits for a free stage. The math task (8 warps, a 4 x 2 grid
// of warp tiles) multiplies each stage into a per-thread block of kThreadM x kThreadN accumulators
// (a task-local variable the fma work updates in place) and releases the stage as soon as the work
// returns: it read the stage into registers, so nothing asynchronous still reads it. After the
// last K tile the math warps write their blocks of D, predicated on M and N, while the load task
// already fills the stages with the next tile.
//
// Tiles: 128 x 128 (fp32 accumulation: 8 x 8 outputs per math thread) or 128 x 64 (fp64: 8 x 4);
// the K tile and stage count are template parameters (simt_gemm.cu picks them).
//
// Warps: math on warps 0-7, load on warps 8-11; no setmaxnreg: every warp keeps the kernel's
// budget, 168 registers under __launch_bounds__(384, 1), which the math threads need (64
// accumulators plus the operands of the next k in flight) and the load threads use for the values
// of a whole stage in flight. One CTA per SM.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "gemm/tile_raster.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/gemm.hpp"
#include "warploom/ts/launch.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::gemm::simt {

namespace ts = warploom::ts;

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

// fp32 accumulation for fp8, 16-bit and fp32 inputs, fp64 for fp64.
template <class TIn>
using AccumulatorOf = std::conditional_t<std::is_same_v<TIn, double>, double, float>;

template <class TIn_, class TOut_, int kTileK_, int kStages_>
struct SimtGemm {
  using TIn = TIn_;
  using TOut = TOut_;
  using TAcc = AccumulatorOf<TIn>;

  // ---- Shape -----------------------------------------------------------------------------------
  // A math thread owns kThreadM x kThreadN outputs as 4 x 4 sub-blocks spread over its warp's
  // tile: a sub-block row of 4 values is one 16-byte shared-memory read (two for fp64), and the
  // lanes that share a row block read the same address (a broadcast), so the reads of a warp never
  // conflict. 8 x 8 fp32 (4 x 4 is too little reuse: 8 reads per 16 FMAs) or 8 x 4 fp64 (8 x 8
  // doubles are 128 registers of accumulators alone, beyond the 168 the budget allows with
  // operands and addresses).
  static constexpr int kSub = 4;
  static constexpr int kThreadM = 8;
  static constexpr int kThreadN = std::is_same_v<TAcc, double> ? 4 : 8;
  static constexpr int kLanesM = 4, kLanesN = 8;  // a warp's lanes over its tile
  static constexpr int kWarpsM = 4, kWarpsN = 2;  // the math warps over the CTA tile
  static constexpr int kWarpTileM = kLanesM * kThreadM;
  static constexpr int kWarpTileN = kLanesN * kThreadN;
  static constexpr int kTileM = kWarpsM * kWarpTileM;  // 128
  static constexpr int kTileN = kWarpsN * kWarpTileN;  // 128 (fp32 accumulation), 64 (fp64)
  static constexpr int kTileK = kTileK_;
  static constexpr int kStages = kStages_;
  static constexpr int kMathWarps = kWarpsM * kWarpsN;
  static constexpr int kMathThreads = kMathWarps * 32;
  static constexpr int kLoadWarp = kMathWarps;  // the load task's first warp
  static constexpr int kLoadThreads = 4 * 32;

  // Shared memory holds A as (K, M) and B as (K, N) rows of the compute type. The rows are padded
  // by 16 bytes: the load mapping that walks K (a K-contiguous operand) writes down a column of
  // the stage, whose K values would all share one bank unpadded (a 32-way conflict); padded they
  // spread over 8 banks (4-way at a K tile of 32, 2-way at 16), and every row stays 16-byte
  // aligned for the math threads' vector reads.
  static constexpr int kPad = 16 / static_cast<int>(sizeof(TAcc));
  static constexpr int kPitchA = kTileM + kPad;
  static constexpr int kPitchB = kTileN + kPad;
  static constexpr int kStageA = kTileK * kPitchA;
  static constexpr int kStageB = kTileK * kPitchB;
  // Values of A and B one load thread carries per stage.
  static constexpr int kLoadA = kTileM * kTileK / kLoadThreads;
  static constexpr int kLoadB = kTileN * kTileK / kLoadThreads;

  // Preconditions
  static_assert(kThreadM % kSub == 0 && kThreadN % kSub == 0,
                "a thread's output block is made of whole 4 x 4 sub-blocks");
  static_assert(kLoadThreads % kTileK == 0 && kLoadThreads % kTileM == 0 &&
                    kLoadThreads % kTileN == 0,
                "both load thread mappings need the load threads to cover whole K runs and whole "
                "tile columns (kTileK, kTileM, kTileN divide kLoadThreads)");
  static_assert(kTileM * kTileK % kLoadThreads == 0 && kTileN * kTileK % kLoadThreads == 0,
                "every load thread carries the same number of values");
  static_assert(kPitchA * sizeof(TAcc) % 16 == 0 && kPitchB * sizeof(TAcc) % 16 == 0,
                "shared-memory rows must stay 16-byte aligned for the vector reads");

  // The math thread's accumulators: (THREAD_M, THREAD_N), row i of the block is tile row
  // row0 + i / 4 * 16 + i % 4, column j is col0 + j / 4 * 32 + j % 4 (see math_origin).
  struct Accumulator {
    TAcc v[kThreadM][kThreadN] = {};
  };

  // The values one load thread carries from global memory to a stage (the input type: widening
  // waits for the loads, and it should wait in the stage's store, after the acquire).
  struct LoadFragment {
    TIn a[kLoadA];  // (LOAD_A)
    TIn b[kLoadB];  // (LOAD_B)
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
    float const* scale_a = nullptr;  // fp8 per-tensor scales: device values, null = 1
    float const* scale_b = nullptr;
    TileRaster raster;
    int num_tiles = 0;
    int k_tiles = 0;
  };

  // Which values of a (rows x kTileK) operand tile load thread `t` moves: value j sits at tile row
  // row + j * d_row, K index k + j * d_k. Lanes walk K on a K-contiguous operand (runs of kTileK
  // elements) and the rows otherwise (runs of 32), so each warp's loads read contiguous memory.
  struct LoadMap {
    int row = 0, k = 0, d_row = 0, d_k = 0;
  };
  template <int kRows>
  static WL_DEVICE LoadMap load_map(bool k_contiguous, int t) {
    if (k_contiguous) return {t / kTileK, t % kTileK, kLoadThreads / kTileK, 0};
    return {t % kRows, t / kRows, 0, kLoadThreads / kRows};
  }
  static WL_DEVICE int load_thread() { return static_cast<int>(threadIdx.x) - kLoadWarp * 32; }

  // Where a math thread's block starts in the tile: its warp's tile, then its lane's first
  // sub-block. Sub-blocks repeat every kLanesM * 4 rows and kLanesN * 4 columns.
  struct Origin {
    int row = 0, col = 0;
  };
  static WL_DEVICE Origin math_origin() {
    int const t = static_cast<int>(threadIdx.x);
    int const warp = t / 32;
    int const lane = t % 32;
    return {warp / kWarpsN * kWarpTileM + lane / kLanesN * kSub,
            warp % kWarpsN * kWarpTileN + lane % kLanesN * kSub};
  }
  static constexpr int kSubStrideM = kLanesM * kSub;  // rows between a thread's sub-blocks
  static constexpr int kSubStrideN = kLanesN * kSub;  // columns between them

  // ---- Resources -------------------------------------------------------------------------------
  // Which output tile comes next: the persistent loop's index in raster order.
  struct Tiles {
    static constexpr ts::ResourceSpec spec{.name = "tiles"};
    Params const* p = nullptr;
    int num_tiles = 0;
    int k_tiles = 0;
    WL_DEVICE TileCoord next(ts::Consume const& s) const { return p->raster.coord(s.loop_offset); }
  };

  // A and B in global memory, read by the load task.
  struct GmemAB {
    static constexpr ts::ResourceSpec spec{.name = "gmem_ab"};
    Params const* p = nullptr;

    // This thread's values of K tile `s.loop_offset` of `tile`, zero outside the matrix.
    WL_DEVICE LoadFragment load(ts::Consume const& s, TileCoord tile) const {
      LoadFragment f;
      int const k0 = s.loop_offset * kTileK;
      load_operand<kTileM>(p->a, tile.m * kTileM, k0, tile.l, f.a);
      load_operand<kTileN>(p->b, tile.n * kTileN, k0, tile.l, f.b);
      return f;
    }

   private:
    // The addresses advance by one stride per value (a pointer bump, not a product per value): the
    // per-value offsets are the same for every K tile, and precomputed they would take 64 of the
    // thread's registers.
    template <int kRows, int kCount>
    WL_DEVICE void load_operand(Operand<TIn> const& x, int row0, int k0, int l,
                                TIn (&v)[kCount]) const {
      LoadMap const map = load_map<kRows>(x.k_contiguous, load_thread());
      int const rows_left = x.rows - row0 - map.row;  // value j is inside while j * d_row < this
      int const k_left = p->k - k0 - map.k;           // ... and j * d_k < this
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
  };

  // The stages: A as (K, M) and B as (K, N), in the compute type. Written by the load threads,
  // read by the math threads straight into registers, so a stage is free again once the math work
  // returns. Every thread arrives (commit, release) for itself: each arrival orders that thread's
  // own accesses, which compute-sanitizer's racecheck can follow (it does not follow the
  // __syncwarp-then-one-lane arrival of ts::warps groups), at 256 + 128 arrivals per stage.
  struct SmemAB {
    static constexpr ts::ResourceSpec spec{
        .name = "smem_ab",
        .pipeline = ts::async_async(kStages, ts::threads(kLoadThreads), ts::threads(kMathThreads))};
    Params const* p = nullptr;
    ts::SmemBuffer<TAcc, kStages * kStageA> a;  // (STAGES, BLK_K, BLK_M + PAD)
    ts::SmemBuffer<TAcc, kStages * kStageB> b;  // (STAGES, BLK_K, BLK_N + PAD)
    using smem_buffers = ts::buffers<&SmemAB::a, &SmemAB::b>;

    // Widens this thread's values and writes them to the acquired stage, each at (k, row).
    WL_DEVICE void store(ts::Produce const& s, LoadFragment const& f) const {
      store_operand<kTileM, kPitchA>(p->a.k_contiguous, a.get() + s.stage_idx * kStageA, f.a);
      store_operand<kTileN, kPitchB>(p->b.k_contiguous, b.get() + s.stage_idx * kStageB, f.b);
    }

    // One K tile of the thread's block: per k, kThreadM values of A and kThreadN of B from the
    // stage, then kThreadM x kThreadN FMAs. (The accumulator starts each tile at zero: GmemD::store
    // clears it, which costs one instruction per value per tile instead of one per K tile.)
    WL_DEVICE void fma(ts::Consume const& s, Accumulator& acc) const {
      Origin const o = math_origin();
      TAcc const* const sa = a.get() + s.stage_idx * kStageA + o.row;
      TAcc const* const sb = b.get() + s.stage_idx * kStageB + o.col;
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

   private:
    template <int kRows, int kPitch, int kCount>
    WL_DEVICE void store_operand(bool k_contiguous, TAcc* stage, TIn const (&v)[kCount]) const {
      LoadMap const map = load_map<kRows>(k_contiguous, load_thread());
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

  // D (and C), row-major. Each math thread writes its own block, element by element: D may have
  // any leading dimension and alignment, so there is no wider store to use.
  struct GmemD {
    static constexpr ts::ResourceSpec spec{.name = "gmem_d"};
    Params const* p = nullptr;

    // Writes the thread's block and clears the accumulator for the next tile.
    WL_DEVICE void store(ts::Produce const&, TileCoord tile, Accumulator& acc) const {
      Origin const o = math_origin();
      int const row0 = tile.m * kTileM + o.row;
      int const col0 = tile.n * kTileN + o.col;
      TOut* const d = p->d + tile.l * p->batch_stride_d;
      bool const reads_c = p->beta != TAcc(0);  // C may be null then, and is never read
      // The scales are device values (cuBLASLt's scale pointers): read once per tile.
      TAcc const alpha = p->alpha * TAcc(p->scale_a != nullptr ? *p->scale_a : 1.0f) *
                         TAcc(p->scale_b != nullptr ? *p->scale_b : 1.0f);
      // No break or continue: the loops unroll fully, so every accumulator index is a constant
      // and the block stays in registers.
#pragma unroll
      for (int i = 0; i < kThreadM; ++i) {
        int const row = row0 + i / kSub * kSubStrideM + i % kSub;
#pragma unroll
        for (int j = 0; j < kThreadN; ++j) {
          int const col = col0 + j / kSub * kSubStrideN + j % kSub;
          if (row < p->m && col < p->n) {
            TAcc x = alpha * acc.v[i][j];
            if (reads_c)
              x += p->beta *
                   widen<TAcc>(p->c[tile.l * p->batch_stride_c + std::int64_t{row} * p->ldc + col]);
            d[std::int64_t{row} * p->ldd + col] = narrow<TOut>(x);
          }
        }
      }
      acc = Accumulator{};
    }
  };

  // ---- Tasks -----------------------------------------------------------------------------------
  struct LoadTask {
    static constexpr ts::TaskSpec spec{
        .name = "load", .warp_idx = kLoadWarp, .num_warps = kLoadThreads / 32};
    using src = ts::list<Tiles, GmemAB>;
    using dst = ts::list<SmemAB>;
    // The global loads come before acquire(): they are in flight while the task waits for the
    // math warps to free the stage, and only the store into it waits for them.
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& tiles, auto& gmem, auto& smem) {
      ctx.domain_loop(ctx.block_idx(), tiles->num_tiles, ctx.grid_dim(), [&](auto&) {
        auto tile = ts::work<&Tiles::next>(tiles);
        ctx.domain_loop(tiles->k_tiles, [&](auto&) {
          auto fragment = ts::work<&GmemAB::load>(gmem, tile);
          smem.acquire();
          ts::work<&SmemAB::store>(smem, fragment);
          smem.commit();
        });
      });
    }
  };

  struct MathTask {
    static constexpr ts::TaskSpec spec{.name = "math", .warp_idx = 0, .num_warps = kMathWarps};
    using src = ts::list<Tiles, SmemAB>;
    using dst = ts::list<GmemD>;
    // The FMA work reads the stage into registers as it goes, so the stage is released right
    // after it (no asynchronous reader to retire first, unlike wgmma).
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& tiles, auto& smem, auto& d) {
      auto acc = ctx.local(Accumulator{});
      ctx.domain_loop(ctx.block_idx(), tiles->num_tiles, ctx.grid_dim(), [&](auto&) {
        auto tile = ts::work<&Tiles::next>(tiles);
        ctx.domain_loop(tiles->k_tiles, [&](auto&) {
          smem.wait();
          ts::work<&SmemAB::fma>(smem, acc);
          smem.release();
        });
        ts::work<&GmemD::store>(d, tile, acc);
      });
    }
  };

  using Manager = ts::TaskManager<
      ts::Tasks<MathTask, LoadTask>,
      ts::Graph<ts::DependsOn<SmemAB, GmemAB, Tiles>, ts::DependsOn<GmemD, SmemAB, Tiles>>>;
};

// ---- Kernel ------------------------------------------------------------------------------------
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    simt_gemm_kernel(__grid_constant__ typename Cfg::Params const p) {
  extern __shared__ __align__(128) char smem[];
  typename Cfg::Tiles tiles{.p = &p, .num_tiles = p.num_tiles, .k_tiles = p.k_tiles};
  typename Cfg::GmemAB ab{.p = &p};
  typename Cfg::SmemAB stages{};
  stages.p = &p;
  typename Cfg::GmemD d{.p = &p};
  typename Cfg::Manager tm(smem, tiles, ab, stages, d);
  tm.setup_resources_and_tasks().fence_and_sync_cta().run();
}

// ---- Host launcher -----------------------------------------------------------------------------
// An operand as the load task's (rows, K) view: A (M x K) is K-contiguous when row-major, B (K x N)
// when column-major (`k_layout`).
template <class T>
Operand<T> operand_view(Matrix const& x, int rows, MatrixLayout k_layout) {
  bool const k_contiguous = x.layout == k_layout;
  return {.data = static_cast<T const*>(x.data),
          .stride_rows = k_contiguous ? x.ld : 1,
          .stride_k = k_contiguous ? 1 : x.ld,
          .stride_batch = x.batch_stride,
          .rows = rows,
          .k_contiguous = k_contiguous};
}

// `args` has its leading dimensions and batch strides resolved and row-major C and D (gemm.cpp's
// normalisation); the types are Cfg's.
template <class Cfg>
void launch_simt_gemm(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream) {
  using Params = typename Cfg::Params;
  using TAcc = typename Cfg::TAcc;
  Params p{};
  p.a = operand_view<typename Cfg::TIn>(args.a, args.m, MatrixLayout::RowMajor);
  p.b = operand_view<typename Cfg::TIn>(args.b, args.n, MatrixLayout::ColMajor);
  p.c = static_cast<typename Cfg::TOut const*>(args.c.data);
  p.ldc = args.c.ld;
  p.batch_stride_c = args.c.batch_stride;
  p.d = static_cast<typename Cfg::TOut*>(args.d);
  p.ldd = args.ldd;
  p.batch_stride_d = args.batch_stride_d;
  p.m = args.m;
  p.n = args.n;
  p.k = args.k;
  p.alpha = static_cast<TAcc>(args.alpha);
  p.beta = static_cast<TAcc>(args.beta);
  p.scale_a = args.scale_a;
  p.scale_b = args.scale_b;
  std::int64_t const tiles_m = (std::int64_t{args.m} + Cfg::kTileM - 1) / Cfg::kTileM;
  std::int64_t const tiles_n = (std::int64_t{args.n} + Cfg::kTileN - 1) / Cfg::kTileN;
  std::int64_t const num_tiles = tiles_m * tiles_n * args.batch;
  if (num_tiles > INT_MAX)
    throw std::invalid_argument("gemm: m x n x batch = " + std::to_string(num_tiles) +
                                " tiles of " + std::to_string(Cfg::kTileM) + " x " +
                                std::to_string(Cfg::kTileN) +
                                " exceed the 32-bit tile index of the SIMT GEMM");
  p.raster = TileRaster{.tiles_m = static_cast<int>(tiles_m),
                        .tiles_n = static_cast<int>(tiles_n),
                        .panel = std::max(1, tuning.raster_panel)};
  p.num_tiles = static_cast<int>(num_tiles);
  p.k_tiles = (args.k + Cfg::kTileK - 1) / Cfg::kTileK;

  // Persistent grid: as many CTAs as fit on the device at once (one per SM in practice: the
  // math threads' registers fill the register file), capped by the tile count and max_ctas.
  using Manager = typename Cfg::Manager;
  auto const kernel = simt_gemm_kernel<Cfg>;
  int device = 0, sms = 0, per_sm = 0;
  WL_CUDA_CHECK(cudaGetDevice(&device));
  WL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  WL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(Manager::smem_bytes)));
  WL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, kernel, Manager::num_threads, static_cast<std::size_t>(Manager::smem_bytes)));
  int resident = sms * std::max(per_sm, 1);
  if (tuning.max_ctas > 0) resident = std::min(resident, tuning.max_ctas);
  dim3 const grid(static_cast<unsigned>(std::min(p.num_tiles, resident)));
  ts::launch<Manager>("simt_gemm", kernel, grid, stream, p);
}

}  // namespace warploom::gemm::simt
