// tests/arch/sm90/cluster.cu: compile-only test of warploom/arch/sm90/cluster.hpp (the header
// comment of tests/arch/sm90/mbarrier.cu says how these tests work).
#include <cstdint>

#include "warploom/arch/sm90/cluster.hpp"

namespace sm90 = warploom::sm90;

extern "C" __global__ void test_cluster_cta_rank(std::uint32_t* rank) {
  // PTX: %cluster_ctarank
  *rank = sm90::cluster_cta_rank();
}

extern "C" __global__ void test_cluster_sync() {
  // PTX: barrier.cluster.arrive.release
  // PTX: barrier.cluster.wait
  sm90::cluster_sync();
}

// After fence.mbarrier_init the arrival needs no release of its own (no GPU-scope fence).
extern "C" __global__ void test_cluster_sync_after_barrier_init() {
  // PTX: barrier.cluster.arrive.relaxed
  // PTX: barrier.cluster.wait
  // PTX-NOT: .release
  sm90::cluster_sync_after_barrier_init();
}

// The default .release.cta semantics (cluster.hpp says why not cuda::ptx's .release.cluster).
extern "C" __global__ void test_mbarrier_arrive_cluster(std::uint32_t cta_rank) {
  __shared__ sm90::Mbarrier bar;
  // PTX: mapa.shared::cluster.u32
  // PTX: mbarrier.arrive.shared::cluster.b64
  // PTX-NOT: .release.cluster
  sm90::mbarrier_arrive_cluster(&bar, cta_rank);
}
