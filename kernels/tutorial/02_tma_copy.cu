// kernels/tutorial/02_tma_copy.cu
//
// Tutorial 02: TMA copy — the first real producer/consumer pipeline.
//
// A 2-D fp16 matrix goes GMEM -> SMEM (TMA) -> registers -> GMEM. Shared memory is touched by two
// groups of warps, so it is a resource with a pipeline; the load task produces its stages, the
// store task consumes them:
//
//     InputGmem ──row──▶ SmemTiles (TMA async pipeline) ──fragment──▶ OutputGmem
//     (coordinates)      LoadTask: acquire, TMA, commit     StoreTask: wait, read, release, store
//
// Warps: StoreTask on warps 0-3 (160 registers), LoadTask on warp 4 (40), a PaddingTask on warps
// 5-7 giving the rest of the load warp's warpgroup the same budget (setmaxnreg is warpgroup-wide).
// The hand-written kernel below the TS one is the baseline it must match instruction for
// instruction.
#include "tma_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "warploom/arch/sm90/mbarrier.hpp"
#include "warploom/arch/sm90/setmaxnreg.hpp"
#include "warploom/arch/sm90/tensor_map.hpp"
#include "warploom/arch/sm90/tma.hpp"
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/launch.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial {
namespace {

struct TmaCopyParams {
  CUtensorMap tma;  // src, boxes of kTileRows x 128
  __half* dst;
  int rows;
  int cols;
  int rows_per_cta;  // rows of one CTA's band (blockIdx.y); a multiple of kTileRows
};

template <int kStages_, int kTileRows_, int kRowsPerCta_, bool kStreamingStores_ = false>
struct TmaCopy {
  // ---- Shape ---------------------------------------------------------------------------------
  static constexpr int kStages = kStages_;
  static constexpr int kTileRows = kTileRows_;
  static constexpr int kRowsPerCta = kRowsPerCta_;  // default band height; 0: all rows
  // st.global.cs: the output is written once and never read back, so keep it from displacing
  // the input's lines in L2.
  static constexpr bool kStreamingStores = kStreamingStores_;
  static constexpr int kTileCols = kTmaCopyTileCols;
  static constexpr int kStoreThreads = 4 * 32;
  // Store accesses: 16-byte vectors of 8 halves when a tile has 8 or more rows, else one half
  // per thread (the seed's 128 x 1 tile has exactly one element per store thread).
  static constexpr int kVec = kTileRows >= 8 ? 8 : 1;
  using Vec = std::conditional_t<kVec == 8, uint4, __half>;
  static constexpr int kVecsPerRow = kTileCols / kVec;
  static constexpr int kVecsPerTile = kTileRows * kVecsPerRow;
  static constexpr int kVecsPerThread = kVecsPerTile / kStoreThreads;
  static constexpr int kStageBytes = kTileRows * kTileCols * static_cast<int>(sizeof(__half));
  static_assert(kVecsPerTile % kStoreThreads == 0,
                "a tile must split evenly over the store threads");

  struct Fragment {
    Vec v[kVecsPerThread];  // (VECS_PER_THREAD)
  };

  // ---- Resources -------------------------------------------------------------------------------
  // Coordinate-only source: which rows the TMA loads next.
  struct InputGmem {
    static constexpr ts::ResourceSpec spec{.name = "input_gmem"};
    int row_begin = 0;
    int row_end = 0;
    __device__ int compute_coords(ts::Consume const& stage) const { return stage.loop_offset; }
  };

  // The staged tiles, filled by TMA, drained by the store warps.
  struct SmemTiles {
    static constexpr ts::ResourceSpec spec{
        .name = "smem",
        .pipeline =
            ts::tma_async(kStages, kStageBytes, ts::threads(1), ts::threads(kStoreThreads))};
    CUtensorMap const* tma = nullptr;
    int col = 0;
    ts::SmemBuffer<Vec, kStages * kVecsPerTile> tiles;  // (STAGES, TILE_ROWS, 128 / VEC)
    using smem_buffers = ts::buffers<&SmemTiles::tiles>;

    __device__ void tma_load(ts::Produce const& stage, int row) {
      if (sm90::elect_one())
        sm90::tma_load_2d(&tiles[stage.stage_idx * kVecsPerTile], tma, col, row, stage.barrier);
    }
    __device__ Fragment read_smem(ts::Consume const& stage) const {
      Fragment f;
      Vec const* tile = &tiles[stage.stage_idx * kVecsPerTile];
#pragma unroll
      for (int j = 0; j < kVecsPerThread; ++j) f.v[j] = tile[j * kStoreThreads + threadIdx.x];
      return f;
    }
  };

  struct OutputGmem {
    static constexpr ts::ResourceSpec spec{.name = "output_gmem"};
    __half* dst = nullptr;
    int rows = 0;
    int cols = 0;
    int col = 0;
    int row_begin = 0;  // this CTA's band, as in InputGmem
    int row_end = 0;
    __device__ void store(ts::Produce const& stage, Fragment const& f) {
#pragma unroll
      for (int j = 0; j < kVecsPerThread; ++j) {
        int const v = j * kStoreThreads + static_cast<int>(threadIdx.x);
        int const row = stage.loop_offset + v / kVecsPerRow;
        if (row < rows) {
          auto* out = dst + static_cast<std::int64_t>(row) * cols + col + (v % kVecsPerRow) * kVec;
          if constexpr (kStreamingStores && kVec == 8) {
            __stcs(reinterpret_cast<uint4*>(out), f.v[j]);
          } else {
            *reinterpret_cast<Vec*>(out) = f.v[j];
          }
        }
      }
    }
  };

  // ---- Schedules and tasks ---------------------------------------------------------------------
  struct LoadTask {
    static constexpr ts::TaskSpec spec{
        .name = "load", .warp_idx = 4, .num_warps = 1, .num_registers = 40};
    using src = ts::list<InputGmem>;
    using dst = ts::list<SmemTiles>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
      ctx.domain_loop(in->row_begin, in->row_end, ts::c<kTileRows>, [&](auto&) {
        auto row = ts::work<&InputGmem::compute_coords>(in);
        smem.try_acquire();
        smem.acquire();
        ts::work<&SmemTiles::tma_load>(smem, row);
        smem.commit();
      });
    }
  };

  struct StoreTask {
    static constexpr ts::TaskSpec spec{
        .name = "store", .warp_idx = 0, .num_warps = 4, .num_registers = 160};
    using src = ts::list<SmemTiles>;
    using dst = ts::list<OutputGmem>;
    // The seed's early release: the fragment is in registers, so the stage can go back to the
    // load task before the global store.
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
      ctx.domain_loop(out->row_begin, out->row_end, ts::c<kTileRows>, [&](auto&) {
        smem.try_wait();
        smem.wait();
        auto fragment = ts::work<&SmemTiles::read_smem>(smem);
        smem.release();
        ts::work<&OutputGmem::store>(out, fragment);
      });
    }
  };

  using Manager = ts::TaskManager<
      ts::Tasks<LoadTask, StoreTask, ts::PaddingTask<5, 3, 40>>,
      ts::Graph<ts::DependsOn<SmemTiles, InputGmem>, ts::DependsOn<OutputGmem, SmemTiles>>>;
};

