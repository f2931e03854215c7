// tests/gpu/ts/pipeline_test.cu — the threads -> threads pipeline (ts::async_async) on the GPU.
//
// A producer task (warps 4-7) writes one stage per iteration into a shared-memory ring; a consumer
// task (warps 0-3) waits, reads it into a running sum held in a task-local variable, releases, and
// in the loop's last iteration stores the sum. Every stage count and both arrival agents
// (every thread / one elected lane per warp), with iteration counts 0, 1, stages, and many laps:
// the test finishes only if the phases are right (a wrong phase hangs; ctest's timeout fails it)
// and the sums are right only if every stage was read after it was written and before it was
// overwritten.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"
#include "warploom/ts/launch.hpp"
#include "warploom/ts/ts.hpp"

namespace ts = warploom::ts;
namespace wt = warploom::testing;

namespace {

constexpr int kThreads = 128;  // per task

// kLagged: the consumer releases each stage one iteration late (advance_on_wait, release in
// not_first_iter and the last iteration), holding two stages at a time.
template <int kStages, ts::Agent kAgent, bool kLagged = false>
struct RingCase {
  static constexpr ts::CooperativeGroup group =
      kAgent == ts::Agent::Thread ? ts::threads(kThreads) : ts::warps(4);

  struct Counter {  // coordinate-only source of the iteration's value
    static constexpr ts::ResourceSpec spec{.name = "counter"};
    __device__ int next(ts::Consume const& stage) const { return stage.loop_offset; }
  };

  struct Ring {
    static constexpr ts::PipelineConfig pipeline = ts::async_async(kStages, group, group);
    static constexpr ts::ResourceSpec spec{
        .name = "ring", .pipeline = kLagged ? pipeline.with_advance_on_wait() : pipeline};
    int iterations = 0;
    ts::SmemBuffer<int, kStages * kThreads, 16> slots;  // (STAGES, THREADS)
    using smem_buffers = ts::buffers<&Ring::slots>;
    __device__ void fill(ts::Produce const& stage, int iteration) {
      slots[stage.stage_idx * kThreads + static_cast<int>(threadIdx.x) - 4 * 32] =
          iteration * 1000 + static_cast<int>(threadIdx.x) - 4 * 32;
    }
    __device__ int take(ts::Consume const& stage, int running) const {
      return running + slots[stage.stage_idx * kThreads + static_cast<int>(threadIdx.x)];
    }
  };

  struct Sums {
    static constexpr ts::ResourceSpec spec{.name = "sums"};
    int* out = nullptr;
    __device__ void store(ts::Produce const&, int sum) { out[threadIdx.x] = sum; }
  };

  struct Producer {
    static constexpr ts::TaskSpec spec{.name = "producer", .warp_idx = 4, .num_warps = 4};
    using src = ts::list<Counter>;
    using dst = ts::list<Ring>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& counter, auto& ring) {
      ctx.domain_loop(ring->iterations, [&](auto&) {
        auto i = ts::work<&Counter::next>(counter);
        ring.acquire();
        ts::work<&Ring::fill>(ring, i);
        ring.commit();
      });
    }
  };

  struct Consumer {
    static constexpr ts::TaskSpec spec{.name = "consumer", .warp_idx = 0, .num_warps = 4};
    using src = ts::list<Ring>;
    using dst = ts::list<Sums>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& ring, auto& sums) {
      auto sum = ctx.local(0);
      ctx.domain_loop(ring->iterations, [&](auto& loop) {
        ring.try_wait();
        ring.wait();
        sum = ts::work<&Ring::take>(ring, sum);
        if constexpr (kLagged) {
          loop.not_first_iter([&] { ring.release(); });  // the previous iteration's stage
          loop.last_iter([&] {
            ring.release();
            ts::work<&Sums::store>(sums, sum);
          });
        } else {
          ring.release();
          loop.last_iter([&] { ts::work<&Sums::store>(sums, sum); });
        }
      });
    }
  };

  using Manager =
      ts::TaskManager<ts::Tasks<Consumer, Producer>,
                      ts::Graph<ts::DependsOn<Ring, Counter>, ts::DependsOn<Sums, Ring>>>;
};

