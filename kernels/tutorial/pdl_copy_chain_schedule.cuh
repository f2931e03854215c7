// kernels/tutorial/pdl_copy_chain_schedule.cuh
//
// Tutorial 04 (first part): programmatic dependent launch on the smallest kernel. Two copies in a
// row on one stream, the second reading what the first wrote:
//
//     copy 1: a ──▶ b         copy 2: b ──▶ c
//             signals the next grid    waits for the previous grid, then reads b
//             (launch_griddep), then   (wait_griddep)
//             copies
//
// Launched plainly, copy 2's CTAs start when copy 1 has finished; launched with
// ts::StreamOrder::Programmatic, they start once every CTA of copy 1 has signalled, and the launch
// overlaps copy 1's tail. Both copies run one schedule — tutorial 01's vector grid-stride copy with
// ts::PdlWait upstream of its input (R-D7: the task waits before it reads the input) and
// ts::PdlLaunch in its dst — so a kernel launched plainly runs the same code (both instructions are
// no-ops then).
#pragma once

#include <string_view>

#include "tutorial/grid_stride_copy_schedule.cuh"
#include "warploom/ts/pdl.hpp"
#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/ts.hpp"

namespace warploom::tutorial {

struct PdlCopyChain {
  using Copy = VectorCopy;  // 16-byte items, unroll 1
  using InputGmem = Copy::InputGmem;
  using OutputGmem = Copy::OutputGmem;

  struct CopyTask {
    static constexpr ts::TaskSpec spec{
        .name = "copy", .warp_idx = 0, .num_warps = kGridStrideWarps};
    using src = ts::list<InputGmem, ts::PdlWait>;
    using dst = ts::list<OutputGmem, ts::PdlLaunch>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& input, auto& previous,
                                                  auto& output, auto& next) {
      // The next grid may start its CTAs now: it waits for this grid's end before it reads.
      ts::work<&ts::PdlLaunch::launch_griddep>(next);
      // The input is the previous grid's output: wait for that grid before reading it.
      ts::work<&ts::PdlWait::wait_griddep>(previous);
      Copy::CopyTask::schedule(ctx, input, output);
    }
  };

  // The input depends on the previous grid (R-D7 orders the wait before the input's first read);
  // the signal to the next grid has no upstream.
  using Manager = ts::TaskManager<
      ts::Tasks<CopyTask>,
      ts::Graph<ts::DependsOn<OutputGmem, InputGmem>, ts::DependsOn<InputGmem, ts::PdlWait>,
                ts::DependsOn<ts::PdlLaunch>>,
      ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;

  static constexpr std::string_view kName = "pdl_copy_chain";
  static constexpr std::string_view kDescription =
      "tutorial 04: a 1-D int16 copy (16-byte items) that waits for the previous grid and "
      "signals the next (programmatic dependent launch)";
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    pdl_copy_chain_kernel(std::int16_t const* src, std::int16_t* dst, int n) {
  typename Cfg::InputGmem input{.src = src, .num_entries = n, .num_items = n / Cfg::Copy::kElems};
  typename Cfg::OutputGmem output{.dst = dst, .num_entries = n};
  ts::PdlWait previous;
  ts::PdlLaunch next;
  typename Cfg::Manager tm(nullptr, input, previous, output, next);
  tm.setup_resources_and_tasks().fence_and_sync_cta().run();
}

}  // namespace warploom::tutorial
