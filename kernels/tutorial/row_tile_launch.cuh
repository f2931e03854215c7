// kernels/tutorial/row_tile_launch.cuh
//
// How tutorial 07's launchers run a kernel over row tiles: one CTA per 128-wide column and band of
// `rows_per_cta` rows; the TS kernel with its schedule unit's proof (ts::launch sizes its block and
// shared memory from the TaskManager), the baseline with the same block and the shared memory it
// lays out by hand.
#pragma once

#include <cuda_runtime_api.h>

#include "tutorial/row_tiles.cuh"
#include "tutorial/tma_copy.hpp"  // Implementation
#include "warploom/cuda_check.hpp"
#include "warploom/ts/launch.hpp"

namespace warploom::tutorial {

// Params: rows, cols and rows_per_cta of the matrices.
template <class Params>
dim3 row_tile_grid(Params const& p) {
  return dim3(p.cols / rows::kTileCols, (p.rows + p.rows_per_cta - 1) / p.rows_per_cta);
}

template <class Cfg, class Params>
void launch_row_tiles(Implementation impl, void (*ts_kernel)(Params),
                      void (*baseline_kernel)(Params), int baseline_smem_bytes, Params const& p,
                      cudaStream_t stream) {
  if (impl == Implementation::TaskScheduled) {
    ts::launch<typename Cfg::Manager>(ts::verified<Cfg>(), ts_kernel, row_tile_grid(p), stream, p);
    return;
  }
  WL_CUDA_CHECK(cudaFuncSetAttribute(baseline_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     baseline_smem_bytes));
  baseline_kernel<<<row_tile_grid(p), Cfg::Manager::num_threads, baseline_smem_bytes, stream>>>(p);
  WL_CUDA_CHECK(cudaGetLastError());
}

}  // namespace warploom::tutorial
