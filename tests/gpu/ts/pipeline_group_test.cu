// tests/gpu/ts/pipeline_group_test.cu — pipeline groups (ts::Merge, ts::Fork;
// warploom/ts/pipeline_group.hpp) lowered and run on the GPU.
//
//   Merge: a consumer (warps 0-3) waits on two rings filled by two producer tasks, adds one value
//          of each and releases both with one release() of the group. The rings are a thread-
//          written ring beside either another thread-written ring or a TMA (bulk copy) ring: the
//          members' own full barriers, one shared empty barrier.
//   Fork:  one producer (warp 8) fills two rings, or one TMA fill of a buffer both members alias,
//          and publishes them with one commit() of the group; a thread reader (warps 0-3) and a
//          warp reader (warps 4-7) release their members on their own: one shared full barrier,
//          the members' own empty barriers (the secondary member's acquire does not arm the fill).
//
// Every kernel is verified while it compiles (the TaskManager's compile-time check) and again by
// ts::launch. Iteration counts 0, 1, stages and many laps, every stage count from 1: a wrong phase
// or arrival count hangs (ctest's timeout fails it), a stage refilled while read gives wrong sums.
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <cuda/ptx>

#include "../../compile_fail/ts_group_device.cu"  // the compile-pass control of its cases
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"
#include "warploom/ts/launch.hpp"
#include "warploom/ts/ts.hpp"

namespace ts = warploom::ts;
namespace wt = warploom::testing;

namespace {

constexpr int kThreads = 128;  // per consumer task, one value per thread and iteration
constexpr int kRowBytes = kThreads * static_cast<int>(sizeof(int));

// What every producer reads: the iteration count and a source matrix (iterations x kThreads).
struct Source {
  static constexpr ts::ResourceSpec spec{.name = "source"};
  int iterations = 0;
  int const* rows = nullptr;
  __device__ int row(ts::Consume const& stage) const { return stage.loop_offset; }
};

// The value a thread-written ring carries for (iteration, thread).
__host__ __device__ constexpr int thread_value(int iteration, int thread) {
  return iteration * 1000 + thread;
}

// A ring of kStages rows of kThreads ints. kTma: filled by one bulk copy of a source row (the
// stage's bytes complete its full barrier); otherwise by its producer's threads, each writing
// kThreads / producer-threads values.
template <ts::FixedName kName, ts::PipelineConfig kPipeline, bool kTma>
struct Ring {
  static constexpr ts::ResourceSpec spec{.name = kName.view(), .pipeline = kPipeline};
  static constexpr int kStages = kPipeline.num_stages;
  int iterations = 0;
  int const* rows = nullptr;
  int producer_thread0 = 0;  // the producer task's first thread in the block
  int consumer_thread0 = 0;  // the consumer task's first thread in the block
  using same_sizes = ts::same_sizes<ts::same_size<&Ring::iterations, &Source::iterations>>;
  ts::SmemBuffer<int, kStages * kThreads, 16> slots;  // (STAGES, THREADS)
  using smem_buffers = ts::buffers<&Ring::slots>;

  __device__ void fill(ts::Produce const& stage, int iteration) {
    int* row = &slots[stage.stage_idx * kThreads];
    if constexpr (kTma) {
      if (threadIdx.x % 32 == 0)
        cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, row,
                                 rows + static_cast<std::int64_t>(iteration) * kThreads,
                                 static_cast<std::uint32_t>(kRowBytes), stage.barrier);
    } else {
      constexpr int kProducerThreads = kPipeline.producer.agent == ts::Agent::Thread
                                           ? kPipeline.producer.size
                                           : kPipeline.producer.size * 32;
      for (int t = static_cast<int>(threadIdx.x) - producer_thread0; t < kThreads;
           t += kProducerThreads)
        row[t] = thread_value(iteration, t);
    }
  }
  __device__ int take(ts::Consume const& stage, int running) const {
    return running +
           slots[stage.stage_idx * kThreads + static_cast<int>(threadIdx.x) - consumer_thread0];
  }
};

// One int per consumer thread: its running sum at the end.
template <ts::FixedName kName>
struct Sums {
  static constexpr ts::ResourceSpec spec{.name = kName.view()};
  int* out = nullptr;
  int thread0 = 0;
  __device__ void store(ts::Produce const&, int sum) {
    out[static_cast<int>(threadIdx.x) - thread0] = sum;
  }
};

