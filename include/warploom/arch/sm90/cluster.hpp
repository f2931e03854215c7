// warploom/arch/sm90/cluster.hpp
//
// Thread-block clusters: a CTA's rank in its cluster, the cluster-wide barrier, and arrivals on an
// mbarrier of another CTA of the cluster (distributed shared memory). PTX ISA §9.7.13.3
// (barrier.cluster), §9.7.9.22 (mapa), §9.7.13.15.13 (mbarrier.arrive .shared::cluster).
#pragma once

#include <cstdint>

#include <cuda/ptx>  // cuda::ptx::barrier_cluster_*, get_sreg_cluster_*

#include <cutlass/arch/barrier.h>  // cutlass::arch::ClusterBarrier

#include "warploom/arch/sm90/mbarrier.hpp"
#include "warploom/config.hpp"

namespace warploom::sm90 {

#if defined(__CUDACC__)

// This CTA's rank in its cluster (0 without a cluster launch).
WL_DEVICE std::uint32_t cluster_cta_rank() {
  return cuda::ptx::get_sreg_cluster_ctarank();
}

// Every thread of every CTA of the cluster arrives (release) and waits (acquire): what one CTA
// wrote before, e.g. its barrier initialisation, is visible to the others after.
WL_DEVICE void cluster_sync() {
  cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
  cuda::ptx::barrier_cluster_wait();
}

// cluster_sync for a kernel whose threads published what the peers need with a fence of their
// own before it: the mbarriers they initialised, by fence.mbarrier_init.release.cluster (the
// TaskManager's fence_and_sync_cta). That fence and a relaxed arrival form the release; the wait
// acquires. CUTLASS's fence_barrier_init + cluster_arrive_relaxed: the release arrival would be a
// GPU-scope memory barrier of every thread (MEMBAR.ALL.GPU in SASS).
WL_DEVICE void cluster_sync_after_barrier_init() {
  cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed);
  cuda::ptx::barrier_cluster_wait();
}

// Arrives on the barrier at `bar`'s offset in the shared memory of the cluster's CTA `cta_rank`
// (which may be this CTA). CUTLASS's ClusterBarrier::arrive: mapa + mbarrier.arrive.shared::cluster
// with the default .release.cta semantics, which is what a consumer release needs (its reads of
// the stage are complete in program order or retired by wgmma.wait_group); cuda::ptx offers only
// the .release.cluster form, a cluster-scope fence on every arrival.
WL_DEVICE void mbarrier_arrive_cluster(Mbarrier* bar, std::uint32_t cta_rank) {
  cutlass::arch::ClusterBarrier::arrive(bar, cta_rank, 1u);
}

#endif  // __CUDACC__

}  // namespace warploom::sm90
