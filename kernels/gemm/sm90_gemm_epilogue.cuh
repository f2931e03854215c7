// kernels/gemm/sm90_gemm_epilogue.cuh
//
// The sm90 TS GEMMs' epilogue: the GmemD resource, which writes alpha * scale_a * scale_b * acc +
// beta * C to D.
//
// The MMA threads of one accumulator tile stage it in shared memory, one subtile of
// kTileM x kEpiN at a time (one 128-byte, 128B-swizzled row per tile row), and their first thread
// stores each subtile with TMA, which clips rows beyond M. kStagingBuffers buffers alternate: a
// buffer is rewritten only once the TMA store that read it retired (bulk wait_group.read).
//
// Columns are another matter: TMA clips a store along its contiguous dimension in 16-byte units
// (measured on the H200: with N = 257 bf16 it writes columns 257-263), which would write into the
// caller's padding. So a subtile that crosses N where N is not a multiple of 16 bytes is stored
// from registers instead, element by element; subtiles entirely beyond N are skipped.
#pragma once

#include <string_view>

#include "sm90_gemm_mainloop.cuh"
#include "warploom/arch/sm90/tma.hpp"

namespace warploom::gemm::sm90 {

// kSlot of kSlots: which accumulator tile (ping-pong has one per warpgroup); its MMA threads are
// [kSlot * kMmaThreads, (kSlot + 1) * kMmaThreads) and sync on named barrier 1 + kSlot.
template <class Cfg, int kSlot = 0, int kSlots = 1>
struct GmemD {
  static constexpr std::string_view kNames[] = {"gmem_d", "gmem_d0", "gmem_d1"};
  static_assert(kSlots <= 2 && kSlot < kSlots);
  static constexpr ts::ResourceSpec spec{.name = kNames[kSlots == 1 ? 0 : 1 + kSlot]};
  using TD = typename Cfg::TD;
  using SmemLayoutEpi = typename Cfg::SmemLayoutEpi;
  static constexpr int kTileM = Cfg::kTileM, kTileN = Cfg::kTileN;
  static constexpr int kEpiN = Cfg::kEpiN, kEpiTiles = Cfg::kEpiTiles;
  static constexpr int kThreads = Cfg::kMmaThreads;
  static constexpr int kBuffers = Cfg::kStagingBuffers;
  static constexpr int kBarrier = 1 + kSlot;  // 0 is __syncthreads'

  typename Cfg::Params const* p = nullptr;
  ts::SmemBuffer<TD, kBuffers * cute::cosize_v<SmemLayoutEpi>, 1024> staging;  // (BUF, M, EPI_N)
  using smem_buffers = ts::buffers<&GmemD::staging>;
  // alpha * scale_a * scale_b for the tile being stored (set by store(); public: GmemD stays an
  // aggregate).
  float alpha = 1.0f;

  WL_DEVICE void store(ts::Produce const&, TileCoord tile, typename Cfg::Accumulator const& acc) {
    using namespace cute;
    if (is_phantom(*p, tile)) return;
    // The scales live in device memory (written by an earlier kernel, as cuBLASLt's scale
    // pointers): read once per tile here, not per element.
    alpha = p->alpha * (p->scale_a != nullptr ? *p->scale_a : 1.0f) *
            (p->scale_b != nullptr ? *p->scale_b : 1.0f);
    // The fence keeps the compiler from hoisting reads of the accumulator registers above the
    // wgmma_wait<0> that made them valid; it takes them as in-out operands, hence the cast
    // (the local itself is not const).
    Tensor accum = const_cast<typename Cfg::Accumulator&>(acc).tensor();
    warpgroup_fence_operand(accum);

    // Where this thread's accumulator values sit in the tile (PTX ISA, "wgmma .m64nNk16 register
    // fragment D"): value v0 + 2 v1 + 4 g of atom mi is row row0 + 64 W mi + 8 v1, column
    // col0 + v0 + 8 g, for W warpgroups sharing the tile (warpgroup w starts at row 64 w).
    int const t = static_cast<int>(threadIdx.x) % kThreads;
    int const lane = t % 32;
    int const row0 = t / 128 * 64 + t % 128 / 32 * 16 + lane / 4;
    int const col0 = lane % 4 * 2;
    int const tile_col0 = tile.n * kTileN;
    constexpr int kPerChunk = 16 / static_cast<int>(sizeof(TD));
    bool const n_aligned = p->n % kPerChunk == 0;

    // No break or continue in this loop: it must unroll fully so that every index into the
    // accumulator is a compile-time constant (else the accumulator goes to local memory). One copy
    // of it only: splitting the epilogue by beta (a straight-line beta = 0 path) doubled the code
    // past the inliner's budget, put the accumulator on the stack (512-1104 bytes) and serialized
    // every wgmma (C7514) — 0.5x on the H200 (2026-11-29).
    CUTE_UNROLL
    for (int e = 0; e < kEpiTiles; ++e) {
      int const sub_col0 = tile_col0 + e * kEpiN;
      bool const inside = sub_col0 < p->n;  // uniform; once false, false for the rest
      if (inside && !n_aligned && sub_col0 + kEpiN > p->n) {
        store_from_registers(accum, e, tile, row0, col0);
      } else if (inside) {
        store_through_tma(accum, e, tile, row0, col0);
      }
    }
  }

