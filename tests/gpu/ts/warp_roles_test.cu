// tests/gpu/ts/warp_roles_test.cu — a task whose warps take roles (TaskSpec::warp_roles) on the
// GPU.
//
// The producer task has two warps that branch on their warp index around their pipeline ops: warp
// 4 fills ring `a`, warp 5 ring `b` (32 ints per stage, one per lane, then ts::sync_task: a warp
// role syncs its own warp). A four-warp consumer adds a stage of each ring per iteration into a
// running sum and stores it in the last iteration. The run finishes only if each warp drains the
// ring it fills and no other (a drain of the other ring would wait on phases its cursor never
// reached) and no named barrier waits for both warps; the sums are right only if every stage was
// read after its warp wrote it and before it was overwritten.
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"
#include "warploom/ts/launch.hpp"
#include "warploom/ts/print.hpp"
#include "warploom/ts/ts.hpp"

namespace ts = warploom::ts;
namespace wt = warploom::testing;

namespace {

constexpr int kConsumerThreads = 128;
constexpr int kLanes = 32;
constexpr int kOffsetB = 100000;  // b's values, told apart from a's

template <int kStages, ts::Agent kAgent>
struct RolesCase {
  static constexpr ts::CooperativeGroup producers =
      kAgent == ts::Agent::Thread ? ts::threads(kLanes) : ts::warps(1);
  static constexpr ts::CooperativeGroup consumers =
      kAgent == ts::Agent::Thread ? ts::threads(kConsumerThreads) : ts::warps(4);

  struct Counter {  // coordinate-only source of the iteration's value
    static constexpr ts::ResourceSpec spec{.name = "counter"};
    int iterations = 0;
    __device__ int next(ts::Consume const& stage) const { return stage.loop_offset; }
  };

  // kOffset 0: ring `a`; kOffsetB: ring `b`.
  template <int kOffset>
  struct Lanes {
    static constexpr ts::ResourceSpec spec{
        .name = kOffset == 0 ? "a" : "b",
        .pipeline = ts::async_async(kStages, producers, consumers)};
    int iterations = 0;
    ts::SmemBuffer<int, kStages * kLanes, 16> slots;  // (STAGES, LANES)
    using smem_buffers = ts::buffers<&Lanes::slots>;
    // Both rings run the counter's iterations (otherwise the verifier tries them apart: warp 4
    // filling a once and warp 5 filling b twice hangs the consumer, R-M1).
    using same_sizes = ts::same_sizes<ts::same_size<&Lanes::iterations, &Counter::iterations>>;
    __device__ void fill(ts::Produce const& stage, int iteration) {
      int const lane = static_cast<int>(threadIdx.x) % kLanes;
      slots[stage.stage_idx * kLanes + lane] = iteration * 1000 + lane + kOffset;
      ts::sync_task(stage.context);  // the role's one warp (no named barrier for two)
    }
    __device__ int take(ts::Consume const& stage, int running) const {
      return running + slots[stage.stage_idx * kLanes + static_cast<int>(threadIdx.x) % kLanes];
    }
  };
  using A = Lanes<0>;
  using B = Lanes<kOffsetB>;

  struct Sums {
    static constexpr ts::ResourceSpec spec{.name = "sums"};
    int* out = nullptr;
    __device__ void store(ts::Produce const&, int sum) { out[threadIdx.x] = sum; }
  };

  struct Producer {
    static constexpr ts::TaskSpec spec{
        .name = "producer", .warp_idx = 4, .num_warps = 2, .warp_roles = true};
    using src = ts::list<Counter>;
    using dst = ts::list<A, B>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& counter, auto& a, auto& b) {
      if (ctx.warp_idx() == spec.warp_idx) {
        ctx.domain_loop(a->iterations, [&](auto&) {
          auto i = ts::work<&Counter::next>(counter);
          a.acquire();
          ts::work<&A::fill>(a, i);
          a.commit();
        });
      } else {
        ctx.domain_loop(b->iterations, [&](auto&) {
          auto i = ts::work<&Counter::next>(counter);
          b.acquire();
          ts::work<&B::fill>(b, i);
          b.commit();
        });
      }
    }
  };

