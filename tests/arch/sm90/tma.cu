// tests/arch/sm90/tma.cu: compile-only test of warploom/arch/sm90/tma.hpp (the header comment of
// tests/arch/sm90/mbarrier.cu says how these tests work). Descriptors come as __grid_constant__
// parameters, as in the kernels.
#include <cuda.h>

#include "warploom/arch/sm90/tma.hpp"

namespace sm90 = warploom::sm90;

extern "C" __global__ void test_tma_load_2d(__grid_constant__ CUtensorMap const map, int x, int y) {
  __shared__ alignas(128) char tile[64 * 128];
  __shared__ sm90::Mbarrier bar;
  // PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
  sm90::tma_load_2d(tile, &map, x, y, &bar);
}

extern "C" __global__ void test_tma_store_3d(__grid_constant__ CUtensorMap const map, int x, int y,
                                             int z) {
  __shared__ alignas(128) char tile[64 * 128];
  // PTX: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
  sm90::tma_store_3d(&map, tile, x, y, z);
}

extern "C" __global__ void test_tma_prefetch_descriptor(__grid_constant__ CUtensorMap const map) {
  // PTX: prefetch.tensormap
  sm90::tma_prefetch_descriptor(&map);
}
