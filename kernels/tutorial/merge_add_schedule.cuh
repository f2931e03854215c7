// kernels/tutorial/merge_add_schedule.cuh
//
// Tutorial 07, first kernel: a Merge pipeline group (the seed's 07/01 "merge copy").
//
// d = a + b for two fp16 matrices that reach shared memory in two ways: a by TMA (one elected lane
// issues a copy whose bytes complete the stage), b by a warp's loads and shared-memory stores (its
// 32 lanes arrive). One consumer, the add task, needs a stage of both before it can work, and gives
// both back at once, so the two pipelines share one side:
//
//     InputGmem ──row──▶ SmemA (TMA)     ──┐
//                                          ├─ Inputs = ts::Merge ──▶ add: wait a, wait b, read,
//     InputGmem ──row──▶ SmemB (threads) ──┘                         release(inputs), store a + b
//
// Each member keeps its own full barriers (its producer completes them its own way); the group
// holds one array of empty barriers, on which the add task arrives once per stage with
// `inputs.release()`, freeing the stage of both members. The two producers each wait on that
// shared barrier (several waiters on one phase are fine). Without the group the consumer would
// release each member, two arrivals per thread per stage where one says the same.
//
// Warps: add on warps 0-3 (160 registers), load_a on warp 4 and load_b on warp 5 (88 each: a tile
// of b in registers, load_tile; the TaskManager pads warps 6-7 at that budget, setmaxnreg being
// warpgroup-wide).
// The hand-written kernel in 07_merge_add.cu is the baseline the TS kernel must match instruction
// for instruction (tutorial_sass_test); the host launchers are there too.
//
// This file is the schedule's one source: the kernel runs it and its schedule unit
// (kernels/CMakeLists.txt) verifies it while it compiles.
#pragma once

#include <cstdint>
#include <string_view>

#include <cuda.h>  // CUtensorMap
#include <cuda_fp16.h>

