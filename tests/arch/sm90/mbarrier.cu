// tests/arch/sm90/mbarrier.cu: compile-only test of warploom/arch/sm90/mbarrier.hpp.
//
// Every wrapper in an extern "C" kernel of its own; each `// PTX:` line names an instruction that
// kernel's PTX must contain (`// PTX-NOT:` one it must not), checked by tests/arch/check_ptx.py
// after ptxas has assembled the PTX for sm_90a. No GPU runs it.
#include <cstdint>

#include "warploom/arch/sm90/mbarrier.hpp"

namespace sm90 = warploom::sm90;

extern "C" __global__ void test_mbarrier_init(std::uint32_t arrival_count) {
  __shared__ sm90::Mbarrier bar;
  // PTX: mbarrier.init.shared.b64
  sm90::mbarrier_init(&bar, arrival_count);
}

extern "C" __global__ void test_fence_mbarrier_init() {
  // PTX: fence.mbarrier_init.release.cluster
  sm90::fence_mbarrier_init();
}

extern "C" __global__ void test_mbarrier_arrive() {
  __shared__ sm90::Mbarrier bar;
  // PTX: mbarrier.arrive.shared.b64
  sm90::mbarrier_arrive(&bar);
}

extern "C" __global__ void test_mbarrier_arrive_expect_tx(std::uint32_t bytes) {
  __shared__ sm90::Mbarrier bar;
  // PTX: mbarrier.arrive.expect_tx.release.cta.shared::cta.b64
  sm90::mbarrier_arrive_expect_tx(&bar, bytes);
}

extern "C" __global__ void test_mbarrier_test_parity(std::uint32_t parity, bool* done) {
  __shared__ sm90::Mbarrier bar;
  // PTX: mbarrier.test_wait.parity.shared.b64
  // PTX-NOT: mbarrier.try_wait
  *done = sm90::mbarrier_test_parity(&bar, parity);
}

// A loop around try_wait (PTX has no unbounded wait): the branch back.
extern "C" __global__ void test_mbarrier_wait_parity(std::uint32_t parity) {
  __shared__ sm90::Mbarrier bar;
  // PTX: mbarrier.try_wait.parity.shared::cta.b64
  // PTX: bra
  sm90::mbarrier_wait_parity(&bar, parity);
}
