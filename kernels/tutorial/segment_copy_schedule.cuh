// kernels/tutorial/segment_copy_schedule.cuh
//
// Tutorial 03, second part: a dynamic domain — a loop whose bound is read from the data.
//
//     Tiles (static work queue: tile m = segment m)
//       ──tile──▶ CopyTask: length = Segments.length(tile); start = Segments.offset(tile)
//                           for i in [thread, length) step 128:
//                             InputPacked[start + i] ──element──▶ OutputPadded[tile, i]
//
// Variable-length segments lie back to back in the packed input; each becomes one row of a padded
// matrix. The copy's inner loop runs `length` times, a value a consumer work returned in this
// tile: the verifier treats it as a run-time trip count tried at 0, 1, 2, ... like any other, and
// the data-flow edge from `length` to the loop is part of the captured schedule. Where segment m
// starts (the sum of the lengths before it) is computed on the device by a first kernel
// (03_segment_copy.cu) and read here as data too.
//
// This file is the schedule's one source: the kernel runs it, and its schedule unit
// (kernels/CMakeLists.txt) verifies it while it compiles; the kernel launches with that proof.
#pragma once

#include <cstdint>
#include <string_view>

#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial {

struct SegmentCopy {
  static constexpr int kCopyWarps = 4;
  static constexpr int kCopyThreads = kCopyWarps * 32;

  // ---- Resources -------------------------------------------------------------------------------
  using Tiles = ts::StaticTileQueue;  // one tile per segment

  // The segments' lengths and start offsets (the exclusive prefix sum of the lengths).
  struct Segments {
    static constexpr ts::ResourceSpec spec{.name = "segments"};
    int const* lengths = nullptr;  // (num_segments)
    int const* offsets = nullptr;  // (num_segments)
    int row_elems = 0;             // a padded row's width: longer segments are cut there
    // Consumer works: the current segment's length (what the row can hold of it) and start.
    __device__ int length(ts::Consume const& stage) const {
      int const n = __ldg(lengths + stage.work_tile.m);
      return n < 0 ? 0 : n < row_elems ? n : row_elems;
    }
    __device__ int offset(ts::Consume const& stage) const {
      return __ldg(offsets + stage.work_tile.m);
    }
  };

  struct InputPacked {
    static constexpr ts::ResourceSpec spec{.name = "input_packed"};
    std::int16_t const* packed = nullptr;  // (sum of lengths)
    __device__ std::int16_t get_element(ts::Consume const& stage, int start) const {
      return __ldg(packed + start + stage.loop_offset);
    }
  };

  struct OutputPadded {
    static constexpr ts::ResourceSpec spec{.name = "output_padded"};
    std::int16_t* padded = nullptr;  // (num_segments, row_elems)
    int row_elems = 0;
    __device__ void set_element(ts::Produce const& stage, std::int16_t value) {
      padded[static_cast<long long>(stage.work_tile.m) * row_elems + stage.loop_offset] = value;
    }
  };

  // ---- Schedule and task -----------------------------------------------------------------------
  struct CopyTask {
    static constexpr ts::TaskSpec spec{.name = "copy", .warp_idx = 0, .num_warps = kCopyWarps};
    using src = ts::list<Tiles, Segments, InputPacked>;
    using dst = ts::list<OutputPadded>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& queue, auto& segments,
                                                  auto& input, auto& output) {
      ctx.work_tile_loop(queue, [&](auto& tiles) {
        queue.wait();
        auto tile = ts::work<&Tiles::next_tile>(queue);
        queue.release();
        tiles.if_valid(tile, [&] {
          auto length = ts::work<&Segments::length>(segments);  // the domain, from the data
          auto start = ts::work<&Segments::offset>(segments);
          ctx.domain_loop(ctx.task_thread_idx(), length, ts::c<kCopyThreads>, [&](auto&) {
            auto element = ts::work<&InputPacked::get_element>(input, start);
            ts::work<&OutputPadded::set_element>(output, element);
          });
        });
      });
    }
  };

  // ---- Dependency graph and TaskManager --------------------------------------------------------
  using Manager =
      ts::TaskManager<ts::Tasks<CopyTask>,
                      ts::Graph<ts::DependsOn<OutputPadded, InputPacked, Segments, Tiles>>,
                      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;

  static constexpr std::string_view kName = "segment_copy";
  static constexpr std::string_view kDescription =
      "tutorial 03: variable-length int16 segments into padded rows, one segment per tile of a "
      "static work queue, each row's loop bound read from the data";
};

// ---- Kernel ------------------------------------------------------------------------------------
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    segment_copy_kernel(std::int16_t const* packed, int const* lengths, int const* offsets,
                        int num_segments, int row_elems, std::int16_t* padded) {
  typename Cfg::Tiles tiles{.num_tiles = num_segments};
  typename Cfg::Segments segments{.lengths = lengths, .offsets = offsets, .row_elems = row_elems};
  typename Cfg::InputPacked input{.packed = packed};
  typename Cfg::OutputPadded output{.padded = padded, .row_elems = row_elems};
  typename Cfg::Manager tm(nullptr, tiles, segments, input, output);  // no shared memory
  tm.setup_resources_and_tasks().fence_and_sync_cta().run();
}

}  // namespace warploom::tutorial
