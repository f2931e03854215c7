// kernels/gemm/sm90/stream_k.cuh
//
// The fix-up of a tile that stream-K (gemm/stream_k_decomposition.hpp) cut into pieces, in the
// cooperative design's epilogue (works.cuh): a piece that does not hold the tile's first K
// iteration writes its fp32 partial sums to its CTA's slot of the workspace and raises its CTA's
// flag; the tile's owner waits for the flags of the CTAs after it that hold the rest of the tile
// and adds their partial sums, in K order, into its accumulator before the epilogue reads it.
//
// A slot is laid out by thread, not by matrix position: thread t of the tile's MMA threads writes
// its accumulator fragment's values as float4s t, t + kThreads, ... (coalesced), and the owner's
// thread t, holding the same fragment of the same tile, reads them back the same way. Both go
// through L2 only (st.cg / ld.cg): the slot is written on one SM and read on another.
//
// Ordering: the writers' stores, then the task's named barrier, then one thread's release store
// of the flag at GPU scope; on the owner one thread's acquire loads of the flag, then the barrier,
// then every thread's loads (the pattern of CUTLASS's GenericBarrier, in libcu++'s atomics).
#pragma once

#include <cuda/atomic>

#include "gemm/sm90/config.cuh"
#include "gemm/stream_k_decomposition.hpp"
#include "warploom/ts/task_barrier.hpp"

namespace warploom::gemm::sm90 {

template <class Cfg>
struct StreamKFixup {
  using Accumulator = typename Cfg::Accumulator;
  static constexpr int kThreads = Cfg::kMmaThreads;
  static constexpr int kValues = static_cast<int>(sizeof(Accumulator::v) / sizeof(float));
  static constexpr int kTileFloats = Cfg::kTileM * Cfg::kTileN;
  static_assert(kValues % 4 == 0 && kValues * kThreads == kTileFloats,
                "a thread's fragment is whole float4s, the threads' fragments the whole tile");

  // This thread's partial sums of the tile into CTA `cta`'s slot; then the flag.
  static WL_DEVICE void publish(StreamKRun const& run, int cta, Accumulator const& acc,
                                ts::ResourceContext const& task) {
    int const t = static_cast<int>(threadIdx.x) % kThreads;
    float4* const slot = reinterpret_cast<float4*>(run.partials) +
                         static_cast<std::int64_t>(cta) * (kTileFloats / 4) + t;
    CUTE_UNROLL
    for (int i = 0; i < kValues / 4; ++i)
      __stcg(slot + i * kThreads,
             make_float4(acc.v[4 * i], acc.v[4 * i + 1], acc.v[4 * i + 2], acc.v[4 * i + 3]));
    ts::sync_task(task);
    if (t == 0)
      cuda::atomic_ref<int, cuda::thread_scope_device>(run.flags[cta])
          .store(1, cuda::memory_order_release);
  }

  // The partial sums of CTAs cta + g, cta + 2g, ... cta + peers * g (g: the walk's groups) added
  // into `acc`, in that order (K order).
  static WL_DEVICE void add_peers(StreamKRun const& run, int cta, int peers, Accumulator& acc,
                                  ts::ResourceContext const& task) {
    int const t = static_cast<int>(threadIdx.x) % kThreads;
    for (int q = 1; q <= peers; ++q) {
      int const peer = cta + q * run.walk.groups;
      if (t == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_device> flag(run.flags[peer]);
        while (flag.load(cuda::memory_order_acquire) == 0) __nanosleep(32);
      }
      ts::sync_task(task);
      float4 const* const slot = reinterpret_cast<float4 const*>(run.partials) +
                                 static_cast<std::int64_t>(peer) * (kTileFloats / 4) + t;
      CUTE_UNROLL
      for (int i = 0; i < kValues / 4; ++i) {
        float4 const v = __ldcg(slot + i * kThreads);
        acc.v[4 * i] += v.x;
        acc.v[4 * i + 1] += v.y;
        acc.v[4 * i + 2] += v.z;
        acc.v[4 * i + 3] += v.w;
      }
    }
  }
};

}  // namespace warploom::gemm::sm90
