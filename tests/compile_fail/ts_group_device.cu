// tests/compile_fail/ts_group_device.cu — the device-side rules of pipeline groups
// (warploom/ts/device/group_handle.hpp, the TaskManager's lowering), which only a kernel's
// compilation can check.
//
// Without a CASE_ define this file declares a kernel whose consumer waits on both members of a
// ts::Merge and releases the group; tests/gpu/ts/pipeline_group_test.cu includes it (the
// compile-pass control). Each CASE_ define breaks one rule, and tests/compile_fail/CMakeLists.txt
// expects nvcc's error to name it:
//   CASE_GROUP_MEMBER_NOT_LISTED  the consumer lists the group but not every member (R-C2)
//   CASE_GROUP_TAKES_OTHER_OP     the consumer waits on the group itself (R-D25)

#include "warploom/ts/ts.hpp"

namespace cf_group_device {

namespace ts = warploom::ts;

template <ts::FixedName kName>
struct Ring {
  static constexpr ts::ResourceSpec spec{
      .name = kName.view(), .pipeline = ts::async_async(2, ts::threads(32), ts::threads(128))};
  int n = 0;
  ts::SmemBuffer<int, 2 * 128, 16> slots;  // (STAGES, 128)
  using smem_buffers = ts::buffers<&Ring::slots>;
  __device__ void put(ts::Produce const& stage) {
    slots[stage.stage_idx * 128 + threadIdx.x % 32] = 1;
  }
  __device__ int take(ts::Consume const& stage) const { return slots[stage.stage_idx * 128]; }
};
using A = Ring<"a">;
using B = Ring<"b">;
using Inputs = ts::Merge<"inputs", A, B>;

template <class R, int kWarp>
struct Fill {
  static constexpr ts::TaskSpec spec{.name = "fill", .warp_idx = kWarp, .num_warps = 1};
  using src = ts::list<>;
  using dst = ts::list<R>;
  WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& ring) {
    ctx.domain_loop(ring->n, [&](auto&) {
      ring.acquire();
      ts::work<&R::put>(ring);
      ring.commit();
    });
  }
};

struct Consume {
  static constexpr ts::TaskSpec spec{.name = "consume", .warp_idx = 0, .num_warps = 4};
#if defined(CASE_GROUP_MEMBER_NOT_LISTED)
  using src = ts::list<A, Inputs>;
#else
  using src = ts::list<A, B, Inputs>;
#endif
  using dst = ts::list<>;
#if defined(CASE_GROUP_MEMBER_NOT_LISTED)
  WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& a, auto& inputs) {
    ctx.domain_loop(a->n, [&](auto&) {
      a.wait();
      ts::work<&A::take>(a);
      inputs.release();
    });
  }
#else
  WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& a, auto& b, auto& inputs) {
    ctx.domain_loop(a->n, [&](auto&) {
      a.wait();
      b.wait();
      ts::work<&A::take>(a);
      ts::work<&B::take>(b);
#if defined(CASE_GROUP_TAKES_OTHER_OP)
      inputs.wait();
#endif
      inputs.release();
    });
  }
#endif
};

// The verifier's own verdicts are not this file's subject: the kernel is verified where it runs.
using Manager = ts::TaskManager<ts::Tasks<Consume, Fill<A, 4>, Fill<B, 5>>, ts::Graph<>,
                                ts::ManagerOptions{.compile_time_checks = false}>;

__global__ void __launch_bounds__(Manager::num_threads, 1) merge_kernel(int n) {
  extern __shared__ __align__(128) char smem[];
  A a{};
  a.n = n;
  B b{};
  b.n = n;
  Inputs inputs{};
  Manager tm(smem, a, b, inputs);
  tm.setup_resources_and_tasks().fence_and_sync_cta().run();
}

}  // namespace cf_group_device