  struct Consumer {
    static constexpr ts::TaskSpec spec{.name = "consumer", .warp_idx = 0, .num_warps = 4};
    using src = ts::list<A, B>;
    using dst = ts::list<Sums>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& a, auto& b, auto& sums) {
      auto sum = ctx.local(0);
      ctx.domain_loop(a->iterations, [&](auto& loop) {
        a.wait();
        b.wait();
        sum = ts::work<&A::take>(a, sum);
        sum = ts::work<&B::take>(b, sum);
        a.release();
        b.release();
        loop.last_iter([&] { ts::work<&Sums::store>(sums, sum); });
      });
    }
  };

  using Manager = ts::TaskManager<
      ts::Tasks<Consumer, Producer>,
      ts::Graph<ts::DependsOn<A, Counter>, ts::DependsOn<B, Counter>, ts::DependsOn<Sums, A, B>>>;
};

template <class C>
__global__ void __launch_bounds__(C::Manager::num_threads, 1)
    roles_kernel(int* out, int iterations) {
  extern __shared__ __align__(128) char smem[];
  typename C::Counter counter{};
  typename C::A a{};
  typename C::B b{};
  counter.iterations = a.iterations = b.iterations = iterations;
  typename C::Sums sums{.out = out};
  typename C::Manager tm(smem, counter, a, b, sums);
  auto initialized = tm.setup_resources_and_tasks();
  auto ready = initialized.fence_and_sync_cta();
  ready.run();
}

template <int kStages, ts::Agent kAgent>
void check_roles(int iterations) {
  using C = RolesCase<kStages, kAgent>;
  wt::DeviceBuffer out(kConsumerThreads * sizeof(int));
  wt::poison(out.get(), out.bytes());
  ts::launch<typename C::Manager>("warp roles", roles_kernel<C>, dim3(1), nullptr, out.as<int>(),
                                  iterations);
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int> got(kConsumerThreads);
  WL_CUDA_CHECK(cudaMemcpy(got.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
  for (int t = 0; t < kConsumerThreads; ++t) {
    long long want = 0;
    for (int i = 0; i < iterations; ++i) want += 2 * (i * 1000LL + t % kLanes) + kOffsetB;
    int const expected = iterations == 0 ? -1 : static_cast<int>(want);  // 0: poison stays
    ASSERT_EQ(got[t], expected) << "stages=" << kStages << " iterations=" << iterations
                                << " thread=" << t;
  }
}

// Each warp a one-warp task of its own: one producer per ring, one named barrier fewer. (The
// model also lists warps 6-7, which the TaskManager pads to the producers' warpgroup.)
TEST(WarpRoles, TheModelHasOneTaskPerWarp) {
  using C = RolesCase<2, ts::Agent::Thread>;
  ts::ManagerModel const m = C::Manager::model("warp roles");
  auto const task = [&](std::string_view name) -> ts::TaskModel const* {
    for (auto const& t : m.tasks)
      if (t.spec.name == name) return &t;
    return nullptr;
  };
  EXPECT_EQ(task("producer"), nullptr) << "a task with warp roles is modelled warp by warp";
  ts::TaskModel const* warp4 = task("producer[warp 4]");
  ts::TaskModel const* warp5 = task("producer[warp 5]");
  ASSERT_NE(warp4, nullptr);
  ASSERT_NE(warp5, nullptr);
  EXPECT_EQ(warp4->spec.warp_idx, 4);
  EXPECT_EQ(warp5->spec.warp_idx, 5);
  EXPECT_EQ(warp5->spec.num_warps, 1);
  EXPECT_EQ(warp4->role, 0);
  EXPECT_EQ(warp5->role, 1);
  EXPECT_EQ(warp4->barrier, 0);
  EXPECT_EQ(warp5->barrier, 0);
  ts::Report const r = C::Manager::verify("warp roles");
  EXPECT_TRUE(r.ok()) << ts::schedule_table(m, &r);
}

TEST(WarpRoles, ThreadArrivals) {
  for (int iterations : {0, 1, 2, 3, 11, 1000}) check_roles<2, ts::Agent::Thread>(iterations);
  for (int iterations : {1, 5, 1000}) check_roles<1, ts::Agent::Thread>(iterations);
}
TEST(WarpRoles, WarpArrivals) {
  for (int iterations : {0, 1, 4, 9, 1000}) check_roles<4, ts::Agent::Warp>(iterations);
}

}  // namespace