#include "tutorial/merge_add.hpp"  // kMergeAddTileCols
#include "tutorial/row_tiles.cuh"
#include "warploom/arch/sm90/tma.hpp"
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial {

struct MergeAddParams {
  CUtensorMap tma_a;  // a, boxes of kTileRows x 128
  __half const* b;
  __half* d;
  int rows;
  int cols;
  int rows_per_cta;  // rows of one CTA's band (blockIdx.y); a multiple of kTileRows
};

// The sum of two vectors of 8 halves.
__device__ inline rows::Vec add_halves(rows::Vec x, rows::Vec y) {
  rows::Vec out;
  auto const* a = reinterpret_cast<__half2 const*>(&x);
  auto const* b = reinterpret_cast<__half2 const*>(&y);
  auto* o = reinterpret_cast<__half2*>(&out);
#pragma unroll
  for (int i = 0; i < 4; ++i) o[i] = __hadd2(a[i], b[i]);
  return out;
}

// The load warp's fill of one tile of b: each lane its vectors, 16 bytes each, rows past the end
// as zeros (as TMA fills them). Shared by the TS kernel's work and the baseline.
//
// Every load is issued before the first store. The compiler cannot tell that a store to shared
// memory does not feed the next global load, so a loop that stores each vector as it arrives
// keeps one 16-byte load in flight per lane: that loop ran the whole kernel at 16.5% of the H200's
// memory roof (bench/results/tutorial07_merge_add_burst_2026-12-04.json). The tile's vectors in
// registers (kTileRows / 2 per lane) are what the load task's register budget is sized for.
template <int kTileRows>
__device__ void load_tile(rows::Vec* tile, __half const* src, int num_rows, int cols, int col,
                          int row) {
  using LoadTiles = rows::Tiles<kTileRows, 32>;
  constexpr int kVecs = LoadTiles::kVecsPerThread;
  // One load instruction of the warp covers 32 / 16 whole rows; a lane keeps its column.
  constexpr int kRowsPerStep = 32 / rows::kVecsPerRow;
  static_assert(32 % rows::kVecsPerRow == 0, "a warp's loads cover whole rows");
  int const lane = static_cast<int>(threadIdx.x) % 32;
  int const first_row = row + lane / rows::kVecsPerRow;
  // The address steps whether or not its row exists, so that only the load is predicated (an
  // address computed under the predicate is recomputed from the kernel's parameters each time).
  __half const* at = src + static_cast<std::int64_t>(first_row) * cols + col +
                     (lane % rows::kVecsPerRow) * rows::kVec;
  std::int64_t const step = static_cast<std::int64_t>(kRowsPerStep) * cols;
  rows::Vec x[kVecs];
#pragma unroll
  for (int j = 0; j < kVecs; ++j, at += step) {
    x[j] = rows::Vec{0u, 0u, 0u, 0u};
    if (first_row + j * kRowsPerStep < num_rows) x[j] = *reinterpret_cast<rows::Vec const*>(at);
  }
#pragma unroll
  for (int j = 0; j < kVecs; ++j) tile[j * 32 + lane] = x[j];
}

template <int kStages_, int kTileRows_, int kRowsPerCta_>
struct MergeAdd {
  // ---- Shape ---------------------------------------------------------------------------------
  static constexpr int kStages = kStages_;
  static constexpr int kTileRows = kTileRows_;
  static constexpr int kRowsPerCta = kRowsPerCta_;
  static constexpr int kTileCols = rows::kTileCols;
  static constexpr int kAddThreads = 4 * 32;
  static constexpr int kLoadLanes = 32;
  // A load lane holds a whole tile of b in registers (load_tile): 4 per vector, and its addresses.
  static constexpr int kLoadRegisters = rows::Tiles<kTileRows, 32>::kVecsPerThread * 4 + 24;
  using AddTiles = rows::Tiles<kTileRows, kAddThreads>;  // the add threads' share of a tile
  using Fragment = typename AddTiles::Fragment;
  static constexpr int kVecsPerTile = AddTiles::kVecsPerTile;
  static constexpr int kStageBytes = AddTiles::kStageBytes;
  static_assert(kRowsPerCta % kTileRows == 0, "a CTA's band is whole tiles");
  static_assert(kTileCols == kMergeAddTileCols, "the host API's tile width is the kernel's");

  // ---- Resources -------------------------------------------------------------------------------
  // Coordinate-only source: which rows the loads fetch next.
  using InputGmem = rows::BandInput;

  // Tiles of a, filled by TMA (one lane arms the stage's bytes and issues the copy).
  struct SmemA {
    static constexpr ts::ResourceSpec spec{
        .name = "smem_a",
        .pipeline = ts::tma_async(kStages, kStageBytes, ts::threads(1), ts::threads(kAddThreads))};
    CUtensorMap const* tma = nullptr;
    int col = 0;
    ts::SmemBuffer<rows::Vec, kStages * kVecsPerTile> tiles;  // (STAGES, TILE_ROWS, 128 / 8)
    using smem_buffers = ts::buffers<&SmemA::tiles>;

    __device__ void tma_load(ts::Produce const& stage, int row) {
      if (sm90::elect_one())
        sm90::tma_load_2d(&tiles[stage.stage_idx * kVecsPerTile], tma, col, row, stage.barrier);
    }
    __device__ Fragment read(ts::Consume const& stage) const {
      return AddTiles::fragment_of(&tiles[stage.stage_idx * kVecsPerTile],
                                   static_cast<int>(threadIdx.x));
    }
  };

  // Tiles of b, written by the load warp's lanes (rows past the end as zeros, as TMA fills them);
  // every lane arrives when its stores are done.
  struct SmemB {
    static constexpr ts::ResourceSpec spec{
        .name = "smem_b",
        .pipeline = ts::async_async(kStages, ts::threads(kLoadLanes), ts::threads(kAddThreads))};
    __half const* src = nullptr;
    int rows = 0;
    int cols = 0;
    int col = 0;
    ts::SmemBuffer<rows::Vec, kStages * kVecsPerTile> tiles;  // (STAGES, TILE_ROWS, 128 / 8)
    using smem_buffers = ts::buffers<&SmemB::tiles>;

    __device__ void load(ts::Produce const& stage, int row) {
      load_tile<kTileRows>(&tiles[stage.stage_idx * kVecsPerTile], src, rows, cols, col, row);
    }
    __device__ Fragment read(ts::Consume const& stage) const {
      return AddTiles::fragment_of(&tiles[stage.stage_idx * kVecsPerTile],
                                   static_cast<int>(threadIdx.x));
    }
  };

  // The group: one consumer (threads), two producers (TMA, threads).
  using Inputs = ts::Merge<"inputs", SmemA, SmemB>;

  struct OutputGmem {
    static constexpr ts::ResourceSpec spec{.name = "output_gmem"};
    __half* dst = nullptr;
    int rows = 0;
    int cols = 0;
    int col = 0;
    int row_begin = 0;  // this CTA's band, as in InputGmem
    int row_end = 0;
    // Both bands are set from one rows::band_of() (the kernel below): the add loops over the rows
    // the loads loop over.
    using same_sizes = ts::same_sizes<ts::same_size<&OutputGmem::row_begin, &InputGmem::row_begin>,
                                      ts::same_size<&OutputGmem::row_end, &InputGmem::row_end>>;
    __device__ void store_sum(ts::Produce const& stage, Fragment const& a, Fragment const& b) {
      AddTiles::store(dst, rows, cols, col, stage.loop_offset, static_cast<int>(threadIdx.x),
                      [&](int j) { return add_halves(a.v[j], b.v[j]); });
    }
  };

  // ---- Schedules and tasks ---------------------------------------------------------------------
  template <class Smem, auto kLoad, ts::FixedName kName, int kWarp>
  struct LoadTask {
    static constexpr ts::TaskSpec spec{
        .name = kName.view(), .warp_idx = kWarp, .num_warps = 1, .num_registers = kLoadRegisters};
    using src = ts::list<InputGmem>;
    using dst = ts::list<Smem>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
      ctx.domain_loop(in->row_begin, in->row_end, ts::c<kTileRows>, [&](auto&) {
        auto row = ts::work<&InputGmem::compute_coords>(in);
        smem.acquire();  // waits on the group's shared empty barrier
        ts::work<kLoad>(smem, row);
        smem.commit();  // a: nothing (the bytes complete it); b: every lane arrives
      });
    }
  };
  using LoadA = LoadTask<SmemA, &SmemA::tma_load, "load_a", 4>;
  using LoadB = LoadTask<SmemB, &SmemB::load, "load_b", 5>;

  struct AddTask {
    static constexpr ts::TaskSpec spec{
        .name = "add", .warp_idx = 0, .num_warps = 4, .num_registers = 160};
    using src = ts::list<SmemA, SmemB, Inputs>;
    using dst = ts::list<OutputGmem>;
    // Both fragments are in registers before the release, so the stage goes back to both loads
    // before the global stores.
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& a, auto& b, auto& inputs,
                                                  auto& out) {
      ctx.domain_loop(out->row_begin, out->row_end, ts::c<kTileRows>, [&](auto&) {
        a.wait();
        b.wait();
        auto fa = ts::work<&SmemA::read>(a);
        auto fb = ts::work<&SmemB::read>(b);
        inputs.release();
        ts::work<&OutputGmem::store_sum>(out, fa, fb);
      });
    }
  };

  // Verified in the schedule unit, not in the kernel's translation unit.
  using Manager =
      ts::TaskManager<ts::Tasks<AddTask, LoadA, LoadB>,
                      ts::Graph<ts::DependsOn<SmemA, InputGmem>, ts::DependsOn<SmemB, InputGmem>,
                                ts::DependsOn<OutputGmem, SmemA, SmemB>>,
                      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;

  // ---- Name ------------------------------------------------------------------------------------
  static constexpr ts::ScheduleText kNameText = ts::schedule_text("merge_add");
  static constexpr std::string_view kName = kNameText.view();
  static constexpr ts::ScheduleText kDescriptionText = ts::schedule_text(
      "tutorial 07: d = a + b in fp16, a by TMA and b by a load warp in a ts::Merge group, ",
      kStages, " stages of 128x", kTileRows, " tiles, each CTA a band of ", kRowsPerCta, " rows");
  static constexpr std::string_view kDescription = kDescriptionText.view();
};