template <class R, int kWarp, ts::FixedName kName>
struct Fill {
  static constexpr ts::TaskSpec spec{.name = kName.view(), .warp_idx = kWarp, .num_warps = 1};
  using src = ts::list<Source>;
  using dst = ts::list<R>;
  WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& source, auto& ring) {
    ctx.domain_loop(source->iterations, [&](auto&) {
      auto i = ts::work<&Source::row>(source);
      ring.acquire();
      ts::work<&R::fill>(ring, i);
      ring.commit();
    });
  }
};

// ---- Merge
// ---------------------------------------------------------------------------------------

template <int kStages, bool kTmaOps>
struct MergeCase {
  static constexpr ts::PipelineConfig kOpsPipeline =
      kTmaOps ? ts::tma_async(kStages, kRowBytes, ts::threads(1), ts::threads(kThreads))
              : ts::async_async(kStages, ts::threads(32), ts::threads(kThreads));
  using Ops = Ring<"ops", kOpsPipeline, kTmaOps>;
  using Res = Ring<"res", ts::async_async(kStages, ts::threads(32), ts::threads(kThreads)), false>;
  using Inputs = ts::Merge<"inputs", Ops, Res>;
  using Out = Sums<"sums">;

  struct Add {
    static constexpr ts::TaskSpec spec{.name = "add", .warp_idx = 0, .num_warps = 4};
    using src = ts::list<Ops, Res, Inputs>;
    using dst = ts::list<Out>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& ops, auto& res, auto& inputs,
                                                  auto& out) {
      auto sum = ctx.local(0);
      ctx.domain_loop(ops->iterations, [&](auto& loop) {
        ops.wait();
        res.wait();
        sum = ts::work<&Ops::take>(ops, sum);
        sum = ts::work<&Res::take>(res, sum);
        inputs.release();
        loop.last_iter([&] { ts::work<&Out::store>(out, sum); });
      });
    }
  };

  using Manager =
      ts::TaskManager<ts::Tasks<Add, Fill<Ops, 4, "fill_ops">, Fill<Res, 5, "fill_res">>,
                      ts::Graph<ts::DependsOn<Ops, Source>, ts::DependsOn<Res, Source>,
                                ts::DependsOn<Out, Ops, Res>>>;
};

template <class C>
__global__ void __launch_bounds__(C::Manager::num_threads, 1)
    merge_kernel(int const* rows, int iterations, int* out) {
  extern __shared__ __align__(128) char smem[];
  Source source{.iterations = iterations, .rows = rows};
  typename C::Ops ops{};
  ops.iterations = iterations;
  ops.rows = rows;
  ops.producer_thread0 = 4 * 32;
  typename C::Res res{};
  res.iterations = iterations;
  res.producer_thread0 = 5 * 32;
  typename C::Inputs inputs{};
  typename C::Out sums{.out = out};
  typename C::Manager tm(smem, source, ops, res, inputs, sums);
  tm.setup_resources_and_tasks().fence_and_sync_cta().run();
}

// ---- Fork
// ----------------------------------------------------------------------------------------

// kTma: one bulk copy per stage into a buffer both members alias (ts::Alias); otherwise the
// producer's threads write both members' rings. kReaderB: how the second reader arrives on its
// empty barrier, one lane per warp (Agent::Warp) or every thread (Agent::Thread: the only arrival
// racecheck follows, so those cases are the ones it runs).
template <int kStages, bool kTma, ts::Agent kReaderB = ts::Agent::Warp>
struct ForkCase {
  static constexpr ts::PipelineConfig kThreadsReader =
      kTma ? ts::tma_async(kStages, kRowBytes, ts::threads(1), ts::threads(kThreads))
           : ts::async_async(kStages, ts::threads(32), ts::threads(kThreads));
  static constexpr ts::CooperativeGroup kReaderBGroup =
      kReaderB == ts::Agent::Warp ? ts::warps(4) : ts::threads(kThreads);
  static constexpr ts::PipelineConfig kSecondReader =
      kTma ? ts::tma_async(kStages, kRowBytes, ts::threads(1), kReaderBGroup)
           : ts::async_async(kStages, ts::threads(32), kReaderBGroup);
  using ForA = Ring<"for_a", kThreadsReader, kTma>;
  using ForB = Ring<"for_b", kSecondReader, kTma>;
  using Tile = ts::Fork<"tile", ForA, ForB>;
  using OutA = Sums<"sums_a">;
  using OutB = Sums<"sums_b">;

