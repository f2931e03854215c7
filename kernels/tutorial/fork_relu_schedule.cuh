// kernels/tutorial/fork_relu_schedule.cuh
//
// Tutorial 07, the Fork kernel: one fill read by two consumers (the seed's 07/04, without the
// GEMM).
//
// x arrives in shared memory once per tile, by TMA. Two tasks read it: `store` writes d = x and
// `relu` writes r = max(x, 0). Each releases the stage when it has read it, on its own schedule, so
// each has its own empty barriers; the fill is one, so they share the full barriers:
//
//                                    ┌─ ForStore ──▶ store: wait, read, release, d = x
//     InputGmem ──row──▶ load: TMA ──┤  (Tile = ts::Fork; both members alias one buffer)
//                                    └─ ForRelu  ──▶ relu:  wait, read, release, r = max(x, 0)
//
// The two members are two views of one buffer (ts::Alias on the TaskManager): the load task
// acquires both — waits until both readers released the stage — then issues one TMA copy into the
// primary member's stage, whose bytes complete the shared full barrier (the primary's acquire
// armed it; the secondary's does not), and publishes the tile with one `tile.commit()`. The
// verifier proves per byte range that the copy never lands in a stage a reader still holds
// (corpus: fork_tma_fill_before_secondary_acquire is the violating twin).
//
// Warps: store on 0-3 and relu on 4-7 (160 registers each), load on warp 8 (40; the TaskManager
// pads warps 9-11). The hand-written kernel in 07_fork_relu.cu is the baseline the TS kernel must
// match instruction for instruction (tutorial_sass_test); the host launcher is there too.
#pragma once

#include <cstdint>
#include <string_view>

#include <cuda.h>  // CUtensorMap
#include <cuda_fp16.h>

#include "tutorial/fork_relu.hpp"  // kForkReluTileCols
#include "tutorial/row_tiles.cuh"
#include "warploom/arch/sm90/tma.hpp"
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial {

struct ForkReluParams {
  CUtensorMap tma_x;  // x, boxes of kTileRows x 128
  __half* d;
  __half* r;
  int rows;
  int cols;
  int rows_per_cta;  // rows of one CTA's band (blockIdx.y); a multiple of kTileRows
};

// max(x, +0) for 8 halves.
__device__ inline rows::Vec relu_halves(rows::Vec x) {
  rows::Vec out;
  auto const* in = reinterpret_cast<__half2 const*>(&x);
  auto* o = reinterpret_cast<__half2*>(&out);
  __half2 const zero = __float2half2_rn(0.0f);
#pragma unroll
  for (int i = 0; i < 4; ++i) o[i] = __hmax2(in[i], zero);
  return out;
}

template <int kStages_, int kTileRows_, int kRowsPerCta_>
struct ForkRelu {
  // ---- Shape ---------------------------------------------------------------------------------
  static constexpr int kStages = kStages_;
  static constexpr int kTileRows = kTileRows_;
  static constexpr int kRowsPerCta = kRowsPerCta_;
  static constexpr int kTileCols = rows::kTileCols;
  static constexpr int kReaderThreads = 4 * 32;  // each reader task
  using ReaderTiles = rows::Tiles<kTileRows, kReaderThreads>;
  using Fragment = typename ReaderTiles::Fragment;
  static constexpr int kVecsPerTile = ReaderTiles::kVecsPerTile;
  static constexpr int kStageBytes = ReaderTiles::kStageBytes;
  static_assert(kRowsPerCta % kTileRows == 0, "a CTA's band is whole tiles");
  static_assert(kTileCols == kForkReluTileCols, "the host API's tile width is the kernel's");

  // ---- Resources -------------------------------------------------------------------------------
  using InputGmem = rows::BandInput;  // which rows the loads fetch next

  // One member of the fork: x's tiles as one reader task sees them. kThread0: the reader's first
  // thread in the block.
  template <ts::FixedName kName, int kThread0>
  struct View {
    static constexpr ts::ResourceSpec spec{
        .name = kName.view(),
        .pipeline =
            ts::tma_async(kStages, kStageBytes, ts::threads(1), ts::threads(kReaderThreads))};
    CUtensorMap const* tma = nullptr;
    int col = 0;
    ts::SmemBuffer<rows::Vec, kStages * kVecsPerTile> tiles;  // (STAGES, TILE_ROWS, 128 / 8)
    using smem_buffers = ts::buffers<&View::tiles>;

    // The fill, issued on the primary member only: one copy for both views.
    __device__ void tma_load(ts::Produce const& stage, int row) {
      if (sm90::elect_one())
        sm90::tma_load_2d(&tiles[stage.stage_idx * kVecsPerTile], tma, col, row, stage.barrier);
    }
    __device__ Fragment read(ts::Consume const& stage) const {
      return ReaderTiles::fragment_of(&tiles[stage.stage_idx * kVecsPerTile],
                                      static_cast<int>(threadIdx.x) - kThread0);
    }
  };
  using ForStore = View<"for_store", 0>;
  using ForRelu = View<"for_relu", kReaderThreads>;
  using Tile = ts::Fork<"tile", ForStore, ForRelu>;  // ForStore is the primary member

  // An output matrix, written by one reader task.
  template <ts::FixedName kName, int kThread0>
  struct OutputGmem {
    static constexpr ts::ResourceSpec spec{.name = kName.view()};
    __half* dst = nullptr;
    int rows = 0;
    int cols = 0;
    int col = 0;
    int row_begin = 0;  // this CTA's band, as in InputGmem
    int row_end = 0;
    using same_sizes = ts::same_sizes<ts::same_size<&OutputGmem::row_begin, &InputGmem::row_begin>,
                                      ts::same_size<&OutputGmem::row_end, &InputGmem::row_end>>;
    __device__ void store(ts::Produce const& stage, Fragment const& f) {
      ReaderTiles::store(dst, rows, cols, col, stage.loop_offset,
                         static_cast<int>(threadIdx.x) - kThread0, [&](int j) { return f.v[j]; });
    }
    __device__ void store_relu(ts::Produce const& stage, Fragment const& f) {
      ReaderTiles::store(dst, rows, cols, col, stage.loop_offset,
                         static_cast<int>(threadIdx.x) - kThread0,
                         [&](int j) { return relu_halves(f.v[j]); });
    }
  };
  using OutD = OutputGmem<"d", 0>;
  using OutR = OutputGmem<"r", kReaderThreads>;

  // ---- Schedules and tasks ---------------------------------------------------------------------
  struct LoadTask {
    static constexpr ts::TaskSpec spec{
        .name = "load", .warp_idx = 8, .num_warps = 1, .num_registers = 40};
    using src = ts::list<InputGmem>;
    using dst = ts::list<ForStore, ForRelu, Tile>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& in, auto& for_store,
                                                  auto& for_relu, auto& tile) {
      ctx.domain_loop(in->row_begin, in->row_end, ts::c<kTileRows>, [&](auto&) {
        auto row = ts::work<&InputGmem::compute_coords>(in);
        for_store.acquire();  // both readers must have released the stage: one buffer
        for_relu.acquire();
        ts::work<&ForStore::tma_load>(for_store, row);
        tile.commit();  // TMA: the copy's bytes complete the shared full barrier
      });
    }
  };

  // A reader: the stage goes back to the load as soon as the fragment is in registers.
  template <class Member, class Out, auto kStore, ts::FixedName kName, int kWarp>
  struct ReadTask {
    static constexpr ts::TaskSpec spec{
        .name = kName.view(), .warp_idx = kWarp, .num_warps = 4, .num_registers = 160};
    using src = ts::list<Member>;
    using dst = ts::list<Out>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& view, auto& out) {
      ctx.domain_loop(out->row_begin, out->row_end, ts::c<kTileRows>, [&](auto&) {
        view.wait();
        auto f = ts::work<&Member::read>(view);
        view.release();
        ts::work<kStore>(out, f);
      });
    }
  };
  using StoreTask = ReadTask<ForStore, OutD, &OutD::store, "store", 0>;
  using ReluTask = ReadTask<ForRelu, OutR, &OutR::store_relu, "relu", 4>;

  // Verified in the schedule unit, not in the kernel's translation unit.
  using Manager = ts::TaskManager<
      ts::Tasks<StoreTask, ReluTask, LoadTask>,
      ts::Graph<ts::DependsOn<ForStore, InputGmem>, ts::DependsOn<ForRelu, InputGmem>,
                ts::DependsOn<OutD, ForStore>, ts::DependsOn<OutR, ForRelu>>,
      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit},
      ts::Aliases<ts::Alias<&ForStore::tiles, &ForRelu::tiles>>>;

  // ---- Name ------------------------------------------------------------------------------------
  static constexpr ts::ScheduleText kNameText = ts::schedule_text("fork_relu");
  static constexpr std::string_view kName = kNameText.view();
  static constexpr ts::ScheduleText kDescriptionText = ts::schedule_text(
      "tutorial 07: d = x and r = max(x, 0) from one TMA read through a ts::Fork, ", kStages,
      " stages of 128x", kTileRows, " tiles, each CTA a band of ", kRowsPerCta, " rows");
  static constexpr std::string_view kDescription = kDescriptionText.view();
};

