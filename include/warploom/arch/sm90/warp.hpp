// warploom/arch/sm90/warp.hpp
//
// Warp identity and election (the two facts a task branch is selected on), and the named barrier
// that synchronises the warps of one task.
#pragma once

#include <cute/arch/cluster_sm90.hpp>  // cute::elect_one_sync

#include "warploom/config.hpp"

namespace warploom::sm90 {

#if defined(__CUDACC__)

inline constexpr int kThreadsPerWarp = 32;
inline constexpr int kWarpsPerWarpgroup = 4;

// The warp index, broadcast from lane 0 so the compiler knows it is warp-uniform and every task
// branch compiles to a uniform branch.
WL_DEVICE int warp_idx_uniform() {
  // Unsigned: threadIdx.x / 32 is one shift (an int division rounds negatives: three ops).
  return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / unsigned{kThreadsPerWarp}), 0);
}

// True in exactly one lane of the (fully converged) warp: elect.sync.
WL_DEVICE bool elect_one() {
  return cute::elect_one_sync() != 0;
}

// Barrier `id` (1-15; 0 is __syncthreads') among `threads` threads (a multiple of 32): the
// synchronisation of one task's warps that leaves the other tasks running.
WL_DEVICE void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

#endif  // __CUDACC__

}  // namespace warploom::sm90
