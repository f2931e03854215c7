// kernels/tutorial/07_merge_add.cu
//
// Tutorial 07, first kernel: d = a + b through a ts::Merge group. The TS kernel, its resources,
// schedules, tasks and TaskManager are in merge_add_schedule.cuh (read it first); this file holds
// what runs it: the hand-written baseline it must match instruction for instruction, and the host
// launcher, which launches the TS kernel with the proof its schedule unit gives.
#include "merge_add.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "merge_add_schedule.cuh"
#include "row_tile_args.hpp"
#include "row_tile_launch.cuh"
#include "stage_cursor.cuh"
#include "warploom/arch/sm90/mbarrier.hpp"
#include "warploom/arch/sm90/setmaxnreg.hpp"
#include "warploom/arch/sm90/tensor_map.hpp"
#include "warploom/arch/sm90/tma.hpp"
#include "warploom/arch/sm90/warp.hpp"

namespace warploom::tutorial {
namespace {

// The baseline: the same two pipelines written by hand, with the same warps, registers and
// barriers — full_a (the TMA's bytes complete it), full_b (the load warp's 32 lanes) and one empty
// array both loads wait on, which the add threads arrive on once per stage.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    merge_add_baseline_kernel(__grid_constant__ MergeAddParams const p) {
  using Vec = rows::Vec;
  using AddTiles = typename Cfg::AddTiles;
  constexpr int kStages = Cfg::kStages;
  constexpr int kVecsPerTile = Cfg::kVecsPerTile;
  extern __shared__ __align__(128) char smem[];
  auto* tiles_a = reinterpret_cast<Vec*>(smem);      // (STAGES, TILE)
  auto* tiles_b = tiles_a + kStages * kVecsPerTile;  // (STAGES, TILE)
  auto* full_a = reinterpret_cast<sm90::Mbarrier*>(tiles_b + kStages * kVecsPerTile);
  sm90::Mbarrier* full_b = full_a + kStages;  // (STAGES)
  sm90::Mbarrier* empty = full_b + kStages;   // (STAGES)
  if (threadIdx.x == 0) {
    sm90::tma_prefetch_descriptor(&p.tma_a);
    for (int s = 0; s < kStages; ++s) {
      sm90::mbarrier_init(&full_a[s], 1);
      sm90::mbarrier_init(&full_b[s], Cfg::kLoadLanes);
      sm90::mbarrier_init(&empty[s], Cfg::kAddThreads);
    }
  }
  sm90::fence_mbarrier_init();
  __syncthreads();

  rows::Band const band = rows::band_of(p.rows, p.rows_per_cta);
  int const col = static_cast<int>(blockIdx.x) * Cfg::kTileCols;
  int const warp = sm90::warp_idx_uniform();
  // Both loads end by waiting until the add threads released every stage (no arrival on this
  // CTA's barriers may be outstanding when they exit).
  auto drain = [&](StageCursor<kStages> c) {
    for (int s = 0; s < kStages; ++s) {
      sm90::mbarrier_wait_parity(&empty[c.stage], c.phase);
      c.advance();
    }
  };
  if (warp >= 4) {
    sm90::set_max_registers<Cfg::kLoadRegisters, Cfg::Manager::kEntryRegisters>();
    if (warp == 4) {
      StageCursor<kStages> c{0, 1u};
      for (int row = band.begin; row < band.end; row += Cfg::kTileRows) {
        sm90::mbarrier_wait_parity(&empty[c.stage], c.phase);
        if (sm90::elect_one()) {
          sm90::mbarrier_arrive_expect_tx(&full_a[c.stage], Cfg::kStageBytes);
          sm90::tma_load_2d(&tiles_a[c.stage * kVecsPerTile], &p.tma_a, col, row, &full_a[c.stage]);
        }
        c.advance();
      }
      drain(c);
    } else if (warp == 5) {
      StageCursor<kStages> c{0, 1u};
      for (int row = band.begin; row < band.end; row += Cfg::kTileRows) {
        sm90::mbarrier_wait_parity(&empty[c.stage], c.phase);
        load_tile<Cfg::kTileRows>(&tiles_b[c.stage * kVecsPerTile], p.b, p.rows, p.cols, col, row);
        sm90::mbarrier_arrive(&full_b[c.stage]);
        c.advance();
      }
      drain(c);
    }
  } else {
    sm90::set_max_registers<160, Cfg::Manager::kEntryRegisters>();
    int const thread = static_cast<int>(threadIdx.x);
    StageCursor<kStages> c{0, 0u};
    for (int row = band.begin; row < band.end; row += Cfg::kTileRows) {
      sm90::mbarrier_wait_parity(&full_a[c.stage], c.phase);
      sm90::mbarrier_wait_parity(&full_b[c.stage], c.phase);
      auto const a = AddTiles::fragment_of(&tiles_a[c.stage * kVecsPerTile], thread);
      auto const b = AddTiles::fragment_of(&tiles_b[c.stage * kVecsPerTile], thread);
      sm90::mbarrier_arrive(&empty[c.stage]);
      AddTiles::store(p.d, p.rows, p.cols, col, row, thread,
                      [&](int j) { return add_halves(a.v[j], b.v[j]); });
      c.advance();
    }
  }
}

}  // namespace

void check_merge_add_args(__half const* a, __half const* b, __half const* d, int rows, int cols) {
  check_row_tile_args("merge_add", rows, cols, kMergeAddTileCols, {{"a", a}, {"b", b}, {"d", d}});
  std::uintptr_t const bytes = static_cast<std::uintptr_t>(rows) * cols * sizeof(__half);
  if (overlap(d, a, bytes) || overlap(d, b, bytes))
    throw std::invalid_argument("merge_add: `d` must share no byte with `a` or `b`");
}

void merge_add(Implementation impl, __half const* a, __half const* b, __half* d, int rows, int cols,
               cudaStream_t stream) {
  using Cfg = TutorialMergeAdd;
  check_merge_add_args(a, b, d, rows, cols);
  MergeAddParams p{};
  p.tma_a = sm90::make_tensor_map_2d<__half>(a, rows, cols, Cfg::kTileRows, Cfg::kTileCols);
  p.b = b;
  p.d = d;
  p.rows = rows;
  p.cols = cols;
  p.rows_per_cta = Cfg::kRowsPerCta;
  // The baseline's shared memory: its tiles, then three barrier arrays of 8-byte mbarriers.
  int const baseline_smem = 2 * Cfg::kStages * Cfg::kStageBytes + 3 * Cfg::kStages * 8;
  launch_row_tiles<Cfg>(impl, merge_add_ts_kernel<Cfg>, merge_add_baseline_kernel<Cfg>,
                        baseline_smem, p, stream);
}

ts::ManagerModel merge_add_model() {
  return TutorialMergeAdd::Manager::model(TutorialMergeAdd::kName);
}

}  // namespace warploom::tutorial