template <class C>
__global__ void __launch_bounds__(C::Manager::num_threads, 1)
    ring_kernel(int* out, int iterations) {
  extern __shared__ __align__(128) char smem[];
  typename C::Counter counter{};
  typename C::Ring ring{};
  ring.iterations = iterations;
  typename C::Sums sums{.out = out};
  typename C::Manager tm(smem, counter, ring, sums);
  auto initialized = tm.setup_resources_and_tasks();
  auto ready = initialized.fence_and_sync_cta();
  ready.run();
}

// by_handle: launched as a kernel loaded at run time is (a cubin NVRTC compiled), by its
// cudaKernel_t (ts::KernelHandle), here the handle cudaGetKernel gives of the kernel compiled here.
template <int kStages, ts::Agent kAgent, bool kLagged = false>
void check_ring(int iterations, bool by_handle = false) {
  using C = RingCase<kStages, kAgent, kLagged>;
  wt::DeviceBuffer out(kThreads * sizeof(int));
  wt::poison(out.get(), out.bytes());
  if (by_handle) {
    ts::KernelHandle<int*, int> handle;
    WL_CUDA_CHECK(cudaGetKernel(&handle.kernel, ring_kernel<C>));
    ts::launch<typename C::Manager>("async_async ring by handle", handle, dim3(1), nullptr,
                                    out.as<int>(), iterations);
  } else {
    ts::launch<typename C::Manager>("async_async ring", ring_kernel<C>, dim3(1), nullptr,
                                    out.as<int>(), iterations);
  }
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int> got(kThreads);
  WL_CUDA_CHECK(cudaMemcpy(got.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
  for (int t = 0; t < kThreads; ++t) {
    long long want = 0;
    for (int i = 0; i < iterations; ++i) want += i * 1000LL + t;
    int const expected =
        iterations == 0 ? -1 : static_cast<int>(want);  // 0 iterations: poison stays
    ASSERT_EQ(got[t], expected) << "stages=" << kStages
                                << " agent=" << (kAgent == ts::Agent::Thread ? "thread" : "warp")
                                << " iterations=" << iterations << " thread=" << t;
  }
}

template <int kStages, ts::Agent kAgent, bool kLagged = false>
void check_all_counts() {
  for (int iterations : {0, 1, kStages, 5 * kStages + 3, 1000})
    check_ring<kStages, kAgent, kLagged>(iterations);
}

TEST(AsyncAsyncPipeline, Stages1ThreadArrivals) {
  check_all_counts<1, ts::Agent::Thread>();
}
TEST(AsyncAsyncPipeline, Stages2ThreadArrivals) {
  check_all_counts<2, ts::Agent::Thread>();
}
TEST(AsyncAsyncPipeline, Stages3ThreadArrivals) {
  check_all_counts<3, ts::Agent::Thread>();
}
TEST(AsyncAsyncPipeline, Stages8ThreadArrivals) {
  check_all_counts<8, ts::Agent::Thread>();
}
TEST(AsyncAsyncPipeline, Stages1WarpArrivals) {
  check_all_counts<1, ts::Agent::Warp>();
}
TEST(AsyncAsyncPipeline, Stages4WarpArrivals) {
  check_all_counts<4, ts::Agent::Warp>();
}
TEST(AsyncAsyncPipeline, Stages7WarpArrivals) {
  check_all_counts<7, ts::Agent::Warp>();
}
// Lagged release holds two stages at a time: with one stage it deadlocks, which the verifier
// rejects while the kernel compiles (R-M1), so the lagged rings start at two stages.
TEST(AsyncAsyncPipeline, LaunchedByHandle) {
  for (int iterations : {0, 1, 7, 1000}) check_ring<3, ts::Agent::Thread>(iterations, true);
}
TEST(AsyncAsyncPipeline, Stages2ThreadArrivalsLaggedRelease) {
  check_all_counts<2, ts::Agent::Thread, true>();
}
TEST(AsyncAsyncPipeline, Stages5ThreadArrivalsLaggedRelease) {
  check_all_counts<5, ts::Agent::Thread, true>();
}

}  // namespace
