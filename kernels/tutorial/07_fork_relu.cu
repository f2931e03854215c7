// kernels/tutorial/07_fork_relu.cu
//
// Tutorial 07, the Fork kernel: d = x and r = max(x, 0) from one TMA read of x, through a
// ts::Fork group. The TS kernel, its resources, schedules, tasks and TaskManager are in
// fork_relu_schedule.cuh (read it first); this file holds what runs it: the hand-written baseline
// it must match instruction for instruction, and the host launcher, which launches the TS kernel
// with the proof its schedule unit gives.
#include "fork_relu.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "fork_relu_schedule.cuh"
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

// The baseline: the same fork written by hand, with the same warps, registers and barriers — one
// full array (the TMA's bytes complete it) and an empty array per reader, both of which the load
// waits on before it refills a stage.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    fork_relu_baseline_kernel(__grid_constant__ ForkReluParams const p) {
  using Vec = rows::Vec;
  using ReaderTiles = typename Cfg::ReaderTiles;
  constexpr int kStages = Cfg::kStages;
  constexpr int kVecsPerTile = Cfg::kVecsPerTile;
  extern __shared__ __align__(128) char smem[];
  auto* tiles = reinterpret_cast<Vec*>(smem);  // (STAGES, TILE): the one buffer both read
  auto* full = reinterpret_cast<sm90::Mbarrier*>(tiles + kStages * kVecsPerTile);  // (STAGES)
  sm90::Mbarrier* empty_store = full + kStages;                                    // (STAGES)
  sm90::Mbarrier* empty_relu = empty_store + kStages;                              // (STAGES)
  if (threadIdx.x == 0) {
    sm90::tma_prefetch_descriptor(&p.tma_x);
    for (int s = 0; s < kStages; ++s) {
      sm90::mbarrier_init(&full[s], 1);
      sm90::mbarrier_init(&empty_store[s], Cfg::kReaderThreads);
      sm90::mbarrier_init(&empty_relu[s], Cfg::kReaderThreads);
    }
  }
  sm90::fence_mbarrier_init();
  __syncthreads();

  rows::Band const band = rows::band_of(p.rows, p.rows_per_cta);
  int const col = static_cast<int>(blockIdx.x) * Cfg::kTileCols;
  int const warp = sm90::warp_idx_uniform();
  if (warp >= 8) {
    sm90::set_max_registers<40, Cfg::Manager::kEntryRegisters>();
    if (warp == 8) {
      StageCursor<kStages> c{0, 1u};
      for (int row = band.begin; row < band.end; row += Cfg::kTileRows) {
        sm90::mbarrier_wait_parity(&empty_store[c.stage], c.phase);
        if (sm90::elect_one()) sm90::mbarrier_arrive_expect_tx(&full[c.stage], Cfg::kStageBytes);
        sm90::mbarrier_wait_parity(&empty_relu[c.stage], c.phase);
        if (sm90::elect_one())
          sm90::tma_load_2d(&tiles[c.stage * kVecsPerTile], &p.tma_x, col, row, &full[c.stage]);
        c.advance();
      }
      // Drain: both readers released every stage before the load exits.
      for (sm90::Mbarrier* empty : {empty_store, empty_relu}) {
        StageCursor<kStages> d = c;
        for (int s = 0; s < kStages; ++s) {
          sm90::mbarrier_wait_parity(&empty[d.stage], d.phase);
          d.advance();
        }
      }
    }
  } else {
    sm90::set_max_registers<160, Cfg::Manager::kEntryRegisters>();
    // One loop per reader, each in its own branch, as the TS kernel's tasks are.
    auto read = [&](auto relu, sm90::Mbarrier* empty, __half* dst, int thread) {
      StageCursor<kStages> c{0, 0u};
      for (int row = band.begin; row < band.end; row += Cfg::kTileRows) {
        sm90::mbarrier_wait_parity(&full[c.stage], c.phase);
        auto const f = ReaderTiles::fragment_of(&tiles[c.stage * kVecsPerTile], thread);
        sm90::mbarrier_arrive(&empty[c.stage]);
        ReaderTiles::store(dst, p.rows, p.cols, col, row, thread, [&](int j) {
          if constexpr (decltype(relu)::value) return relu_halves(f.v[j]);
          return f.v[j];
        });
        c.advance();
      }
    };
    int const thread = static_cast<int>(threadIdx.x);
    if (warp < 4) {
      read(std::false_type{}, empty_store, p.d, thread);
    } else {
      read(std::true_type{}, empty_relu, p.r, thread - Cfg::kReaderThreads);
    }
  }
}

}  // namespace

void check_fork_relu_args(__half const* x, __half const* d, __half const* r, int rows, int cols) {
  check_row_tile_args("fork_relu", rows, cols, kForkReluTileCols, {{"x", x}, {"d", d}, {"r", r}});
  std::uintptr_t const bytes = static_cast<std::uintptr_t>(rows) * cols * sizeof(__half);
  if (overlap(d, x, bytes) || overlap(r, x, bytes) || overlap(d, r, bytes))
    throw std::invalid_argument(
        "fork_relu: `d` and `r` must share no byte with `x` or with each other");
}

void fork_relu(Implementation impl, __half const* x, __half* d, __half* r, int rows, int cols,
               cudaStream_t stream) {
  using Cfg = TutorialForkRelu;
  check_fork_relu_args(x, d, r, rows, cols);
  ForkReluParams p{};
  p.tma_x = sm90::make_tensor_map_2d<__half>(x, rows, cols, Cfg::kTileRows, Cfg::kTileCols);
  p.d = d;
  p.r = r;
  p.rows = rows;
  p.cols = cols;
  p.rows_per_cta = Cfg::kRowsPerCta;
  // The baseline's shared memory: its tiles, then three barrier arrays of 8-byte mbarriers.
  int const baseline_smem = Cfg::kStages * Cfg::kStageBytes + 3 * Cfg::kStages * 8;
  launch_row_tiles<Cfg>(impl, fork_relu_ts_kernel<Cfg>, fork_relu_baseline_kernel<Cfg>,
                        baseline_smem, p, stream);
}

ts::ManagerModel fork_relu_model() {
  return TutorialForkRelu::Manager::model(TutorialForkRelu::kName);
}

}  // namespace warploom::tutorial
