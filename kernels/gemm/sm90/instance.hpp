// kernels/gemm/sm90/instance.hpp
//
// One sm90 TS GEMM instance as a set of types: its verified schedule, its typed configuration
// (config.cuh: CuTe layouts, TMA atoms, Params) and the kernel design that runs them. Enough for a
// launcher (launch.cuh), which a host compiler alone can compile: nothing here instantiates the
// work bodies (works.cuh, device code), which only the kernel (kernel.cuh) needs.
#pragma once

#include "gemm/sm90/config.cuh"
#include "gemm/sm90/cooperative.hpp"
#include "gemm/sm90/pingpong.hpp"
#include "gemm/sm90/schedule_only.hpp"

namespace warploom::gemm::sm90 {

template <class Cfg>
struct Works;  // works.cuh

// Design (Cooperative or Pingpong) on shape S, run on TIn x TIn -> TOut with the given operand
// majors, a kClusterM x kClusterN cluster and the fused epilogue Epi (epilogue_ops.cuh). The
// epilogue is no part of the schedule: a fused instance runs the plain one's verified schedule.
template <template <class, class> class Design, class S, class TIn, class TOut, bool kAKMajor,
          bool kBKMajor, int kClusterM, int kClusterN, class Epi = epi::Chain<>>
struct Instance {
  using Schedule = Design<S, ScheduleOnly>;  // what the schedule unit verified
  using Cfg = GemmConfig<TIn, TIn, TOut, kAKMajor, kBKMajor, kClusterM, kClusterN, S,
                         Schedule::kMmaWarpgroups, Epi>;
  using Kernel = Design<S, Works<Cfg>>;  // named, not instantiated, here
  // The schedule's TaskManager: its block, shared memory and cluster are the kernel's (the kernel
  // asserts it, ts_gemm_kernel), and a launcher reads them without the work bodies.
  using Manager = typename Schedule::Manager;
  using Params = typename Cfg::Params;
  template <class W>
  using DesignOn = Design<S, W>;  // the same schedule with other works (grouped.cuh)
};

}  // namespace warploom::gemm::sm90
