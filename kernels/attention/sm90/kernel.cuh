// kernels/attention/sm90/kernel.cuh
//
// One sm90 attention instance — the schedule of a head dimension (schedule.hpp) with the works of
// one element type and mask (config.cuh, works.cuh) — as a kernel and its host launcher: TMA
// descriptors from AttentionArgs (already checked and resolved by src/attention), the persistent
// grid, and the launch with the proof that the schedule was verified when it was built.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "attention/sm90/config.cuh"
#include "attention/sm90/instance.hpp"
#include "attention/sm90/schedule.hpp"
#include "attention/sm90/works.cuh"
#include "gemm/workspace.hpp"
#include "warploom/attention.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/ts/launch.hpp"
#include "warploom/ts/schedule_unit.hpp"

namespace warploom::attention::sm90 {

template <ElementType kType>
using CuteElement = std::conditional_t<kType == ElementType::BF16, cute::bfloat16_t, cute::half_t>;

template <ElementType kType, int kHeadDim, bool kCausal, bool kOverlap, bool kPingpong>
struct Instance {
  using S = DefaultShape<kHeadDim, kCausal, kPingpong>;
  using Schedule =
      Forward<S, ScheduleOnly, kOverlap, kPingpong>;  // what the schedule unit verified
  using Cfg = AttentionConfig<CuteElement<kType>, S, kCausal>;
  using Kernel = Forward<S, Works<Cfg>, kOverlap, kPingpong>;
  using Manager = typename Kernel::Manager;
  using Params = typename Cfg::Params;
};

template <class I>
__global__ void __launch_bounds__(I::Manager::num_threads, 1)
    attention_kernel(__grid_constant__ typename I::Params const p) {
  extern __shared__ __align__(1024) char smem[];
  using Kernel = typename I::Kernel;
  if (threadIdx.x == Kernel::LoadTask::spec.warp_idx * 32) {
    cute::prefetch_tma_descriptor(p.tma_q.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_k.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_v.get_tma_descriptor());
  }
  typename Kernel::Queue queue{};
  queue.counter = p.tile_counter;
  queue.num_tiles = p.num_tiles;
  Kernel::run(p, queue, smem);
}

// The kernel parameters of one problem; `args` has its strides resolved (no kPacked left).
template <class I>
typename I::Params make_params(AttentionArgs const& args) {
  using Cfg = typename I::Cfg;
  using T = typename Cfg::Element;
  bool const varlen = args.cu_seqlens_q != nullptr;
  int const rows_q = varlen ? args.total_q : args.seqlen_q;
  int const rows_k = varlen ? args.total_k : args.seqlen_k;
  int const batch_tma = varlen ? 1 : args.batch;
  // A variable-length tensor is one batch of `total` rows: its batch stride is never applied,
  // but TMA wants one that is a multiple of 16 bytes (any will do for an extent of 1).
  auto batch_stride = [&](AttentionTensor const& t, int rows) {
    return varlen ? t.row_stride * rows : t.batch_stride;
  };
  typename Cfg::GmemShape const shape_q{rows_q, {}, args.heads, batch_tma};
  typename Cfg::GmemShape const shape_kv{rows_k, {}, args.kv_heads, batch_tma};
  auto stride_of = [&](AttentionTensor const& t, int rows) {
    return typename Cfg::GmemStride{t.row_stride, {}, t.head_stride, batch_stride(t, rows)};
  };
  int const m_blocks = (args.seqlen_q + Cfg::kBlockM - 1) / Cfg::kBlockM;
  float const scale = args.scale;
  return typename I::Params{
      .tma_q = Cfg::template make_tma_load<typename Cfg::SmemLayoutQ, typename Cfg::TileQ>(
          static_cast<T const*>(args.q.data), shape_q, stride_of(args.q, rows_q)),
      .tma_k = Cfg::template make_tma_load<typename Cfg::SmemLayoutK, typename Cfg::TileKV>(
          static_cast<T const*>(args.k.data), shape_kv, stride_of(args.k, rows_k)),
      .tma_v = Cfg::template make_tma_load<typename Cfg::SmemLayoutK, typename Cfg::TileKV>(
          static_cast<T const*>(args.v.data), shape_kv, stride_of(args.v, rows_k)),
      .shape_q = shape_q,
      .shape_kv = shape_kv,
      .o = static_cast<T*>(args.o),
      .lse = args.lse,
      .o_batch_stride = args.o_strides.batch_stride,
      .o_row_stride = args.o_strides.row_stride,
      .o_head_stride = args.o_strides.head_stride,
      .lse_batch_stride = varlen ? 0 : std::int64_t{args.heads} * args.seqlen_q,
      .lse_head_stride = varlen ? std::int64_t{args.total_q} : std::int64_t{args.seqlen_q},
      .batch = args.batch,
      .heads = args.heads,
      .kv_group = args.heads / args.kv_heads,
      .seqlen_q = args.seqlen_q,
      .seqlen_k = args.seqlen_k,
      .cu_seqlens_q = args.cu_seqlens_q,
      .cu_seqlens_k = args.cu_seqlens_k,
      .m_blocks = m_blocks,
      .num_tiles = m_blocks * args.heads * args.batch,
      .tile_counter = nullptr,  // the launch's (launch_forward)
      .heads_per_section =
          heads_per_section(args.seqlen_k, args.head_dim, static_cast<int>(sizeof(T)), args.heads,
                            args.kv_heads, args.batch),
      .scale = scale,
      .scale_log2 = scale * static_cast<float>(M_LOG2E),
  };
}

template <ElementType kType, int kHeadDim, bool kCausal, bool kOverlap, bool kPingpong>
void launch_forward(AttentionArgs const& args, cudaStream_t stream) {
  using I = Instance<kType, kHeadDim, kCausal, kOverlap, kPingpong>;
  typename I::Params p = make_params<I>(args);
  if (p.num_tiles == 0) return;
  int device = 0, sms = 0;
  WL_CUDA_CHECK(cudaGetDevice(&device));
  WL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  dim3 const grid(static_cast<unsigned>(std::min(sms, p.num_tiles)));
  // The scheduler warps' counter, in memory of this launch's own (two calls on two streams never
  // share one), zeroed on the stream: a captured graph replays the zeroing with the kernel.
  gemm::StreamWorkspace const counter(sizeof(int), stream);
  p.tile_counter = static_cast<int*>(counter.get());
  WL_CUDA_CHECK(cudaMemsetAsync(p.tile_counter, 0, sizeof(int), stream));
  ts::launch<typename I::Manager>(ts::verified<typename I::Schedule>(), attention_kernel<I>, grid,
                                  stream, p);
}

}  // namespace warploom::attention::sm90