  struct Produce {
    static constexpr ts::TaskSpec spec{.name = "fill", .warp_idx = 8, .num_warps = 1};
    using src = ts::list<Source>;
    using dst = ts::list<ForA, ForB, Tile>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& source, auto& a, auto& b,
                                                  auto& tile) {
      ctx.domain_loop(source->iterations, [&](auto&) {
        auto i = ts::work<&Source::row>(source);
        a.acquire();
        b.acquire();
        ts::work<&ForA::fill>(a, i);  // with TMA: the one fill, into the bytes both alias
        if constexpr (!kTma) ts::work<&ForB::fill>(b, i);
        tile.commit();
      });
    }
  };

  template <class R, class Out, int kWarp, ts::FixedName kName>
  struct Read {
    static constexpr ts::TaskSpec spec{.name = kName.view(), .warp_idx = kWarp, .num_warps = 4};
    using src = ts::list<R>;
    using dst = ts::list<Out>;
    WL_HOST_DEVICE static constexpr void schedule(auto& ctx, auto& ring, auto& out) {
      auto sum = ctx.local(0);
      ctx.domain_loop(ring->iterations, [&](auto& loop) {
        ring.wait();
        sum = ts::work<&R::take>(ring, sum);
        ring.release();
        loop.last_iter([&] { ts::work<&Out::store>(out, sum); });
      });
    }
  };

  using Graph = ts::Graph<ts::DependsOn<ForA, Source>, ts::DependsOn<ForB, Source>,
                          ts::DependsOn<OutA, ForA>, ts::DependsOn<OutB, ForB>>;
  using Tasks = ts::Tasks<Read<ForA, OutA, 0, "read_a">, Read<ForB, OutB, 4, "read_b">, Produce>;
  using Aliases =
      std::conditional_t<kTma, ts::Aliases<ts::Alias<&ForA::slots, &ForB::slots>>, ts::Aliases<>>;
  using Manager = ts::TaskManager<Tasks, Graph, ts::ManagerOptions{}, Aliases>;
};

template <class C>
__global__ void __launch_bounds__(C::Manager::num_threads, 1)
    fork_kernel(int const* rows, int iterations, int* out_a, int* out_b) {
  extern __shared__ __align__(128) char smem[];
  Source source{.iterations = iterations, .rows = rows};
  typename C::ForA a{};
  a.iterations = iterations;
  a.rows = rows;
  a.producer_thread0 = 8 * 32;
  typename C::ForB b{};
  b.iterations = iterations;
  b.producer_thread0 = 8 * 32;
  b.consumer_thread0 = 4 * 32;
  typename C::Tile tile{};
  typename C::OutA sums_a{.out = out_a};
  typename C::OutB sums_b{.out = out_b, .thread0 = 4 * 32};
  typename C::Manager tm(smem, source, a, b, tile, sums_a, sums_b);
  tm.setup_resources_and_tasks().fence_and_sync_cta().run();
}

// ---- Checks
// --------------------------------------------------------------------------------------

// rows[i][t] = 7 * i + t % 13 - 5: small, signed, different in every row.
std::vector<int> source_rows(int iterations) {
  std::vector<int> rows(static_cast<std::size_t>(iterations > 0 ? iterations : 1) * kThreads);
  for (int i = 0; i < iterations; ++i)
    for (int t = 0; t < kThreads; ++t)
      rows[static_cast<std::size_t>(i) * kThreads + t] = 7 * i + t % 13 - 5;
  return rows;
}

// Thread t's sum over every iteration: of the source rows (TMA) or of thread_value (threads).
std::vector<int> expected_sums(std::vector<int> const& rows, int iterations, bool tma) {
  std::vector<int> want(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < iterations; ++i)
      want[t] += tma ? rows[static_cast<std::size_t>(i) * kThreads + t] : thread_value(i, t);
  return want;
}

