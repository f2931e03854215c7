// kernels/tutorial/grid_stride_copy_schedule.cuh
//
// Tutorial 01: grid-stride copy — the whole TS vocabulary on the smallest kernel.
//
//     InputGmem ──item──▶ OutputGmem          one task (CopyTask) on every warp of the CTA
//
// Two resources own the two tensors; a consumer work reads an item of the input, a producer work
// writes it to the output, and the value flows between them through the schedule. There is no
// shared memory and no pipeline, so the reserved operations are not needed. The naive kernel in
// 01_grid_stride_copy.cu is the baseline the TS kernel is measured against; the host launchers are
// there too.
//
// An item is one int16 (the seed's kernel) or a 16-byte vector of eight: the loop is the same,
// only the works read and write wider.
//
// This file is the schedule's one source: the kernel runs it, and the schedule unit of every copy
// below (kernels/CMakeLists.txt) verifies it while it compiles; the kernel launches with that
// proof.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "tutorial/grid_stride_copy.hpp"  // kGridStrideWarps
#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial {

template <int kElems_, int kUnroll_>
struct GridStrideCopy {
  static constexpr int kElems = kElems_;    // int16 elements per item
  static constexpr int kUnroll = kUnroll_;  // items in flight per thread
  using Item = std::conditional_t<kElems == 1, std::int16_t, int4>;
  static_assert(sizeof(Item) == kElems * sizeof(std::int16_t));

  // ---- Resources -------------------------------------------------------------------------------
  struct InputGmem {
    static constexpr ts::ResourceSpec spec{.name = "input_gmem"};
    std::int16_t const* src = nullptr;
    int num_entries = 0;  // elements
    int num_items = 0;    // whole items: num_entries / kElems
    // Consumer work: reads item `loop_offset` (the seed keeps its bounds check; vector items are
    // always whole inside their loop).
    __device__ Item get_item(ts::Consume const& stage) const {
      int const i = stage.loop_offset;
      if constexpr (kElems == 1) {
        return i < num_entries ? __ldg(&src[i]) : std::int16_t{0};
      } else {
        return __ldg(reinterpret_cast<Item const*>(src) + i);
      }
    }
    // Consumer work: reads element `loop_offset` (the elements after the last whole item).
    __device__ std::int16_t get_element(ts::Consume const& stage) const {
      return src[stage.loop_offset];
    }
  };

  struct OutputGmem {
    static constexpr ts::ResourceSpec spec{.name = "output_gmem"};
    std::int16_t* dst = nullptr;
    int num_entries = 0;
    // Producer work: writes the item get_item produced.
    __device__ void set_item(ts::Produce const& stage, Item data) {
      int const i = stage.loop_offset;
      if constexpr (kElems == 1) {
        if (i < num_entries) dst[i] = data;
      } else {
        reinterpret_cast<Item*>(dst)[i] = data;
      }
    }
    __device__ void set_element(ts::Produce const& stage, std::int16_t data) {
      dst[stage.loop_offset] = data;
    }
  };

  // ---- Schedule and task -----------------------------------------------------------------------
  struct CopyTask {
    static constexpr ts::TaskSpec spec{
        .name = "copy", .warp_idx = 0, .num_warps = kGridStrideWarps};
    using src = ts::list<InputGmem>;
    using dst = ts::list<OutputGmem>;
    // The grid-stride loop: each thread starts at its global index and strides by the grid's
    // thread count; `item` flows from the input's consumer work to the output's producer work.
    // With vector items a second loop copies the last num_entries % 8 elements one by one.
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& input, auto& output) {
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

  // ---- Dependency graph and TaskManager --------------------------------------------------------
  // Verified in the copy's schedule unit, not in the kernel's translation unit.
  using Manager =
      ts::TaskManager<ts::Tasks<CopyTask>, ts::Graph<ts::DependsOn<OutputGmem, InputGmem>>,
                      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;

  // ---- Name ------------------------------------------------------------------------------------
  // What `warploom list` calls it: the tutorial's two copies keep their names (grid_stride_copy,
  // grid_stride_copy_vector: checked below, where they are chosen), and a point of the vector
  // tuning space adds its unroll (grid_stride_copy_vector_u4).
  static constexpr std::string_view kBaseName =
      kElems == 1 ? "grid_stride_copy" : "grid_stride_copy_vector";
  static constexpr ts::ScheduleText kNameText = kUnroll == (kElems == 1 ? 8 : 1)
                                                    ? ts::schedule_text(kBaseName)
                                                    : ts::schedule_text(kBaseName, "_u", kUnroll);
  static constexpr std::string_view kName = kNameText.view();
  static constexpr ts::ScheduleText kDescriptionText = ts::schedule_text(
      "tutorial 01: 1-D int16 copy, ",
      kElems == 1 ? "one int16 per item (the seed's)" : "16-byte items", ", unroll ", kUnroll);
  static constexpr std::string_view kDescription = kDescriptionText.view();
};

// ---- Kernel ------------------------------------------------------------------------------------
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    grid_stride_copy_ts_kernel(std::int16_t const* src, std::int16_t* dst, int n) {
  typename Cfg::InputGmem input{.src = src, .num_entries = n, .num_items = n / Cfg::kElems};
  typename Cfg::OutputGmem output{.dst = dst, .num_entries = n};
  typename Cfg::Manager tm(nullptr, input, output);  // no shared memory: nothing to lay out
  auto initialized = tm.setup_resources_and_tasks();
  auto ready = initialized.fence_and_sync_cta();
  ready.run();
}

// ---- The copies the tutorial runs, each a schedule unit (kernels/CMakeLists.txt) ---------------
using ScalarCopy = GridStrideCopy</*elements per item=*/1, /*unroll=*/8>;
// Unroll 1: on the H200 deeper unrolling (2, 4, 8 items in flight) measured 0.5-1% slower
// (bench/results/tutorial_copies.json); 16-byte items from every thread already saturate HBM.
using VectorCopy = GridStrideCopy</*elements per item=*/8, /*unroll=*/1>;
static_assert(
    ScalarCopy::kName == "grid_stride_copy" && VectorCopy::kName == "grid_stride_copy_vector",
    "the tutorial's copies keep the names `warploom verify` and the docs use: a new default "
    "needs the name rule of GridStrideCopy::kNameText (and its ID in kernels/CMakeLists.txt)");

// The tuning space of the vector variant (TS kernels): items in flight per thread.
using VectorTunings = ts::list<GridStrideCopy<8, 1>, GridStrideCopy<8, 2>, GridStrideCopy<8, 4>,
                               GridStrideCopy<8, 8>>;

}  // namespace warploom::tutorial
