// kernels/tutorial/02_tma_copy.cu
//
// Tutorial 02: TMA copy. The TS kernel, its resources, schedules, tasks and TaskManager are in
// tma_copy_schedule.cuh (read it first); this file holds what runs it: the hand-written baseline
// it must match instruction for instruction, and the host launchers, which launch the TS kernel
// with the proof its schedule unit gives.
#include "tma_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tma_copy_schedule.cuh"
#include "warploom/arch/sm90/mbarrier.hpp"
#include "warploom/arch/sm90/setmaxnreg.hpp"
#include "warploom/arch/sm90/tensor_map.hpp"
#include "warploom/arch/sm90/tma.hpp"
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/launch.hpp"

namespace warploom::tutorial {
namespace {

// The baseline: the same pipeline written by hand, with the same warps, registers and barriers.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    tma_copy_baseline_kernel(__grid_constant__ TmaCopyParams const p) {
  using Vec = typename Cfg::Vec;
  constexpr int kStages = Cfg::kStages;
  extern __shared__ __align__(128) char smem[];
  auto* tiles = reinterpret_cast<Vec*>(smem);  // (STAGES, TILE)
  auto* full = reinterpret_cast<sm90::Mbarrier*>(smem + kStages * Cfg::kStageBytes);  // (STAGES)
  sm90::Mbarrier* empty = full + kStages;                                             // (STAGES)
  if (threadIdx.x == 0) {
    sm90::tma_prefetch_descriptor(&p.tma);
    for (int s = 0; s < kStages; ++s) {
      sm90::mbarrier_init(&full[s], 1);
      sm90::mbarrier_init(&empty[s], Cfg::kStoreThreads);
    }
  }
  sm90::fence_mbarrier_init();
  __syncthreads();

  RowBand const band = row_band(p);
  int const col = static_cast<int>(blockIdx.x) * Cfg::kTileCols;
  int const warp = sm90::warp_idx_uniform();
  if (warp >= 4) {
    sm90::set_max_registers<40, Cfg::Manager::kEntryRegisters>();
    if (warp == 4) {
      int stage = 0;
      std::uint32_t phase = 1;
      for (int row = band.begin; row < band.end; row += Cfg::kTileRows) {
        // try, then wait: the seed schedule's try_acquire + acquire
        if (!sm90::mbarrier_test_parity(&empty[stage], phase))
          sm90::mbarrier_wait_parity(&empty[stage], phase);
        if (sm90::elect_one()) {
          sm90::mbarrier_arrive_expect_tx(&full[stage], Cfg::kStageBytes);
          sm90::tma_load_2d(&tiles[stage * Cfg::kVecsPerTile], &p.tma, col, row, &full[stage]);
        }
        if (++stage == kStages) {
          stage = 0;
          phase ^= 1u;
        }
      }
      for (int s = 0; s < kStages; ++s) {  // drain: every stage released before exit
        sm90::mbarrier_wait_parity(&empty[stage], phase);
        if (++stage == kStages) {
          stage = 0;
          phase ^= 1u;
        }
      }
    }
  } else {
    sm90::set_max_registers<160, Cfg::Manager::kEntryRegisters>();
    int stage = 0;
    std::uint32_t phase = 0;
    for (int row = band.begin; row < band.end; row += Cfg::kTileRows) {
      if (!sm90::mbarrier_test_parity(&full[stage], phase))
        sm90::mbarrier_wait_parity(&full[stage], phase);
      Vec v[Cfg::kVecsPerThread];
      Vec const* tile = &tiles[stage * Cfg::kVecsPerTile];
#pragma unroll
      for (int j = 0; j < Cfg::kVecsPerThread; ++j)
        v[j] = tile[j * Cfg::kStoreThreads + threadIdx.x];
      sm90::mbarrier_arrive(&empty[stage]);
#pragma unroll
      for (int j = 0; j < Cfg::kVecsPerThread; ++j) {
        int const i = j * Cfg::kStoreThreads + static_cast<int>(threadIdx.x);
        int const r = row + i / Cfg::kVecsPerRow;
        if (r < p.rows)
          *reinterpret_cast<Vec*>(p.dst + static_cast<std::int64_t>(r) * p.cols + col +
                                  (i % Cfg::kVecsPerRow) * Cfg::kVec) = v[j];
      }
      if (++stage == kStages) {
        stage = 0;
        phase ^= 1u;
      }
    }
  }
}

// ---- Host launchers ----------------------------------------------------------------------------
template <class Cfg>
TmaCopyParams make_params(__half const* src, __half* dst, int rows, int cols, int rows_per_cta) {
  if (Cfg::kRowsPerCta == 0 && rows_per_cta != 0)
    throw std::invalid_argument("tma_copy: `rows_per_cta` applies to the multi-stage variant only");
  if (rows_per_cta < 0 || rows_per_cta % Cfg::kTileRows != 0)
    throw std::invalid_argument("tma_copy: `rows_per_cta` = " + std::to_string(rows_per_cta) +
                                " must be a non-negative multiple of the tile height " +
                                std::to_string(Cfg::kTileRows));
  TmaCopyParams p{};
  p.tma = sm90::make_tensor_map_2d<__half>(src, rows, cols, Cfg::kTileRows, Cfg::kTileCols);
  p.dst = dst;
  p.rows = rows;
  p.cols = cols;
  p.rows_per_cta = rows_per_cta > 0 ? rows_per_cta : Cfg::kRowsPerCta;
  return p;
}

template <class Cfg>
dim3 grid_of(TmaCopyParams const& p) {
  int const bands = p.rows_per_cta == 0 ? 1 : (p.rows + p.rows_per_cta - 1) / p.rows_per_cta;
  return dim3(p.cols / Cfg::kTileCols, bands);
}

template <class Cfg>
void launch_ts(TmaCopyParams const& p, cudaStream_t stream) {
  ts::launch<typename Cfg::Manager>(ts::verified<Cfg>(), tma_copy_ts_kernel<Cfg>, grid_of<Cfg>(p),
                                    stream, p);
}

template <class Cfg>
void launch_baseline(TmaCopyParams const& p, cudaStream_t stream) {
  auto kernel = tma_copy_baseline_kernel<Cfg>;
  int const smem = Cfg::kStages * Cfg::kStageBytes + 2 * Cfg::kStages * 8;
  WL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  kernel<<<grid_of<Cfg>(p), Cfg::Manager::num_threads, smem, stream>>>(p);
  WL_CUDA_CHECK(cudaGetLastError());
}

template <class Cfg>
void launch_variant(Implementation impl, __half const* src, __half* dst, int rows, int cols,
                    cudaStream_t stream, int rows_per_cta) {
  TmaCopyParams const p = make_params<Cfg>(src, dst, rows, cols, rows_per_cta);
  if (impl == Implementation::TaskScheduled) {
    launch_ts<Cfg>(p, stream);
  } else {
    launch_baseline<Cfg>(p, stream);
  }
}

}  // namespace

