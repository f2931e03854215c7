// kernels/gemm/sm90/epilogue.cuh
//
// The sm90 TS GEMMs' epilogue body for one typed configuration (config.cuh): writes
// alpha * scale_a * scale_b * acc + beta * C to D (alpha and beta from the host or read through
// alpha_ptr / beta_ptr), with the configuration's fused ops
// (epilogue_ops.cuh: scales, bias, activation, residual, pre-activation output) when it has any.
// GmemD (resources.hpp) calls it.
//
// An fp8 D (e4m3, e5m2) stores saturate(scale_d * z) and reports amax = max |z| over the tile
// (before the scale, as cuBLASLt's AMAX_D_POINTER): each thread keeps the maximum of its values,
// its warp reduces them and one lane atomically maxes it into *amax_d, the float's bits compared
// as unsigned integers (they order alike for non-negative floats); the launcher zeroes *amax_d
// first. Out-of-bounds values are 0 (TMA zero-fills A and B; an fp8 D takes no C), so they never
// raise it.
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
// A fused epilogue keeps that shape: per-row terms are folded into the row's factor once per
// tile, per-column terms loaded into registers once per subtile (one more multiply or add per
// value), and the activation, residual and pre-activation output run in a third rolled loop over
// the staged subtile (epilogue_ops.cuh says why).
// Why so careful about code size: the first epilogue handled C and the clipped store inside the
// unrolled loop — 8.9 K SASS instructions per cooperative kernel (CUTLASS's: ~2.3 K), 46 % of warp
// stalls on instruction fetch and ~6 us per output tile at short K; and a version split by beta
// doubled that past the inliner's budget, put the accumulator on the stack and serialized every
// wgmma (C7514, 0.5x; H200, 2026-11-29).
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>  // std::conditional_t
#include <utility>

#include "gemm/device_scalar.cuh"
#include "gemm/sm90/config.cuh"
#include "gemm/sm90/epilogue_ops.cuh"
#include "warploom/arch/sm90/tma.hpp"
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/task_barrier.hpp"

namespace warploom::gemm::sm90 {

// Accumulator tile kSlot's epilogue (ping-pong has one tile per warpgroup): its MMA threads are
// [kSlot * kMmaThreads, (kSlot + 1) * kMmaThreads); `staging` is its kStagingBuffers subtile
// buffers; `task` the calling task's context, whose named barrier (handed out by the TaskManager:
// ts::sync_task) syncs the task's threads.
template <class Cfg, int kSlot>
struct Epilogue {
  using TD = typename Cfg::TD;
  using Ops = typename Cfg::Epilogue;  // epi::Chain<...>; Chain<> for the plain GEMM
  using SmemLayoutEpi = typename Cfg::SmemLayoutEpi;
  static constexpr int kTileM = Cfg::kTileM, kTileN = Cfg::kTileN;
  static constexpr int kEpiN = Cfg::kEpiN, kEpiTiles = Cfg::kEpiTiles;
  static constexpr int kThreads = Cfg::kMmaThreads;
  static constexpr int kBuffers = Cfg::kStagingBuffers;
  static constexpr bool kFp8Out = sizeof(TD) == 1;
  static constexpr int kBufferBytes = cute::cosize_v<SmemLayoutEpi> * static_cast<int>(sizeof(TD));
  static_assert(kEpiN * sizeof(TD) == 128, "one 128-byte swizzle row per subtile row");

  char* staging;
  typename Cfg::Params const* p;
  ts::ResourceContext task;

  struct Scalars {
    float alpha, beta;
    int m, n;
    float scale_d;  // 1 unless D is fp8
  };