std::vector<int> read_back(wt::DeviceBuffer const& b) {
  std::vector<int> got(kThreads);
  WL_CUDA_CHECK(cudaMemcpy(got.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
  return got;
}

// 0 iterations store nothing: the poison stays.
void expect_sums(std::vector<int> const& got, std::vector<int> want, int iterations,
                 std::string const& what) {
  if (iterations == 0) want.assign(kThreads, -1);
  for (int t = 0; t < kThreads; ++t)
    ASSERT_EQ(got[t], want[t]) << what << " iterations=" << iterations << " thread=" << t;
}

// Runs `check(rows, d_rows, iterations)` for 0, 1, kStages and many laps of iterations, with the
// source rows on the host and on the device.
template <int kStages, class Check>
void for_each_count(Check&& check) {
  for (int iterations : {0, 1, kStages, 5 * kStages + 3, 1000}) {
    std::vector<int> const rows = source_rows(iterations);
    wt::DeviceBuffer d_rows(rows.size() * sizeof(int));
    WL_CUDA_CHECK(cudaMemcpy(d_rows.get(), rows.data(), d_rows.bytes(), cudaMemcpyHostToDevice));
    check(rows, d_rows, iterations);
  }
}

template <int kStages, bool kTmaOps>
void check_merge() {
  using C = MergeCase<kStages, kTmaOps>;
  for_each_count<kStages>(
      [](std::vector<int> const& rows, wt::DeviceBuffer& d_rows, int iterations) {
        wt::DeviceBuffer out(kThreads * sizeof(int));
        wt::poison(out.get(), out.bytes());
        ts::launch<typename C::Manager>("merge", merge_kernel<C>, dim3(1), nullptr,
                                        d_rows.as<int const>(), iterations, out.as<int>());
        WL_CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<int> want = expected_sums(rows, iterations, kTmaOps);
        std::vector<int> const res = expected_sums(rows, iterations, false);
        for (int t = 0; t < kThreads; ++t) want[t] += res[t];
        expect_sums(read_back(out), want, iterations,
                    "merge stages=" + std::to_string(kStages) + (kTmaOps ? " tma" : " threads"));
      });
}

template <int kStages, bool kTma, ts::Agent kReaderB = ts::Agent::Warp>
void check_fork() {
  using C = ForkCase<kStages, kTma, kReaderB>;
  for_each_count<kStages>(
      [](std::vector<int> const& rows, wt::DeviceBuffer& d_rows, int iterations) {
        wt::DeviceBuffer out_a(kThreads * sizeof(int)), out_b(kThreads * sizeof(int));
        wt::poison(out_a.get(), out_a.bytes());
        wt::poison(out_b.get(), out_b.bytes());
        ts::launch<typename C::Manager>("fork", fork_kernel<C>, dim3(1), nullptr,
                                        d_rows.as<int const>(), iterations, out_a.as<int>(),
                                        out_b.as<int>());
        WL_CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<int> const want = expected_sums(rows, iterations, kTma);
        std::string const what =
            "fork stages=" + std::to_string(kStages) + (kTma ? " tma" : " threads");
        expect_sums(read_back(out_a), want, iterations, what + " reader a");
        expect_sums(read_back(out_b), want, iterations, what + " reader b");
      });
}

TEST(PipelineGroup, MergeOfThreadRings) {
  check_merge<1, false>();
  check_merge<2, false>();
  check_merge<5, false>();
}

TEST(PipelineGroup, MergeOfATmaRingAndAThreadRing) {
  check_merge<1, true>();
  check_merge<3, true>();
  check_merge<4, true>();
}

TEST(PipelineGroup, ForkOfThreadRings) {
  check_fork<1, false>();
  check_fork<2, false>();
  check_fork<5, false>();
}

TEST(PipelineGroup, ForkOfOneTmaFillBothMembersAlias) {
  check_fork<1, true>();
  check_fork<3, true>();
  check_fork<4, true>();
}

// The same with both readers arriving thread by thread: racecheck does not follow a warp's
// __syncwarp before its elected lane's release arrival (include/warploom/ts/device/pipeline.hpp),
// so it reports the warp reader's reads above; these are the Fork cases it checks.
TEST(PipelineGroup, ForkOfThreadRingsThreadArrivals) {
  check_fork<1, false, ts::Agent::Thread>();
  check_fork<3, false, ts::Agent::Thread>();
}

TEST(PipelineGroup, ForkOfOneTmaFillThreadArrivals) {
  check_fork<1, true, ts::Agent::Thread>();
  check_fork<4, true, ts::Agent::Thread>();
}

}  // namespace
