// tests/arch/sm90/warp.cu: compile-only test of warploom/arch/sm90/warp.hpp (the header comment of
// tests/arch/sm90/mbarrier.cu says how these tests work).

#include "warploom/arch/sm90/warp.hpp"

namespace sm90 = warploom::sm90;

// The warp index broadcast from lane 0, which makes it warp-uniform for the compiler.
extern "C" __global__ void test_warp_idx_uniform(int* warp) {
  // PTX: shfl.sync.idx.b32
  *warp = sm90::warp_idx_uniform();
}

extern "C" __global__ void test_elect_one(bool* elected) {
  // PTX: elect.sync
  *elected = sm90::elect_one();
}

extern "C" __global__ void test_named_barrier_sync(int id, int threads) {
  // PTX: bar.sync
  sm90::named_barrier_sync(id, threads);
}