// ---- Kernels -----------------------------------------------------------------------------------
// The CTA's band of rows: blockIdx.y-th slice of rows_per_cta rows (all rows when 0).
struct RowBand {
  int begin, end;
};
__device__ RowBand row_band(TmaCopyParams const& p) {
  if (p.rows_per_cta == 0) return {0, p.rows};
  int const begin = static_cast<int>(blockIdx.y) * p.rows_per_cta;
  return {begin, min(p.rows, begin + p.rows_per_cta)};
}

template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    tma_copy_ts_kernel(__grid_constant__ TmaCopyParams const p) {
  using Manager = typename Cfg::Manager;
  extern __shared__ __align__(128) char smem[];
  if (threadIdx.x == 0) sm90::tma_prefetch_descriptor(&p.tma);

  RowBand const band = row_band(p);
  int const col = static_cast<int>(blockIdx.x) * Cfg::kTileCols;
  typename Cfg::InputGmem input{.row_begin = band.begin, .row_end = band.end};
  typename Cfg::SmemTiles tiles{};
  tiles.tma = &p.tma;
  tiles.col = col;
  typename Cfg::OutputGmem output{.dst = p.dst,
                                  .rows = p.rows,
                                  .cols = p.cols,
                                  .col = col,
                                  .row_begin = band.begin,
                                  .row_end = band.end};

  Manager tm(smem, input, tiles, output);
  auto initialized = tm.setup_resources_and_tasks();
  auto ready = initialized.fence_and_sync_cta();
  ready.run();
}

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

// ---- Variants ----------------------------------------------------------------------------------
using SeedCopy = TmaCopy</*stages=*/1, /*tile rows=*/1, /*rows per CTA=*/0>;
// Chosen from the tuning space below on the H200 (bench/results/tutorial_copies.json): 4 stages of
// 16 KiB keep 64 KiB in flight per CTA (three CTAs per SM), and bands of 4 tiles (256 rows) give
// many short CTAs whose start-up overlaps other CTAs' streaming.
using MultiStageCopy = TmaCopy</*stages=*/4, /*tile rows=*/64, /*rows per CTA=*/256>;

// The tuning space of the multi-stage copy (TS kernels): stages x tile rows (bands of 4 tiles) x
// store kind. bench/copy_bench sweeps it.
using MultiStageTunings =
    ts::list<TmaCopy<4, 32, 128>, TmaCopy<8, 32, 128>, TmaCopy<4, 64, 256>, TmaCopy<3, 128, 512>,
             TmaCopy<8, 64, 512>, TmaCopy<4, 64, 256, true>>;

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
  std::string_view const name = std::is_same_v<Cfg, SeedCopy> ? "tma_copy" : "tma_copy_multistage";
  ts::launch<typename Cfg::Manager>(name, tma_copy_ts_kernel<Cfg>, grid_of<Cfg>(p), stream, p);
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
  return variant == TmaCopyVariant::Seed ? SeedCopy::Manager::model("tma_copy")
                                         : MultiStageCopy::Manager::model("tma_copy_multistage");
}

}  // namespace warploom::tutorial