std::string_view to_string(TmaCopyVariant v) {
  return v == TmaCopyVariant::Seed ? "seed (1 stage, 128x1 tiles)"
                                   : "multistage (4 stages, 128x64 tiles)";
}

void check_tma_copy_shape(int rows, int cols) {
  if (rows <= 0)
    throw std::invalid_argument("rows_cols: rows = " + std::to_string(rows) + " must be positive");
  if (cols <= 0 || cols % kTmaCopyTileCols != 0)
    throw std::invalid_argument("rows_cols: cols = " + std::to_string(cols) +
                                " must be a positive multiple of the tile width " +
                                std::to_string(kTmaCopyTileCols));
}

void tma_copy(TmaCopyVariant variant, Implementation impl, __half const* src, __half* dst, int rows,
              int cols, cudaStream_t stream, int rows_per_cta) {
  check_tma_copy_shape(rows, cols);
  if (src == nullptr || dst == nullptr)
    throw std::invalid_argument("tma_copy: `src` and `dst` must not be null");
  if (variant == TmaCopyVariant::Seed)
    launch_variant<SeedCopy>(impl, src, dst, rows, cols, stream, rows_per_cta);
  else
    launch_variant<MultiStageCopy>(impl, src, dst, rows, cols, stream, rows_per_cta);
}

std::vector<std::string> tma_copy_tunings() {
  std::vector<std::string> out;
  [&]<class... Cs>(ts::list<Cs...>) {
    (out.push_back("stages" + std::to_string(Cs::kStages) + " rows" +
                   std::to_string(Cs::kTileRows) + (Cs::kStreamingStores ? " st.cs" : "")),
     ...);
  }(MultiStageTunings{});
  return out;
}

void tma_copy_tuned(int tuning, __half const* src, __half* dst, int rows, int cols,
                    cudaStream_t stream) {
  check_tma_copy_shape(rows, cols);
  if (src == nullptr || dst == nullptr)
    throw std::invalid_argument("tma_copy: `src` and `dst` must not be null");
  int i = 0;
  bool launched = false;
  [&]<class... Cs>(ts::list<Cs...>) {
    (((i++ == tuning)
          ? (launch_ts<Cs>(make_params<Cs>(src, dst, rows, cols, 0), stream), launched = true)
          : false),
     ...);
  }(MultiStageTunings{});
  if (!launched)
    throw std::invalid_argument("tma_copy_tuned: `tuning` = " + std::to_string(tuning) +
                                " is not in [0, " + std::to_string(i) + ")");
}

ts::ManagerModel tma_copy_model(TmaCopyVariant variant) {
  return variant == TmaCopyVariant::Seed ? SeedCopy::Manager::model(SeedCopy::kName)
                                         : MultiStageCopy::Manager::model(MultiStageCopy::kName);
}

}  // namespace warploom::tutorial