 private:
  static constexpr int kRowsPerAtom = 64 * Cfg::kMmaWarpgroups;

  struct alignas(2 * sizeof(TD)) Pair {
    TD v[2];
  };
  // alpha * acc + beta * C for values (g, v1, 0..1) of atom mi, at (row, col), (row, col + 1).
  template <class Acc>
  WL_DEVICE Pair output_pair(Acc const& accum, int g, int v1, int mi, TileCoord tile, int row,
                             int col) const {
    float x0 = alpha * accum(4 * g + 2 * v1, mi, 0);
    float x1 = alpha * accum(4 * g + 2 * v1 + 1, mi, 0);
    if (p->beta != 0.0f) {
      x0 += p->beta * load_c(tile.l, row, col);
      x1 += p->beta * load_c(tile.l, row, col + 1);
    }
    return Pair{{TD(x0), TD(x1)}};
  }

  // Subtile e through staging buffer e % kBuffers and one TMA store (the first thread).
  template <class Acc>
  WL_DEVICE void store_through_tma(Acc const& accum, int e, TileCoord tile, int row0, int col0) {
    using namespace cute;
    int const t = static_cast<int>(threadIdx.x) % kThreads;
    int const lane = t % 32;
    // Retire the store that read this buffer last. At a tile's first subtile that store may be
    // the most recent one (a tile can end after any number of TMA stores), so wait for all: they
    // were issued a whole main loop ago.
    if (t == 0) {
      if (e == 0 || kBuffers == 1) {
        tma_store_wait<0>();
      } else {
        tma_store_wait<kBuffers - 1>();
      }
    }
    warploom::sm90::named_barrier_sync(kBarrier, kThreads);

    char* const staging_bytes = reinterpret_cast<char*>(staging.get()) +
                                e % kBuffers * cosize_v<SmemLayoutEpi> * sizeof(TD);
    CUTE_UNROLL
    for (int mi = 0; mi < Cfg::kAtomsM; ++mi) {
      CUTE_UNROLL
      for (int g = e * kEpiN / 8; g < (e + 1) * kEpiN / 8; ++g) {
        CUTE_UNROLL
        for (int v1 = 0; v1 < 2; ++v1) {
          int const row = row0 + kRowsPerAtom * mi + 8 * v1;
          int const col = col0 + 8 * g;
          Pair const v =
              output_pair(accum, g, v1, mi, tile, tile.m * kTileM + row, tile.n * kTileN + col);
          // Row-major, 128 bytes per row, 16-byte chunks XOR-swizzled by row % 8 (= lane / 4).
          int const byte = row * 128 + (col % kEpiN) * static_cast<int>(sizeof(TD));
          int const swizzled = byte ^ (lane / 4 << 4);
          *reinterpret_cast<Pair*>(staging_bytes + swizzled) = v;
        }
      }
    }
    tma_store_fence();  // make the generic-proxy writes visible to the TMA (async proxy)
    warploom::sm90::named_barrier_sync(kBarrier, kThreads);

    if (t == 0) {
      warploom::sm90::tma_store_3d(&p->tma_d, staging_bytes, tile.n * kTileN + e * kEpiN,
                                   tile.m * kTileM, tile.l);
      tma_store_arrive();
    }
  }

  // Subtile e straight from registers to D, predicated on M and N.
  template <class Acc>
  WL_DEVICE void store_from_registers(Acc const& accum, int e, TileCoord tile, int row0,
                                      int col0) const {
    using cute::get;
    CUTE_UNROLL
    for (int mi = 0; mi < Cfg::kAtomsM; ++mi) {
      CUTE_UNROLL
      for (int g = e * kEpiN / 8; g < (e + 1) * kEpiN / 8; ++g) {
        CUTE_UNROLL
        for (int v1 = 0; v1 < 2; ++v1) {
          int const row = tile.m * kTileM + row0 + kRowsPerAtom * mi + 8 * v1;
          int const col = tile.n * kTileN + col0 + 8 * g;
          if (row >= p->m) continue;
          Pair const v = output_pair(accum, g, v1, mi, tile, row, col);
          TD* out = p->d + tile.l * get<2>(p->stride_d) + row * get<0>(p->stride_d) + col;
          if (col < p->n) out[0] = v.v[0];
          if (col + 1 < p->n) out[1] = v.v[1];
        }
      }
    }
  }

  // C(row, col) of batch l, or 0 outside the matrix.
  WL_DEVICE float load_c(int l, int row, int col) const {
    if (row >= p->m || col >= p->n) return 0.0f;
    using cute::get;
    return static_cast<float>(p->c[l * get<2>(p->stride_c) + row * get<0>(p->stride_c) + col]);
  }
};

}  // namespace warploom::gemm::sm90