// ---- Kernel ------------------------------------------------------------------------------------
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    merge_add_ts_kernel(__grid_constant__ MergeAddParams const p) {
  using Manager = typename Cfg::Manager;
  extern __shared__ __align__(128) char smem[];
  if (threadIdx.x == 0) sm90::tma_prefetch_descriptor(&p.tma_a);

  rows::Band const band = rows::band_of(p.rows, p.rows_per_cta);
  int const col = static_cast<int>(blockIdx.x) * Cfg::kTileCols;
  typename Cfg::InputGmem input{.row_begin = band.begin, .row_end = band.end};
  typename Cfg::SmemA a{};
  a.tma = &p.tma_a;
  a.col = col;
  typename Cfg::SmemB b{};
  b.src = p.b;
  b.rows = p.rows;
  b.cols = p.cols;
  b.col = col;
  typename Cfg::Inputs inputs{};
  typename Cfg::OutputGmem output{.dst = p.d,
                                  .rows = p.rows,
                                  .cols = p.cols,
                                  .col = col,
                                  .row_begin = band.begin,
                                  .row_end = band.end};

  Manager tm(smem, input, a, b, inputs, output);
  auto initialized = tm.setup_resources_and_tasks();
  auto ready = initialized.fence_and_sync_cta();
  ready.run();
}

// The add the tutorial runs, a schedule unit (kernels/CMakeLists.txt): 4 stages of 128 x 32 tiles
// (8 KiB of each input per stage, 64 KiB in all), each CTA a band of 128 rows.
using TutorialMergeAdd = MergeAdd</*stages=*/4, /*tile rows=*/32, /*rows per CTA=*/128>;

}  // namespace warploom::tutorial
