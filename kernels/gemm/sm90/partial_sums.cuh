// kernels/gemm/sm90/partial_sums.cuh
//
// A tile's fp32 partial sums in a workspace slot, as stream-K's fix-up (stream_k.cuh) and split-K's
// fold (split_k_fold.cuh) keep them: laid out by thread, not by matrix position. Thread t of the
// tile's MMA threads writes its accumulator fragment as float4s t, t + kThreads, ... (coalesced),
// and the thread t that reads them back, holding the same fragment of the same tile on another
// SM, reads them the same way — only a value's index in the fragment, never its place in the tile,
// is needed to add it. Through L2 only (st.cg / ld.cg): a slot is written on one SM and read on
// another.
#pragma once

#include <cute/tensor.hpp>

#include "gemm/sm90/config.cuh"

namespace warploom::gemm::sm90 {

template <class Cfg>
struct PartialSums {
  using Accumulator = typename Cfg::Accumulator;
  static constexpr int kThreads = Cfg::kMmaThreads;
  static constexpr int kValues = static_cast<int>(sizeof(Accumulator::v) / sizeof(float));
  static constexpr int kSlotFloat4s = Cfg::kTileM * Cfg::kTileN / 4;  // one tile
  static constexpr int kPerAtom = Cfg::kTileN / 2;  // a thread's values in one m64 atom
  static_assert(kValues % 4 == 0 && kValues * kThreads == 4 * kSlotFloat4s &&
                    kValues == kPerAtom * Cfg::kAtomsM,
                "a thread's fragment is whole float4s, the threads' fragments the whole tile");

  // This thread's index among the tile's MMA threads.
  static WL_DEVICE int thread() { return static_cast<int>(threadIdx.x) % kThreads; }

  // Value v of this thread's part of a slot: element v % kPerAtom of m64 atom v / kPerAtom of its
  // fragment (whose place in the tile config.cuh's fragment_row0 gives).
  static WL_DEVICE float& value(Accumulator& acc, int v) {
    return acc.tensor()(v % kPerAtom, v / kPerAtom, 0);
  }

  // scale times this thread's values into the slot starting at `slot` (a tile's first float4);
  // float4 i only where keep(i) (for a reader that skips the same ones).
  static WL_DEVICE void write(float4* slot, Accumulator& acc, float scale, auto const& keep) {
    CUTE_UNROLL
    for (int i = 0; i < kValues / 4; ++i)
      if (keep(i))
        __stcg(slot + thread() + i * kThreads,
               make_float4(scale * value(acc, 4 * i), scale * value(acc, 4 * i + 1),
                           scale * value(acc, 4 * i + 2), scale * value(acc, 4 * i + 3)));
  }
  static WL_DEVICE void write(float4* slot, Accumulator& acc, float scale = 1.0f) {
    write(slot, acc, scale, [](int) { return true; });
  }

  // Float4 i of this thread's part of the slot at `slot`: its values 4 i ... 4 i + 3.
  static WL_DEVICE float4 read(float4 const* slot, int i) {
    return __ldcg(slot + thread() + i * kThreads);
  }

  // The slot's values of this thread added into its accumulator.
  static WL_DEVICE void add(float4 const* slot, Accumulator& acc) {
    CUTE_UNROLL
    for (int i = 0; i < kValues / 4; ++i) {
      float4 const v = read(slot, i);
      value(acc, 4 * i) += v.x;
      value(acc, 4 * i + 1) += v.y;
      value(acc, 4 * i + 2) += v.z;
      value(acc, 4 * i + 3) += v.w;
    }
  }
};

}  // namespace warploom::gemm::sm90
