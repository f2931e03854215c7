// tests/compile_fail/ts_verifier_not_parsed.cu — a translation unit that defines
// WARPLOOM_TS_VERIFIED_IN_SCHEDULE_UNITS does not parse the verifier
// (warploom/ts/task_manager.hpp), so a manager there that asks for its check in the kernel unit
// (ManagerOptions' default, VerifiedIn::KernelUnit) must be refused by name, not compiled
// unchecked. Without the define this file compiles (the manager passes the check). The
// compile-pass control of the define itself is every GEMM and attention instance
// (src/gemm/sm90_source.cpp, kernels/attention/sm90/instance.cu.in): their managers are verified
// in their schedule units.

#define WARPLOOM_TS_VERIFIED_IN_SCHEDULE_UNITS
#include "warploom/ts/ts.hpp"

namespace cf_verifier_not_parsed {

namespace ts = warploom::ts;

struct Ring {
  static constexpr ts::ResourceSpec spec{
      .name = "ring", .pipeline = ts::async_async(2, ts::threads(32), ts::threads(32))};
  int n = 0;
  ts::SmemBuffer<int, 2 * 32, 16> slots;  // (STAGES, 32)
  using smem_buffers = ts::buffers<&Ring::slots>;
  __device__ void put(ts::Produce const& stage) {
    slots[stage.stage_idx * 32 + threadIdx.x % 32] = 1;
  }
  __device__ int take(ts::Consume const& stage) const { return slots[stage.stage_idx * 32]; }
};

struct Fill {
  static constexpr ts::TaskSpec spec{.name = "fill", .warp_idx = 1, .num_warps = 1};
  using src = ts::list<>;
  using dst = ts::list<Ring>;
  WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& ring) {
    ctx.domain_loop(ring->n, [&](auto&) {
      ring.acquire();
      ts::work<&Ring::put>(ring);
      ring.commit();
    });
  }
};

struct Drain {
  static constexpr ts::TaskSpec spec{.name = "drain", .warp_idx = 0, .num_warps = 1};
  using src = ts::list<Ring>;
  using dst = ts::list<>;
  WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& ring) {
    ctx.domain_loop(ring->n, [&](auto&) {
      ring.wait();
      ts::work<&Ring::take>(ring);
      ring.release();
    });
  }
};

using Manager = ts::TaskManager<ts::Tasks<Drain, Fill>,
                                ts::Graph<ts::DependsOn<Ring>>>;  // VerifiedIn::KernelUnit

__global__ void __launch_bounds__(Manager::num_threads, 1) drain_kernel(int n) {
  extern __shared__ __align__(128) char smem[];
  Ring ring{};
  ring.n = n;
  Manager tm(smem, ring);
  tm.setup_resources_and_tasks().fence_and_sync_cta().run();
}

}  // namespace cf_verifier_not_parsed