  WL_DEVICE void store(TileCoord tile, typename Cfg::Accumulator const& acc) const {
    using namespace cute;
    if (is_phantom(*p, tile)) return;
    // Read once per tile, into registers: device scalars (written by an earlier kernel, as
    // cuBLASLt's scale pointers and cuBLAS's device pointer mode) may change between launches of
    // one captured graph, and *p could alias the staging stores. A device beta of 0 skips C as a
    // host one does (store_subtile).
    Scalars const s = scalars();
    // The fence keeps the compiler from hoisting reads of the accumulator registers above the
    // wgmma_wait<0> that made them valid; it takes them as in-out operands, hence the cast
    // (the local itself is not const).
    Tensor accum = const_cast<typename Cfg::Accumulator&>(acc).tensor();
    warpgroup_fence_operand(accum);
    Rows const rows = row_terms(tile, s);

    // Subtile by subtile, each index into the accumulator a compile-time constant (else the
    // accumulator goes to local memory): the subtile is a template argument, not a loop variable.
    // For a fused chain that copies its column loads and rolled Chunk pass once per subtile too
    // (cooperative, every op: about 7 K SASS instructions against the plain kernel's 2.8 K); a
    // rolled subtile loop would share them, but keeps every accumulator live through each pass
    // and spilled 312 bytes.
    float amax = 0.0f;  // of this thread's values (fp8 D only)
    // A subtile's column terms are loaded while the one before it is finished and stored (see
    // store_subtile); the first subtile's here, beside the row terms' loads.
    Columns cols = s.beta == 0.0f ? column_terms(tile.n * kTileN, s) : Columns{};
    [&]<int... kE>(std::integer_sequence<int, kE...>) {
      (store_subtile<kE>(accum, tile, s, rows, cols, amax, staging + kE % kBuffers * kBufferBytes),
       ...);
    }
    (std::make_integer_sequence<int, kEpiTiles>{});
    if constexpr (kFp8Out) report_amax(amax);
  }

  // The epilogue split in two (a finish task: resources.hpp, Staged). The tile's MMA threads
  // stage z of subtile `subtile` (alpha * acc + beta * C, the chain's row and column terms) in
  // staging buffer `buffer`, which the pipeline handed them free; the finish task makes the second
  // pass over it and stores it. The first half of the tile's subtiles go that way; the MMA threads
  // finish and store the rest themselves meanwhile (store_subtile), and the finish task only passes
  // their buffers back: the finish task alone (3 warps, one per scheduler) took longer per tile
  // than the main loop at K = 1024 (bias + GELU 0.287 ms against 0.200 plain, 8192x8192x1024;
  // H200, 2026-12-02). The MMA threads' own stores are retired before they commit (the schedule's
  // bulk_wait_read), so the buffer goes back read.
  static constexpr int kFinishedBySelf = (kEpiTiles + 1) / 2;  // the first subtile they finish
  WL_DEVICE void stage(TileCoord tile, typename Cfg::Accumulator const& acc, int subtile,
                       int buffer) const {
    using namespace cute;
    if (is_phantom(*p, tile)) return;
    Scalars const s = scalars();
    Tensor accum = const_cast<typename Cfg::Accumulator&>(acc).tensor();
    warpgroup_fence_operand(accum);  // as in store()
    Rows const rows = row_terms(tile, s);
    float amax = 0.0f;
    // The subtile's index into the accumulator must be a compile-time constant: one branch per
    // subtile, taken uniformly.
    char* const at = staging + buffer * kBufferBytes;
    [&]<int... kE>(std::integer_sequence<int, kE...>) {
      (
          [&] {
            if (subtile != kE) return;
            if constexpr (kE < kFinishedBySelf) {
              stage_subtile<kE>(accum, tile, s, rows, at, amax);
            } else {
              Columns cols =
                  s.beta == 0.0f ? column_terms(tile.n * kTileN + kE * kEpiN, s) : Columns{};
              store_subtile<kE>(accum, tile, s, rows, cols, amax, at);
            }
          }(),
          ...);
    }
    (std::make_integer_sequence<int, kEpiTiles>{});
    if constexpr (kFp8Out) report_amax(amax);
    tma_store_fence();  // the finish task's TMA store reads what this thread wrote
  }

