// tests/schedules/bundled_kernels.cpp — host twins of every TaskManager the bundled kernels use.
//
// kernels/tutorial/01_grid_stride_copy.cu and 02_tma_copy.cu are CUDA sources; these twins
// declare the same resources (same names, pipelines and shared-memory buffer sizes), the same
// tasks (warps, registers), the same schedules and graph, with work bodies that compile on the
// host (capture never runs them). Every variant the kernels instantiate is here: the default
// variants and every point of their tuning spaces. All must pass. Keep them in step with the
// kernels when those change.

#include <array>
#include <cstdint>
#include <type_traits>

#include "corpus.hpp"
#include "warploom/ts/schedule_unit.hpp"

namespace corpus {
namespace {

// ---- Tutorial 01: grid-stride copy (GridStrideCopy<kElems, kUnroll>) ----------------------------

inline constexpr int kGridStrideWarps = 8;  // kernels/tutorial/grid_stride_copy.hpp

struct Int4 {  // the host stand-in for CUDA's int4: 16 bytes
  std::int32_t x = 0, y = 0, z = 0, w = 0;
};

template <int kElems, int kUnroll>
struct GridStrideCopy {
  using Item = std::conditional_t<kElems == 1, std::int16_t, Int4>;
  static_assert(sizeof(Item) == kElems * sizeof(std::int16_t));

  struct InputGmem {
    static constexpr ts::ResourceSpec spec{.name = "input_gmem"};
    std::int16_t const* src = nullptr;
    int num_entries = 0;
    int num_items = 0;
    Item get_item(ts::Consume const&) const { return {}; }
    std::int16_t get_element(ts::Consume const&) const { return 0; }
  };

  struct OutputGmem {
    static constexpr ts::ResourceSpec spec{.name = "output_gmem"};
    std::int16_t* dst = nullptr;
    int num_entries = 0;
    void set_item(ts::Produce const&, Item data) { (void)data; }
    void set_element(ts::Produce const&, std::int16_t data) { (void)data; }
  };

  struct CopyTask {
    static constexpr ts::TaskSpec spec{
        .name = "copy", .warp_idx = 0, .num_warps = kGridStrideWarps};
    using src = ts::list<InputGmem>;
    using dst = ts::list<OutputGmem>;
    static constexpr void schedule(auto& ctx, auto& input, auto& output) {
      int const threads_per_block = kGridStrideWarps * 32;
      int const start = ctx.block_idx() * threads_per_block + ctx.thread_idx();
      int const step = ctx.grid_dim() * threads_per_block;
      ctx.domain_loop(start, input->num_items, step, ts::unroll<kUnroll>, [&](auto&) {
        auto item = ts::work<&InputGmem::get_item>(input);
        ts::work<&OutputGmem::set_item>(output, item);
      });
      if constexpr (kElems > 1) {
        ctx.domain_loop(input->num_items * kElems + start, input->num_entries, step, [&](auto&) {
          auto element = ts::work<&InputGmem::get_element>(input);
          ts::work<&OutputGmem::set_element>(output, element);
        });
      }
    }
  };

  using Manager =
      ts::TaskManager<ts::Tasks<CopyTask>, ts::Graph<ts::DependsOn<OutputGmem, InputGmem>>>;
};

// ---- Tutorial 02: TMA copy (TmaCopy<kStages, kTileRows, kRowsPerCta, kStreamingStores>) --------

inline constexpr int kTmaCopyTileCols = 128;  // kernels/tutorial/tma_copy.hpp

template <int kStages, int kTileRows, int kRowsPerCta, bool kStreamingStores = false>
struct TmaCopy {
  static constexpr int kTileCols = kTmaCopyTileCols;
  static constexpr int kStoreThreads = 4 * 32;
  static constexpr int kVec = kTileRows >= 8 ? 8 : 1;
  // uint4 / __half on the device: the same sizes, so the same buffer bytes (R-D16, R-D21).
  using Vec = std::conditional_t<kVec == 8, std::array<std::uint32_t, 4>, std::uint16_t>;
  static constexpr int kVecsPerRow = kTileCols / kVec;
  static constexpr int kVecsPerTile = kTileRows * kVecsPerRow;
  static constexpr int kVecsPerThread = kVecsPerTile / kStoreThreads;
  static constexpr int kStageBytes = kTileRows * kTileCols * 2;  // fp16
  static_assert(sizeof(Vec) == (kVec == 8 ? 16 : 2));
  static_assert(kVecsPerTile % kStoreThreads == 0);
  // kRowsPerCta and kStreamingStores change the launch and the store body, not the schedule.

  struct Fragment {
    Vec v[kVecsPerThread];
  };

  struct InputGmem {
    static constexpr ts::ResourceSpec spec{.name = "input_gmem"};
    int row_begin = 0;
    int row_end = 0;
    int compute_coords(ts::Consume const& stage) const { return stage.loop_offset; }
  };