// ---- Kernel ------------------------------------------------------------------------------------
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    fork_relu_ts_kernel(__grid_constant__ ForkReluParams const p) {
  using Manager = typename Cfg::Manager;
  extern __shared__ __align__(128) char smem[];
  if (threadIdx.x == 0) sm90::tma_prefetch_descriptor(&p.tma_x);

  rows::Band const band = rows::band_of(p.rows, p.rows_per_cta);
  int const col = static_cast<int>(blockIdx.x) * Cfg::kTileCols;
  typename Cfg::InputGmem input{.row_begin = band.begin, .row_end = band.end};
  typename Cfg::ForStore for_store{};
  for_store.tma = &p.tma_x;
  for_store.col = col;
  typename Cfg::ForRelu for_relu{};
  typename Cfg::Tile tile{};
  typename Cfg::OutD out_d{.dst = p.d,
                           .rows = p.rows,
                           .cols = p.cols,
                           .col = col,
                           .row_begin = band.begin,
                           .row_end = band.end};
  typename Cfg::OutR out_r{.dst = p.r,
                           .rows = p.rows,
                           .cols = p.cols,
                           .col = col,
                           .row_begin = band.begin,
                           .row_end = band.end};

  Manager tm(smem, input, for_store, for_relu, tile, out_d, out_r);
  auto initialized = tm.setup_resources_and_tasks();
  auto ready = initialized.fence_and_sync_cta();
  ready.run();
}

// The fork the tutorial runs, a schedule unit (kernels/CMakeLists.txt): 4 stages of 128 x 64 tiles
// (16 KiB per stage, 64 KiB in all: the one buffer both views alias), each CTA a band of 256 rows.
using TutorialForkRelu = ForkRelu</*stages=*/4, /*tile rows=*/64, /*rows per CTA=*/256>;

}  // namespace warploom::tutorial
