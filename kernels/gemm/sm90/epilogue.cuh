// kernels/gemm/sm90/epilogue.cuh
//
// The sm90 TS GEMMs' epilogue body for one typed configuration (config.cuh): writes
// alpha * scale_a * scale_b * acc + beta * C to D. GmemD (resources.hpp) calls it.
//
// The MMA threads of one accumulator tile stage it in shared memory, one subtile of
// kTileM x kEpiN at a time (one 128-byte, 128B-swizzled row per tile row), and their first thread
// stores each subtile with TMA, which clips rows beyond M. kStagingBuffers buffers alternate: a
// buffer is rewritten only once the TMA store that read it retired (bulk wait_group.read).
//
// The accumulator is read by one fully unrolled loop only (its register indices must be
// compile-time constants), and that loop is kept short: per value pair one multiply (or, with C,
// one fused multiply-add on a value already in shared memory) and one shared-memory store. All
// bounds checks happen in two rolled loops that never touch the accumulator:
//   - with beta != 0 the threads first copy the C subtile into the staging buffer (zeros outside
//     the matrix), and the unrolled loop updates it in place;
//   - TMA clips a store along its contiguous dimension in 16-byte units (measured on the H200:
//     with N = 257 bf16 it writes columns 257-263, the caller's padding), so a subtile that crosses
//     N where N is not a multiple of 16 bytes is copied from the staging buffer to D by the
//     threads, element by element; subtiles entirely beyond N are skipped.
// Why so careful about code size: the first epilogue handled C and the clipped store inside the
// unrolled loop — 8.9 K SASS instructions per cooperative kernel (CUTLASS's: ~2.3 K), 46 % of warp
// stalls on instruction fetch and ~6 us per output tile at short K; and a version split by beta
// doubled that past the inliner's budget, put the accumulator on the stack and serialized every
// wgmma (C7514, 0.5x; H200, 2026-11-29).
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "gemm/sm90/config.cuh"
#include "warploom/arch/sm90/tma.hpp"
#include "warploom/arch/sm90/warp.hpp"

namespace warploom::gemm::sm90 {

// Accumulator tile kSlot's epilogue (ping-pong has one tile per warpgroup): its MMA threads are
// [kSlot * kMmaThreads, (kSlot + 1) * kMmaThreads) and sync on named barrier 1 + kSlot; `staging`
// is its kStagingBuffers subtile buffers.
template <class Cfg, int kSlot>
struct Epilogue {
  using TD = typename Cfg::TD;
  using SmemLayoutEpi = typename Cfg::SmemLayoutEpi;
  static constexpr int kTileM = Cfg::kTileM, kTileN = Cfg::kTileN;
  static constexpr int kEpiN = Cfg::kEpiN, kEpiTiles = Cfg::kEpiTiles;
  static constexpr int kThreads = Cfg::kMmaThreads;
  static constexpr int kBuffers = Cfg::kStagingBuffers;
  static constexpr int kBarrier = 1 + kSlot;  // 0 is __syncthreads'
  static constexpr int kBufferBytes = cute::cosize_v<SmemLayoutEpi> * static_cast<int>(sizeof(TD));
  static_assert(kEpiN * sizeof(TD) == 128, "one 128-byte swizzle row per subtile row");

  char* staging;
  typename Cfg::Params const* p;

