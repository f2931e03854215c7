// kernels/gemm/sm90/split_k_fold.cuh
//
// Split-K's fold (gemm/split_k_fold.hpp) in the cooperative design's epilogue work (works.cuh):
// in place of the epilogue, a slice's MMA threads write their tile's partial sums — alpha times
// the accumulator, the values the epilogue would have stored as the slice's D (alpha is 1 for the
// slices, times the fp8 scales) — to the tile's slot of their slice and count the slice in. The
// last to count adds every slice's slot in slice order and writes D.
//
// A slot holds one slice's partial sums of one tile, laid out by thread (partial_sums.cuh): the
// last arrival's thread t reads every slice's values of its own fragment, so only the write of D
// needs a value's place in the tile (config.cuh's fragment_row0).
//
// Ordering, as in stream-K's fix-up: every thread's stores (st.cg: the slot is read on another
// SM, through L2), the task's barrier, one thread's atomic add at GPU scope (release: the slot;
// acquire: the other slices' slots where it is last); the task's barrier again, which also tells
// every thread the result (bar.red.or); then their loads (ld.cg).
#pragma once

#include <cstdint>

#include <cuda/atomic>

#include "gemm/sm90/config.cuh"
#include "gemm/sm90/partial_sums.cuh"
#include "gemm/split_k_fold.hpp"
#include "gemm/tile_raster.hpp"
#include "warploom/ts/task_barrier.hpp"

namespace warploom::gemm::sm90 {

template <class Cfg>
struct SplitKFoldTile {
  using Accumulator = typename Cfg::Accumulator;
  using Sums = PartialSums<Cfg>;

  // Tile `tile` (of batch tile.l: the slice first_slice + tile.l) of this launch, its accumulator
  // `acc` (read after the schedule's wgmma wait), `alpha` the epilogue's (accumulator_scale).
  static WL_DEVICE void run(SplitKFold const& fold, TileRaster const& raster, TileCoord tile,
                            float alpha, Accumulator& acc, ts::ResourceContext const& task) {
    std::int64_t const index = std::int64_t{tile.m} * raster.tiles_n + tile.n;
    float4* const slots =
        reinterpret_cast<float4*>(fold.slots) + index * fold.slices * Sums::kSlotFloat4s;
    float4* const slot = slots + (fold.first_slice + tile.l) * Sums::kSlotFloat4s;
    Fragment const at(fold.out, tile);
    Sums::write(slot, acc, alpha, [&](int f) { return at.inside(f); });
    ts::sync_task(task);
    bool last = false;
    if (Sums::thread() == 0) {
      cuda::atomic_ref<int, cuda::thread_scope_device> count(fold.arrivals[index]);
      last = count.fetch_add(1, cuda::memory_order_acq_rel) == fold.slices - 1;
      if (last) count.store(0, cuda::memory_order_relaxed);  // zero again for the next launch
    }
    if (!ts::sync_task_or(task, last)) return;  // uniform
    write_sums(fold, slots, at);
  }

 private:
  static constexpr int kFloat4s = Sums::kValues / 4;  // a thread's part of a slot

  // Where this thread's values of a tile lie in the slices' output: float4 f of its fragment holds
  // values 4 f ... 4 f + 3, rows r and r + 8 and columns c and c + 1 of one m64 atom
  // (config.cuh's fragment_value_row and fragment_value_col).
  struct Fragment {
    int m, n;  // the slices' output (SplitKOutput's)
    std::int64_t row0, col0;
    WL_DEVICE Fragment(SplitKOutput const& o, TileCoord tile)
        : m(o.m),
          n(o.n),
          row0(std::int64_t{tile.m} * Cfg::kTileM + fragment_row0(Sums::thread())),
          col0(std::int64_t{tile.n} * Cfg::kTileN + fragment_col0(Sums::thread())) {}
    WL_DEVICE std::int64_t row(int v) const { return row0 + fragment_value_row<Cfg>(v); }
    WL_DEVICE std::int64_t col(int v) const { return col0 + fragment_value_col<Cfg>(v); }
    // Whether float4 f holds a value of the output: its first row and column inside (partial
    // tiles; a narrow output in a 64-wide tile, a decode step's 16 or 32 rows of D^T). The others
    // are never written to D, so neither the slot's writer nor its reader touches them.
    WL_DEVICE bool inside(int f) const { return row(4 * f) < m && col(4 * f) < n; }
  };