  struct SmemTiles {
    static constexpr ts::ResourceSpec spec{
        .name = "smem",
        .pipeline =
            ts::tma_async(kStages, kStageBytes, ts::threads(1), ts::threads(kStoreThreads))};
    void const* tma = nullptr;
    int col = 0;
    ts::SmemBuffer<Vec, kStages * kVecsPerTile> tiles;  // (STAGES, TILE_ROWS, 128 / VEC)
    using smem_buffers = ts::buffers<&SmemTiles::tiles>;

    void tma_load(ts::Produce const&, int row) { (void)row; }
    Fragment read_smem(ts::Consume const&) const { return {}; }
  };

  struct OutputGmem {
    static constexpr ts::ResourceSpec spec{.name = "output_gmem"};
    std::uint16_t* dst = nullptr;
    int rows = 0;
    int cols = 0;
    int col = 0;
    int row_begin = 0;
    int row_end = 0;
    void store(ts::Produce const&, Fragment const& f) { (void)f; }
  };

  struct LoadTask {
    static constexpr ts::TaskSpec spec{
        .name = "load", .warp_idx = 4, .num_warps = 1, .num_registers = 40};
    using src = ts::list<InputGmem>;
    using dst = ts::list<SmemTiles>;
    static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
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
    static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
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

template <class Kernel>
Entry bundled(std::string_view name, std::string_view description) {
  return {.name = name,
          .theme = kBundled,
          .description = description,
          .expected = {},
          .model = model_of<typename Kernel::Manager>,
          .controls = {}};
}

}  // namespace

void add_bundled_kernels(Corpus& c) {
  // 01_grid_stride_copy.cu: ScalarCopy, VectorCopy and the vector tuning space (VectorTunings).
  c.push_back(bundled<GridStrideCopy<1, 8>>(
      "tutorial01_grid_stride_scalar",
      "Tutorial 01 ScalarCopy: one task on all 8 warps, a grid-stride loop of int16 items "
      "(unroll 8); no pipeline"));
  c.push_back(bundled<GridStrideCopy<8, 1>>(
      "tutorial01_grid_stride_vector",
      "Tutorial 01 VectorCopy: 16-byte items (unroll 1) then an element tail loop: two sibling "
      "run-time loops"));
  c.push_back(bundled<GridStrideCopy<8, 2>>("tutorial01_grid_stride_vector_unroll2",
                                            "Tutorial 01 vector tuning point: unroll 2"));
  c.push_back(bundled<GridStrideCopy<8, 4>>("tutorial01_grid_stride_vector_unroll4",
                                            "Tutorial 01 vector tuning point: unroll 4"));
  c.push_back(bundled<GridStrideCopy<8, 8>>("tutorial01_grid_stride_vector_unroll8",
                                            "Tutorial 01 vector tuning point: unroll 8"));
  // 02_tma_copy.cu: SeedCopy, MultiStageCopy and MultiStageTunings.
  c.push_back(bundled<TmaCopy<1, 1, 0>>(
      "tutorial02_tma_copy_seed",
      "Tutorial 02 SeedCopy: 1 stage of 128x1 fp16, TMA load (warp 4, 40 regs) -> store (warps "
      "0-3, 160 regs), padding warps 5-7, try_ forms, early release"));
  c.push_back(bundled<TmaCopy<4, 64, 256>>(
      "tutorial02_tma_copy_multistage",
      "Tutorial 02 MultiStageCopy: 4 stages of 64x128 fp16 (16 KiB), bands of 256 rows"));
  c.push_back(bundled<TmaCopy<4, 32, 128>>("tutorial02_tma_copy_4x32",
                                           "Tutorial 02 tuning point: 4 stages of 32x128"));
  c.push_back(bundled<TmaCopy<8, 32, 128>>("tutorial02_tma_copy_8x32",
                                           "Tutorial 02 tuning point: 8 stages of 32x128"));
  c.push_back(bundled<TmaCopy<3, 128, 512>>("tutorial02_tma_copy_3x128",
                                            "Tutorial 02 tuning point: 3 stages of 128x128"));
  c.push_back(bundled<TmaCopy<8, 64, 512>>(
      "tutorial02_tma_copy_8x64",
      "Tutorial 02 tuning point: 8 stages of 64x128 (128 KiB of stages)"));
  c.push_back(bundled<TmaCopy<4, 64, 256, true>>(
      "tutorial02_tma_copy_4x64_streaming",
      "Tutorial 02 tuning point: 4 stages of 64x128 with streaming stores (same schedule)"));
  // Every schedule unit of the build (kernels/, warploom_schedules): the schedules themselves, as
  // `warploom verify` reads them; no twin needed.
  for (ts::RegisteredSchedule const& r : ts::registered_schedules())
    c.push_back({.name = r.name,
                 .theme = kBundled,
                 .description = r.description,
                 .expected = {},
                 .model = [model = r.model](std::string_view) { return model(); },
                 .controls = {}});
}

}  // namespace corpus