  // The finish task's threads (kFinishThreads from warp kFinishWarp on): the chain's second pass
  // over staged subtile `subtile` in buffer `buffer`, then its store (TMA, or the threads' own
  // where TMA would write past N).
  template <int kFinishWarp, int kFinishThreads>
  WL_DEVICE void finish_subtile(TileCoord tile, int subtile, int buffer) const {
    if (is_phantom(*p, tile) || subtile >= kFinishedBySelf) return;
    Scalars const s{.alpha = 0.0f, .beta = 0.0f, .m = p->m, .n = p->n, .scale_d = 1.0f};
    int const sub_col0 = tile.n * kTileN + subtile * kEpiN;
    if (sub_col0 >= s.n) return;  // uniform
    char* const at = staging + buffer * kBufferBytes;
    int const t = finisher<kFinishWarp>();
    finish<kFinishThreads>(at, tile, sub_col0, s, t);
    cute::tma_store_fence();
    ts::sync_task(task);
    if (s.n % kPerChunk == 0 || sub_col0 + kEpiN <= s.n) {
      if (t == 0) {
        warploom::sm90::tma_store_3d(&p->tma_d, at, sub_col0, tile.m * kTileM, tile.l);
        cute::tma_store_arrive();
      }
    } else {
      store_clipped<kFinishThreads>(at, tile, sub_col0, s, t);
    }
  }