  // Loads in flight at once per thread, in registers beside the accumulator, which the schedule
  // keeps: a round loads kChunk of a thread's float4s of kGroup slices, every load independent,
  // then adds them in slice order. 32 float4s (128 registers) beside a 128 x 64 tile's 32 values,
  // 8 (2 of 4 slices) beside 64, 2 beside the 128 of a 256-wide tile: more spilled (8 of one
  // slice beside 64 values: 8 bytes; 16: 72).
  static constexpr int kChunk = Sums::kValues <= 32 ? 8 : 2;
  static constexpr int kGroup = Sums::kValues <= 64 ? 4 : 1;
  static_assert(kFloat4s % kChunk == 0, "a thread's float4s are whole chunks");

  // The sums of every slice's values of this thread (slice s's slot at slots + s * kSlotFloat4s),
  // added in slice order from 0 as the reduction kernel adds them, into D. One float4 of one slice
  // at a time (the first version) waited out L2's latency under the other CTAs' streaming once per
  // float4 and slice: 16 waits for a 128 x 64 tile of two slices, ~4 us at the end of every split
  // GEMM (anti-patterns/last-arrival-reduction-on-few-sms.md); now once per round. The chunk and
  // round loops are rolled (no register index of the accumulator in them), inside a round every
  // index is a constant.
  static WL_DEVICE void write_sums(SplitKFold const& fold, float4 const* slots,
                                   Fragment const& at) {
    // D's description and the slice count in registers: read through the kernel parameters'
    // pointer, they may be loaded again after every store to D (which the compiler cannot tell
    // from a store to them) — a dozen dependent loads a value.
    SplitKOutput const out = fold.out;
    int const slices = fold.slices;
#pragma unroll 1
    for (int c = 0; c < kFloat4s; c += kChunk) {
      bool keep[kChunk];
      float4 sum[kChunk];
      CUTE_UNROLL
      for (int i = 0; i < kChunk; ++i) {
        keep[i] = at.inside(c + i);
        sum[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
#pragma unroll 1
      for (int s0 = 0; s0 < slices; s0 += kGroup) {
        float4 v[kGroup][kChunk];
        CUTE_UNROLL
        for (int g = 0; g < kGroup; ++g) {
          CUTE_UNROLL
          for (int i = 0; i < kChunk; ++i) {
            v[g][i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (keep[i] && s0 + g < slices)
              v[g][i] = Sums::read(slots + (s0 + g) * Sums::kSlotFloat4s, c + i);
          }
        }
        CUTE_UNROLL
        for (int g = 0; g < kGroup; ++g) {
          if (s0 + g < slices) {  // no add past the last slice: -0 stays -0
            CUTE_UNROLL
            for (int i = 0; i < kChunk; ++i)
              sum[i].x += v[g][i].x, sum[i].y += v[g][i].y, sum[i].z += v[g][i].z,
                  sum[i].w += v[g][i].w;
          }
        }
      }
      CUTE_UNROLL
      for (int i = 0; i < kChunk; ++i) {
        if (!keep[i]) continue;
        float const sums[4] = {sum[i].x, sum[i].y, sum[i].z, sum[i].w};
        CUTE_UNROLL
        for (int j = 0; j < 4; ++j) {
          int const v = 4 * (c + i) + j;
          write_sum(out, at.row(v), at.col(v), sums[j]);
        }
      }
    }
  }
};

}  // namespace warploom::gemm::sm90
