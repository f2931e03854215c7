// kernels/gemm/sm90/kernel.cuh
//
// One sm90 TS GEMM instance — a schedule (cooperative.hpp, pingpong.hpp) with the works of one
// typed configuration (config.cuh, works.cuh) — as a kernel. Device code only, which NVRTC
// compiles as well as nvcc; its host launcher is launch.cuh.
#pragma once

#include "gemm/sm90/config.cuh"
#include "gemm/sm90/cooperative.hpp"
#include "gemm/sm90/pingpong.hpp"
#include "gemm/sm90/schedule_only.hpp"
#include "gemm/sm90/works.cuh"
#include "warploom/ts/schedule_unit.hpp"

namespace warploom::gemm::sm90 {

// Design (Cooperative or Pingpong) on shape S, run on TIn x TIn -> TOut with the given operand
// majors, a kClusterM x kClusterN cluster and the fused epilogue Epi (epilogue_ops.cuh). The
// epilogue is no part of the schedule: a fused instance runs the plain one's verified schedule.
template <template <class, class> class Design, class S, class TIn, class TOut, bool kAKMajor,
          bool kBKMajor, int kClusterM, int kClusterN, class Epi = epi::Chain<>>
struct Instance {
  using Schedule = Design<S, ScheduleOnly>;  // what the schedule unit verified
  using Cfg = GemmConfig<TIn, TIn, TOut, kAKMajor, kBKMajor, kClusterM, kClusterN, S,
                         Schedule::kMmaWarpgroups, Epi>;
  using Kernel = Design<S, Works<Cfg>>;
  using Manager = typename Kernel::Manager;
  using Params = typename Cfg::Params;
  template <class W>
  using DesignOn = Design<S, W>;  // the same schedule with other works (grouped.cuh)
};

template <class I>
__global__ void __launch_bounds__(I::Manager::num_threads, 1)
    ts_gemm_kernel(__grid_constant__ typename I::Params const p) {
  extern __shared__ __align__(1024) char smem[];
  using Kernel = typename I::Kernel;
  if (threadIdx.x == Kernel::LoadTask::spec.warp_idx * 32) {
    cute::prefetch_tma_descriptor(p.tma_a.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_b.get_tma_descriptor());
    cute::prefetch_tma_descriptor(&p.tma_d);
  }
  // This CTA's walk over cluster tiles: its cluster's index, clusters in the grid as the stride.
  constexpr int kClusterSize = I::Cfg::kClusterSize;
  typename Kernel::Tiles const tiles{.p = &p,
                                     .first = static_cast<int>(blockIdx.x) / kClusterSize,
                                     .stride = static_cast<int>(gridDim.x) / kClusterSize,
                                     .num_tiles = p.num_tiles};
  Kernel::run(p, tiles, smem);
}

}  // namespace warploom::gemm::sm90