 private:
  // The index of this thread among the finish task's, read with a volatile asm as thread() says.
  template <int kFinishWarp>
  static WL_DEVICE int finisher() {
    unsigned tid;
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tid));
    return static_cast<int>(tid) - 32 * kFinishWarp;
  }

  WL_DEVICE Scalars scalars() const {
    return {.alpha = accumulator_scale(*p),
            .beta = device_scalar(p->beta_ptr, p->beta),
            .m = p->m,
            .n = p->n,
            .scale_d = kFp8Out ? device_scalar(p->scale_d, 1.0f) : 1.0f};
  }

  // The tile's amax into *amax_d: the warp's maximum, one atomic per warp (the staging buffers
  // hold no spare bytes for a reduction across warps).
  WL_DEVICE void report_amax(float amax) const {
    if (p->amax_d == nullptr) return;  // uniform
    unsigned const bits = __reduce_max_sync(0xffffffffu, __float_as_uint(amax));
    if (thread() % 32 == 0) atomicMax(reinterpret_cast<unsigned*>(p->amax_d), bits);
  }
  struct alignas(2 * sizeof(TD)) Pair {
    TD v[2];
  };
  static constexpr int kPerChunk = 16 / static_cast<int>(sizeof(TD));  // elements per 16 bytes
  static constexpr int kGroups = kEpiN / 8;  // a thread's column pairs per subtile

  // This thread's folded row terms (its rows row0 + fragment_atom_row(mi, v1)), and its column
  // terms of one subtile: empty unless the chain has ops of that phase.
  struct RowsOf {
    epi::RowTerms at[Cfg::kAtomsM][2];
  };
  struct ColumnsOf {
    epi::ColumnTerms at[kGroups];
  };
  struct None {};
  using Rows = std::conditional_t<Ops::kRowTerms, RowsOf, None>;
  using Columns = std::conditional_t<Ops::kColumnTerms, ColumnsOf, None>;

  // This thread's index among the tile's MMA threads. With a fused chain it is read with a
  // volatile asm, which the compiler recomputes in each epilogue instead of hoisting the addresses
  // derived from it out of the persistent loop, where they live through the main loop beside the
  // accumulators: with every op the fused epilogue's extra registers pushed them to the stack
  // (cooperative 4-24 bytes, ping-pong 152 bytes of spills). The plain GEMM keeps its code.
  static WL_DEVICE int thread() {
    if constexpr (Ops::kFused) {
      unsigned tid;
      asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tid));
      return static_cast<int>(tid) % kThreads;
    } else {
      return static_cast<int>(threadIdx.x) % kThreads;
    }
  }

  WL_DEVICE Rows row_terms([[maybe_unused]] TileCoord tile,
                           [[maybe_unused]] Scalars const& s) const {
    Rows rows{};
    if constexpr (Ops::kRowTerms) {
      int const row0 = tile.m * kTileM + fragment_row0(thread());
      CUTE_UNROLL
      for (int mi = 0; mi < Cfg::kAtomsM; ++mi) {
        CUTE_UNROLL
        for (int v1 = 0; v1 < 2; ++v1) {
          epi::RowTerms t{.scale = s.alpha, .bias = 0.0f};
          Ops::rows(p->epilogue, row0 + fragment_atom_row<Cfg>(mi, v1), s.m, t);
          rows.at[mi][v1] = t;
        }
      }
    }
    return rows;
  }

  WL_DEVICE Columns column_terms([[maybe_unused]] int sub_col0,
                                 [[maybe_unused]] Scalars const& s) const {
    Columns cols{};
    if constexpr (Ops::kColumnTerms) {
      int const col0 = sub_col0 + fragment_col0(thread());
      CUTE_UNROLL
      for (int g = 0; g < kGroups; ++g) {
        epi::ColumnTerms t{.scale = {1.0f, 1.0f}, .bias = {0.0f, 0.0f}};
        Ops::columns(p->epilogue, col0 + fragment_group_col(g), s.n, t);
        cols.at[g] = t;
      }
    }
    return cols;
  }

  // stage()'s subtile kE: C into the buffer if beta != 0, then the accumulator values.
  template <int kE, class Acc>
  WL_DEVICE void stage_subtile(Acc const& accum, TileCoord tile, Scalars const& s, Rows const& rows,
                               char* buffer, float& amax) const {
    int const sub_col0 = tile.n * kTileN + kE * kEpiN;
    if (sub_col0 >= s.n) return;  // uniform
    // Uniform: one branch per subtile, C's part compiled in only where taken (stage_values).
    if (s.beta != 0.0f) {
      load_c(buffer, tile, sub_col0, s);
      ts::sync_task(task);
      stage_values<kE, true>(accum, buffer, s, rows, column_terms(sub_col0, s), amax);
    } else {
      stage_values<kE, false>(accum, buffer, s, rows, column_terms(sub_col0, s), amax);
    }
  }

  // Subtile kE through `buffer`: C into it if beta != 0, the accumulator values in, the chain's
  // second pass, then a TMA store or, clipped at N, the threads' own stores. Nothing beyond N.
  template <int kE, class Acc>
  WL_DEVICE void store_subtile(Acc const& accum, TileCoord tile, Scalars const& s, Rows const& rows,
                               Columns& cols, float& amax, char* buffer) const {
    using namespace cute;
    int const sub_col0 = tile.n * kTileN + kE * kEpiN;
    if (sub_col0 >= s.n) return;  // uniform
    int const t = thread();
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
    ts::sync_task(task);
    // This subtile's column terms: loaded during the previous subtile (or with the row terms), so
    // that their global-memory latency hides behind its finish and store; with C they are loaded
    // only now, after load_c: held across it, the terms of a chain with both col_scale and a
    // column bias spilled (24 bytes, cooperative).
    if (with_c) {
      load_c(buffer, tile, sub_col0, s);
      ts::sync_task(task);
      cols = column_terms(sub_col0, s);
      stage_values<kE, true>(accum, buffer, s, rows, cols, amax);
    } else {
      stage_values<kE, false>(accum, buffer, s, rows, cols, amax);
      if constexpr (kE + 1 < kEpiTiles) cols = column_terms(sub_col0 + kEpiN, s);  // the next's
    }
    if constexpr (Ops::kChunks) {
      ts::sync_task(task);  // every z of the subtile staged
      finish(buffer, tile, sub_col0, s, t);
    }
    tma_store_fence();  // make the generic-proxy writes visible to the TMA (async proxy)
    ts::sync_task(task);
    if (s.n % kPerChunk == 0 || sub_col0 + kEpiN <= s.n) {
      if (t == 0) {
        warploom::sm90::tma_store_3d(&p->tma_d, buffer, sub_col0, tile.m * kTileM, tile.l);
        tma_store_arrive();
      }
    } else {
      store_clipped(buffer, tile, sub_col0, s, t);
    }
  }

  // Byte offset of (row, byte) in a staging buffer: row-major, 128 bytes per row, 16-byte chunks
  // XOR-swizzled by row % 8 (cute's Swizzle<3, 4, 3>, the TMA's 128B swizzle).
  static WL_DEVICE int swizzled(int row, int byte) {
    // Unsigned (row and byte are never negative): row % 8 of a signed int costs a sign fix-up.
    auto const r = static_cast<unsigned>(row);
    return static_cast<int>((r * 128u + static_cast<unsigned>(byte)) ^ ((r & 7u) << 4));
  }

  // This thread's accumulator values of subtile kE, alpha * acc (+ beta * the C in the buffer),
  // into the buffer; with a fused chain z: the row factor for alpha, times the column scale, plus
  // the bias; for an fp8 D, times scale_d after amax took |z|. Where the values sit (PTX ISA,
  // "wgmma .m64nNk16 register fragment D"): value v0 + 2 v1 + 4 g of atom mi is row row0 + 64 W mi
  // + 8 v1, column col0 + v0 + 8 g, for W warpgroups sharing the tile (warpgroup w starts at row 64
  // w): config.cuh's fragment_atom_row and fragment_group_col.
  // C's part is compiled in only for kWithC, chosen by one uniform branch per subtile: as a
  // run-time test inside this loop, ptxas predicated it and every pair issued C's shared-memory
  // load, unpacking and multiply-adds even with beta = 0 (~300 instructions per tile and thread,
  // ncu's source view, 2026-12-02).
  template <int kE, bool kWithC, class Acc>
  WL_DEVICE void stage_values(Acc const& accum, char* buffer, Scalars const& s,
                              [[maybe_unused]] Rows const& rows,
                              [[maybe_unused]] Columns const& cols,
                              [[maybe_unused]] float& amax) const {
    int const t = thread();
    int const row0 = fragment_row0(t);
    int const col0 = fragment_col0(t);
    CUTE_UNROLL
    for (int mi = 0; mi < Cfg::kAtomsM; ++mi) {
      CUTE_UNROLL
      for (int g = kE * kEpiN / 8; g < (kE + 1) * kEpiN / 8; ++g) {
        CUTE_UNROLL
        for (int v1 = 0; v1 < 2; ++v1) {
          int const row = row0 + fragment_atom_row<Cfg>(mi, v1);
          int const col = col0 + fragment_group_col(g);
          auto* const slot = reinterpret_cast<Pair*>(
              buffer + swizzled(row, (col % kEpiN) * static_cast<int>(sizeof(TD))));
          float alpha = s.alpha;
          if constexpr (Ops::kRowTerms) alpha = rows.at[mi][v1].scale;
          float x0 = alpha * accum(4 * g + 2 * v1, mi, 0);
          float x1 = alpha * accum(4 * g + 2 * v1 + 1, mi, 0);
          if constexpr (Ops::kColumnScale) {
            x0 *= cols.at[g - kE * kGroups].scale.x;
            x1 *= cols.at[g - kE * kGroups].scale.y;
          }
          if constexpr (kWithC) {
            Pair const c = *slot;
            x0 += s.beta * static_cast<float>(c.v[0]);
            x1 += s.beta * static_cast<float>(c.v[1]);
          }
          if constexpr (Ops::kRowBias) {
            x0 += rows.at[mi][v1].bias;
            x1 += rows.at[mi][v1].bias;
          }
          if constexpr (Ops::kColumnBias) {
            x0 += cols.at[g - kE * kGroups].bias.x;
            x1 += cols.at[g - kE * kGroups].bias.y;
          }
          if constexpr (kFp8Out) {
            amax = fmaxf(amax, fmaxf(fabsf(x0), fabsf(x1)));
            x0 *= s.scale_d;
            x1 *= s.scale_d;
          }
          *slot = Pair{{TD(x0), TD(x1)}};  // CuTe's fp8 conversions saturate (satfinite)
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
    int const t = thread();
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

  // The Chunk ops on the staged subtile, in place: each 16-byte chunk read, its kPerChunk values
  // of z handed to the chain in fp32 (pre_activation stored, activated, residual added), written
  // back. Rows by row (consecutive threads on consecutive chunks of a row), or down the columns
  // when a matrix of the chain is column-major (consecutive threads on consecutive rows); either
  // walk reads the swizzled buffer without bank conflicts beyond the 16-byte accesses' own four
  // wavefronts per warp.
  template <int kPassThreads = kThreads>
  WL_DEVICE void finish(char* buffer, TileCoord tile, int sub_col0, Scalars const& s,
                        int thread_index) const {
    constexpr int kChunksPerRow = kEpiN / kPerChunk;
    constexpr int kChunks = kTileM * kChunksPerRow;
    struct alignas(16) Run {
      TD v[kPerChunk];
    };
    auto const t = static_cast<unsigned>(thread_index);
    bool const by_column = Ops::walks_columns(p->epilogue);
    // Unsigned: the divisions and remainders by powers of two become shifts and masks (signed, they
    // cost about 10 of the loop's instructions per chunk).
    auto const row_of = [&](unsigned i) {
      return static_cast<int>(by_column ? i % kTileM : i / kChunksPerRow);
    };
    auto const chunk_of = [&](unsigned i) {
      return static_cast<int>(by_column ? i / kTileM : i % kChunksPerRow);
    };
    auto const run_at = [&](unsigned i) {
      return reinterpret_cast<Run*>(buffer + swizzled(row_of(i), chunk_of(i) * 16));
    };
    // The next chunk is read before this one is worked on: written in that order, its load is
    // in flight during the activation (the compiler may not move a shared load above a shared
    // store it cannot tell apart from it, so the rolled loop alone waited for each load). It is
    // held as four words, not as TD's elements (unpack says why).
    uint4 next{};
    if (t < unsigned{kChunks}) next = *reinterpret_cast<uint4 const*>(run_at(t));
#pragma unroll 1
    for (unsigned i = t; i < unsigned{kChunks}; i += unsigned{kPassThreads}) {
      int const r = row_of(i);
      int const chunk = chunk_of(i);
      auto* const at = run_at(i);
      epi::Chunk<kPerChunk> c{.v = {},
                              .row = tile.m * kTileM + r,
                              .col = sub_col0 + chunk * kPerChunk,
                              .l = tile.l,
                              .m = s.m,
                              .n = s.n};
      unpack(next, c.v);
      if (i + unsigned{kPassThreads} < unsigned{kChunks}) {
        next = *reinterpret_cast<uint4 const*>(run_at(i + kPassThreads));
      }
      Ops::template chunk<TD>(p->epilogue, c);
      Run run;
      CUTE_UNROLL
      for (int j = 0; j < kPerChunk; ++j) run.v[j] = TD(c.v[j]);
      *at = run;
    }
  }

  // A staged 16-byte chunk's values in fp32. bf16 by its bits (a bf16 is the top half of the float
  // it widens to): one shift or mask a value. Through an array of TD, the compiler kept each 16-bit
  // element of the prefetched chunk in a register of its own and merged them back with byte
  // permutes, three instructions a value in the rolled pass (SASS, 2026-12-06).
  static WL_DEVICE void unpack(uint4 const& chunk, float (&v)[kPerChunk]) {
    if constexpr (std::is_same_v<TD, cute::bfloat16_t>) {
      std::uint32_t const words[4] = {chunk.x, chunk.y, chunk.z, chunk.w};
      CUTE_UNROLL
      for (int k = 0; k < 4; ++k) {
        v[2 * k] = __uint_as_float(words[k] << 16);  // element 2k: the word's low half
        v[2 * k + 1] = __uint_as_float(words[k] & 0xffff0000u);
      }
    } else {
      // Stored whole into an array of TD (NVRTC has no memcpy builtin).
      alignas(16) TD elements[kPerChunk];
      static_assert(sizeof(elements) == sizeof(uint4));
      *reinterpret_cast<uint4*>(elements) = chunk;
      CUTE_UNROLL
      for (int j = 0; j < kPerChunk; ++j) v[j] = static_cast<float>(elements[j]);
    }
  }

  // The subtile's part inside D, from the buffer, element by element (consecutive threads on
  // consecutive columns).
  template <int kStoreThreads = kThreads>
  WL_DEVICE void store_clipped(char* buffer, TileCoord tile, int sub_col0, Scalars const& s,
                               int t) const {
    using cute::get;
    TD* const d = p->d + tile.l * get<2>(p->stride_d);
    std::int64_t const ldd = get<0>(p->stride_d);
#pragma unroll 1
    for (int i = t; i < kTileM * kEpiN; i += kStoreThreads) {
      int const row = tile.m * kTileM + i / kEpiN, col = sub_col0 + i % kEpiN;
      if (row < s.m && col < s.n) {
        d[row * ldd + col] = *reinterpret_cast<TD const*>(
            buffer + swizzled(i / kEpiN, i % kEpiN * static_cast<int>(sizeof(TD))));
      }
    }
  }
};

}  // namespace warploom::gemm::sm90
