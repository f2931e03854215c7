// kernels/gemm/sm90/kernel.cuh
//
// The kernel of one sm90 TS GEMM instance (instance.hpp): a schedule (cooperative.hpp,
// pingpong.hpp) with the works of one typed configuration (config.cuh, works.cuh). Device code
// only, which NVRTC compiles as well as nvcc; its host launcher is launch.cuh.
#pragma once

#include "gemm/sm90/instance.hpp"
#include "gemm/sm90/works.cuh"
#include "warploom/ts/schedule_unit.hpp"

namespace warploom::gemm::sm90 {

template <class I>
__global__ void __launch_bounds__(I::Manager::num_threads, 1)
    ts_gemm_kernel(__grid_constant__ typename I::Params const p) {
  extern __shared__ __align__(1024) char smem[];
  using Kernel = typename I::Kernel;
  static_assert(Kernel::Manager::num_threads == I::Manager::num_threads &&
                    Kernel::Manager::smem_bytes == I::Manager::smem_bytes &&
                    Kernel::Manager::cluster_size == I::Manager::cluster_size,
                "ts_gemm_kernel: the kernel's TaskManager is not an instance of the verified "
                "schedule (its block, shared memory or cluster differ)");
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