  WL_DEVICE void store(TileCoord tile, typename Cfg::Accumulator const& acc) const {
    using namespace cute;
    if (is_phantom(*p, tile)) return;
    // Read once per tile, into registers: the scales live in device memory (written by an
    // earlier kernel, as cuBLASLt's scale pointers), and *p could alias the staging stores.
    Scalars const s{.alpha = p->alpha * (p->scale_a != nullptr ? *p->scale_a : 1.0f) *
                             (p->scale_b != nullptr ? *p->scale_b : 1.0f),
                    .beta = p->beta,
                    .m = p->m,
                    .n = p->n};
    // The fence keeps the compiler from hoisting reads of the accumulator registers above the
    // wgmma_wait<0> that made them valid; it takes them as in-out operands, hence the cast
    // (the local itself is not const).
    Tensor accum = const_cast<typename Cfg::Accumulator&>(acc).tensor();
    warpgroup_fence_operand(accum);

    // Subtile by subtile, each index into the accumulator a compile-time constant (else the
    // accumulator goes to local memory): the subtile is a template argument, not a loop variable.
    [&]<int... kE>(std::integer_sequence<int, kE...>) {
      (store_subtile<kE>(accum, tile, s), ...);
    }
    (std::make_integer_sequence<int, kEpiTiles>{});
  }

 private:
  struct Scalars {
    float alpha, beta;
    int m, n;
  };
  struct alignas(2 * sizeof(TD)) Pair {
    TD v[2];
  };
  static constexpr int kRowsPerAtom = 64 * Cfg::kMmaWarpgroups;
  static constexpr int kPerChunk = 16 / static_cast<int>(sizeof(TD));  // elements per 16 bytes

  // Subtile kE through staging buffer kE % kBuffers: C into it if beta != 0, the accumulator
  // values in, then a TMA store or, clipped at N, the threads' own stores. Nothing beyond N.
  template <int kE, class Acc>
  WL_DEVICE void store_subtile(Acc const& accum, TileCoord tile, Scalars const& s) const {
    using namespace cute;
    int const sub_col0 = tile.n * kTileN + kE * kEpiN;
    if (sub_col0 >= s.n) return;  // uniform
    int const t = static_cast<int>(threadIdx.x) % kThreads;
    char* const buffer = staging + kE % kBuffers * kBufferBytes;
    bool const with_c = s.beta != 0.0f;
    // Retire the store that read this buffer last. At a tile's first subtile that store may be
    // the most recent one (a tile can end after any number of TMA stores), so wait for all: they
    // were issued a whole main loop ago.
    if (t == 0) {
      if constexpr (kE == 0 || kBuffers == 1) {
        tma_store_wait<0>();
      } else {
        tma_store_wait<kBuffers - 1>();
      }
    }
    warploom::sm90::named_barrier_sync(kBarrier, kThreads);
    if (with_c) {
      load_c(buffer, tile, sub_col0, s);
      warploom::sm90::named_barrier_sync(kBarrier, kThreads);
    }
    stage_values<kE>(accum, buffer, s, with_c);
    tma_store_fence();  // make the generic-proxy writes visible to the TMA (async proxy)
    warploom::sm90::named_barrier_sync(kBarrier, kThreads);
    if (s.n % kPerChunk == 0 || sub_col0 + kEpiN <= s.n) {
      if (t == 0) {
        warploom::sm90::tma_store_3d(&p->tma_d, buffer, sub_col0, tile.m * kTileM, tile.l);
        tma_store_arrive();
      }
    } else {
      store_clipped(buffer, tile, sub_col0, s);
    }
  }

  // Byte offset of (row, byte) in a staging buffer: row-major, 128 bytes per row, 16-byte chunks
  // XOR-swizzled by row % 8 (cute's Swizzle<3, 4, 3>, the TMA's 128B swizzle).
  static WL_DEVICE int swizzled(int row, int byte) { return (row * 128 + byte) ^ (row % 8 << 4); }

