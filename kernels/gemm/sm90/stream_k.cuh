// kernels/gemm/sm90/stream_k.cuh
//
// The fix-up of a tile that stream-K (gemm/stream_k_decomposition.hpp) cut into pieces, in the
// cooperative design's epilogue (works.cuh): a piece that does not hold the tile's first K
// iteration writes its fp32 partial sums to its CTA's slot of the workspace and raises its CTA's
// flag; the tile's owner waits for the flags of the CTAs after it that hold the rest of the tile
// and adds their partial sums, in K order, into its accumulator before the epilogue reads it.
//
// A slot holds one tile's partial sums laid out by thread (partial_sums.cuh).
//
// Ordering: the writers' stores, then the task's named barrier, then one thread's release store
// of the flag at GPU scope; on the owner one thread's acquire loads of the flag, then the barrier,
// then every thread's loads (the pattern of CUTLASS's GenericBarrier, in libcu++'s atomics).
#pragma once

#include <cuda/atomic>

#include "gemm/sm90/config.cuh"
#include "gemm/sm90/partial_sums.cuh"
#include "gemm/stream_k_decomposition.hpp"
#include "warploom/ts/task_barrier.hpp"

namespace warploom::gemm::sm90 {

template <class Cfg>
struct StreamKFixup {
  using Accumulator = typename Cfg::Accumulator;
  using Sums = PartialSums<Cfg>;

  // This thread's partial sums of the tile into CTA `cta`'s slot; then the flag.
  static WL_DEVICE void publish(StreamKRun const& run, int cta, Accumulator& acc,
                                ts::ResourceContext const& task) {
    Sums::write(slot(run, cta), acc);
    ts::sync_task(task);
    if (Sums::thread() == 0)
      cuda::atomic_ref<int, cuda::thread_scope_device>(run.flags[cta])
          .store(1, cuda::memory_order_release);
  }

  // The partial sums of CTAs cta + g, cta + 2g, ... cta + peers * g (g: the walk's groups) added
  // into `acc`, in that order (K order).
  static WL_DEVICE void add_peers(StreamKRun const& run, int cta, int peers, Accumulator& acc,
                                  ts::ResourceContext const& task) {
    for (int q = 1; q <= peers; ++q) {
      int const peer = cta + q * run.walk.groups;
      if (Sums::thread() == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_device> flag(run.flags[peer]);
        while (flag.load(cuda::memory_order_acquire) == 0) __nanosleep(32);
      }
      ts::sync_task(task);
      Sums::add(slot(run, peer), acc);
    }
  }

 private:
  static WL_DEVICE float4* slot(StreamKRun const& run, int cta) {
    return reinterpret_cast<float4*>(run.partials) +
           static_cast<std::int64_t>(cta) * Sums::kSlotFloat4s;
  }
};

}  // namespace warploom::gemm::sm90
