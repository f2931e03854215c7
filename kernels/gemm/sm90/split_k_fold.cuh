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
    Sums::write(slots + (fold.first_slice + tile.l) * Sums::kSlotFloat4s, acc, alpha);
    ts::sync_task(task);
    bool last = false;
    if (Sums::thread() == 0) {
      cuda::atomic_ref<int, cuda::thread_scope_device> count(fold.arrivals[index]);
      last = count.fetch_add(1, cuda::memory_order_acq_rel) == fold.slices - 1;
      if (last) count.store(0, cuda::memory_order_relaxed);  // zero again for the next launch
    }
    if (!ts::sync_task_or(task, last)) return;  // uniform
    write_sums(fold, slots, tile);
  }

 private:
  // The sums of every slice's values of this thread (slice s's slot at slots + s * kSlotFloat4s),
  // added in slice order from 0 as the reduction kernel adds them, into D. A rolled loop: the
  // accumulator is not read, so no register index needs to be a constant.
  static WL_DEVICE void write_sums(SplitKFold const& fold, float4 const* slots, TileCoord tile) {
    int const t = Sums::thread();
    std::int64_t const row0 = std::int64_t{tile.m} * Cfg::kTileM + fragment_row0(t);
    std::int64_t const col0 = std::int64_t{tile.n} * Cfg::kTileN + fragment_col0(t);
#pragma unroll 1
    for (int i = 0; i < Sums::kValues / 4; ++i) {
      float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll 4
      for (int s = 0; s < fold.slices; ++s) {
        float4 const v = Sums::read(slots + s * Sums::kSlotFloat4s, i);
        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
      }
      float const sums[4] = {sum.x, sum.y, sum.z, sum.w};
      CUTE_UNROLL
      for (int j = 0; j < 4; ++j) {
        // Value v of the fragment: k = 4 g + 2 v1 + c of m64 atom mi (config.cuh).
        int const v = 4 * i + j, mi = v / Sums::kPerAtom, k = v % Sums::kPerAtom;
        write_sum(fold.out, row0 + 64 * Cfg::kMmaWarpgroups * mi + 8 * (k / 2 % 2),
                  col0 + 8 * (k / 4) + k % 2, sums[j]);
      }
    }
  }
};

}  // namespace warploom::gemm::sm90
