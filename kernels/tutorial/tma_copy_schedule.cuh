// kernels/tutorial/tma_copy_schedule.cuh
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
// Warps: StoreTask on warps 0-3 (160 registers), LoadTask on warp 4 (40); the TaskManager pads
// warps 5-7 with the load warp's budget (setmaxnreg is warpgroup-wide).
// The hand-written kernel in 02_tma_copy.cu is the baseline the TS kernel must match instruction
// for instruction; the host launchers are there too.
//
// This file is the schedule's one source: the kernel runs it, and the schedule unit of every copy
// below (kernels/CMakeLists.txt) verifies it while it compiles; the kernel launches with that
// proof.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include <cuda.h>  // CUtensorMap
#include <cuda_fp16.h>

#include "tutorial/tma_copy.hpp"  // kTmaCopyTileCols
#include "warploom/arch/sm90/tma.hpp"
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial {

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
    // Both bands are set from one row_band() (the kernel below): the store loops over the rows
    // the load loops over. Without this the verifier takes them for two sizes that may differ.
    using same_sizes = ts::same_sizes<ts::same_size<&OutputGmem::row_begin, &InputGmem::row_begin>,
                                      ts::same_size<&OutputGmem::row_end, &InputGmem::row_end>>;
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

  // Verified in the copy's schedule unit, not in the kernel's translation unit.
  using Manager = ts::TaskManager<
      ts::Tasks<LoadTask, StoreTask>,
      ts::Graph<ts::DependsOn<SmemTiles, InputGmem>, ts::DependsOn<OutputGmem, SmemTiles>>,
      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;

  // ---- Name ------------------------------------------------------------------------------------
  // What `warploom list` calls it: the tutorial's two copies keep their names (tma_copy,
  // tma_copy_multistage: checked below, where they are chosen), and a point of the tuning space is
  // named by its stages and tile rows (tma_copy_s8_r32), with _streaming for st.global.cs stores.
  // The band height is a launch default, not part of the schedule, so no name carries it.
  static constexpr ts::ScheduleText kNameText =
      kStages == 1 && kTileRows == 1 && !kStreamingStores ? ts::schedule_text("tma_copy")
      : kStages == 4 && kTileRows == 64 && !kStreamingStores
          ? ts::schedule_text("tma_copy_multistage")
          : ts::schedule_text("tma_copy_s", kStages, "_r", kTileRows,
                              kStreamingStores ? "_streaming" : "");
  static constexpr std::string_view kName = kNameText.view();
  static constexpr ts::ScheduleText kDescriptionText = ts::schedule_text(
      "tutorial 02: 2-D fp16 TMA copy, ", kStages, kStages == 1 ? " stage" : " stages", " of 128x",
      kTileRows, " tiles, each CTA ",
      kRowsPerCta == 0 ? ts::schedule_text("all rows of its columns")
                       : ts::schedule_text("a band of ", kRowsPerCta, " rows"),
      kStreamingStores ? ", streaming stores" : "");
  static constexpr std::string_view kDescription = kDescriptionText.view();
};

// ---- Kernel ------------------------------------------------------------------------------------
// The CTA's band of rows: blockIdx.y-th slice of rows_per_cta rows (all rows when 0).
struct RowBand {
  int begin, end;
};
__device__ inline RowBand row_band(TmaCopyParams const& p) {
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

// ---- The copies the tutorial runs, each a schedule unit (kernels/CMakeLists.txt) ---------------
using SeedCopy = TmaCopy</*stages=*/1, /*tile rows=*/1, /*rows per CTA=*/0>;
// Chosen from the tuning space below on the H200 (bench/results/tutorial_copies.json): 4 stages of
// 16 KiB keep 64 KiB in flight per CTA (three CTAs per SM), and bands of 4 tiles (256 rows) give
// many short CTAs whose start-up overlaps other CTAs' streaming.
using MultiStageCopy = TmaCopy</*stages=*/4, /*tile rows=*/64, /*rows per CTA=*/256>;
static_assert(
    SeedCopy::kName == "tma_copy" && MultiStageCopy::kName == "tma_copy_multistage",
    "the tutorial's copies keep the names `warploom verify` and the docs use: a new default "
    "needs the name rule of TmaCopy::kNameText (and its ID in kernels/CMakeLists.txt)");

// The tuning space of the multi-stage copy (TS kernels): stages x tile rows (bands of 4 tiles) x
// store kind. bench/copy_bench sweeps it.
using MultiStageTunings =
    ts::list<TmaCopy<4, 32, 128>, TmaCopy<8, 32, 128>, TmaCopy<4, 64, 256>, TmaCopy<3, 128, 512>,
             TmaCopy<8, 64, 512>, TmaCopy<4, 64, 256, true>>;

}  // namespace warploom::tutorial
