// warploom/arch/sm90/mbarrier.hpp
//
// mbarrier: the shared-memory arrive/wait barrier every warploom pipeline is built on.
// PTX ISA §9.7.13.15
// (https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier).
// The operations forward to `cuda::ptx` (CCCL); the blocking wait is a try_wait loop because PTX
// has no unbounded-wait form.
#pragma once

#include <cstdint>

#include <cuda/ptx>  // cuda::ptx::mbarrier_*, fence_mbarrier_init

#include "warploom/config.hpp"

namespace warploom::sm90 {

#if defined(__CUDACC__)

// One 8-byte mbarrier in shared memory.
using Mbarrier = std::uint64_t;

WL_DEVICE void mbarrier_init(Mbarrier* bar, std::uint32_t arrival_count) {
  cuda::ptx::mbarrier_init(bar, arrival_count);
}

// Makes barrier initialisation visible to the async proxy (TMA) and to other CTAs of the cluster;
// must be followed by a CTA (or cluster) barrier before any thread uses the barriers.
WL_DEVICE void fence_mbarrier_init() {
  cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
}

WL_DEVICE void mbarrier_arrive(Mbarrier* bar) {
  (void)cuda::ptx::mbarrier_arrive(bar);
}

// Arrives and raises the barrier's expected transaction count by `bytes` (TMA completes them).
WL_DEVICE void mbarrier_arrive_expect_tx(Mbarrier* bar, std::uint32_t bytes) {
  (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                             cuda::ptx::space_shared, bar, bytes);
}

// Non-blocking probe: true once the phase with the given parity has completed.
WL_DEVICE bool mbarrier_test_parity(Mbarrier* bar, std::uint32_t parity) {
  return cuda::ptx::mbarrier_test_wait_parity(bar, parity);
}

// Blocks until the phase with the given parity has completed.
WL_DEVICE void mbarrier_wait_parity(Mbarrier* bar, std::uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

#endif  // __CUDACC__

}  // namespace warploom::sm90