  // This thread's accumulator values of subtile kE, alpha * acc (+ beta * the C in the buffer),
  // into the buffer. Where the values sit (PTX ISA, "wgmma .m64nNk16 register fragment D"):
  // value v0 + 2 v1 + 4 g of atom mi is row row0 + 64 W mi + 8 v1, column col0 + v0 + 8 g, for W
  // warpgroups sharing the tile (warpgroup w starts at row 64 w).
  template <int kE, class Acc>
  WL_DEVICE void stage_values(Acc const& accum, char* buffer, Scalars const& s, bool with_c) const {
    int const t = static_cast<int>(threadIdx.x) % kThreads;
    int const lane = t % 32;
    int const row0 = t / 128 * 64 + t % 128 / 32 * 16 + lane / 4;
    int const col0 = lane % 4 * 2;
    CUTE_UNROLL
    for (int mi = 0; mi < Cfg::kAtomsM; ++mi) {
      CUTE_UNROLL
      for (int g = kE * kEpiN / 8; g < (kE + 1) * kEpiN / 8; ++g) {
        CUTE_UNROLL
        for (int v1 = 0; v1 < 2; ++v1) {
          int const row = row0 + kRowsPerAtom * mi + 8 * v1;
          int const col = col0 + 8 * g;
          auto* const slot = reinterpret_cast<Pair*>(
              buffer + swizzled(row, (col % kEpiN) * static_cast<int>(sizeof(TD))));
          float x0 = s.alpha * accum(4 * g + 2 * v1, mi, 0);
          float x1 = s.alpha * accum(4 * g + 2 * v1 + 1, mi, 0);
          if (with_c) {
            Pair const c = *slot;
            x0 += s.beta * static_cast<float>(c.v[0]);
            x1 += s.beta * static_cast<float>(c.v[1]);
          }
          *slot = Pair{{TD(x0), TD(x1)}};
        }
      }
    }
  }

  // C's part of the subtile into the buffer, zeros outside C (their outputs are never stored):
  // 16-byte chunks, consecutive threads on consecutive chunks of a row; whole chunks with one
  // vector load where C allows it, else element by element.
  WL_DEVICE void load_c(char* buffer, TileCoord tile, int sub_col0, Scalars const& s) const {
    using cute::get;
    constexpr int kChunks = kTileM * kEpiN / kPerChunk;
    static_assert(kChunks % kThreads == 0);
    int const t = static_cast<int>(threadIdx.x) % kThreads;
    TD const* const c = p->c + tile.l * get<2>(p->stride_c);
    std::int64_t const ldc = get<0>(p->stride_c);
    bool const vectors = ldc % kPerChunk == 0 && reinterpret_cast<std::uintptr_t>(c) % 16 == 0;
    CUTE_UNROLL
    for (int i = t; i < kChunks; i += kThreads) {
      int const r = i / (kEpiN / kPerChunk), chunk = i % (kEpiN / kPerChunk);
      int const row = tile.m * kTileM + r, col = sub_col0 + chunk * kPerChunk;
      char* const dst = buffer + swizzled(r, chunk * 16);
      TD const* const src = c + (row < s.m ? row : 0) * ldc + col;
      if (row < s.m && vectors && col + kPerChunk <= s.n) {
        *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<uint4 const*>(src);
      } else {
#pragma unroll 1
        for (int j = 0; j < kPerChunk; ++j) {
          reinterpret_cast<TD*>(dst)[j] = row < s.m && col + j < s.n ? src[j] : TD(0);
        }
      }
    }
  }

  // The subtile's part inside D, from the buffer, element by element (consecutive threads on
  // consecutive columns).
  WL_DEVICE void store_clipped(char* buffer, TileCoord tile, int sub_col0, Scalars const& s) const {
    using cute::get;
    int const t = static_cast<int>(threadIdx.x) % kThreads;
    TD* const d = p->d + tile.l * get<2>(p->stride_d);
    std::int64_t const ldd = get<0>(p->stride_d);
#pragma unroll 1
    for (int i = t; i < kTileM * kEpiN; i += kThreads) {
      int const row = tile.m * kTileM + i / kEpiN, col = sub_col0 + i % kEpiN;
      if (row < s.m && col < s.n) {
        d[row * ldd + col] = *reinterpret_cast<TD const*>(
            buffer + swizzled(i / kEpiN, i % kEpiN * static_cast<int>(sizeof(TD))));
      }
    }
  }
};

}  // namespace warploom::gemm::sm90
