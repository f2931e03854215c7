// warploom/ts/device/pipeline.hpp
//
// The device half of a pipelined resource: `num_stages` full barriers (producer -> consumer) and
// `num_stages` empty barriers (consumer -> producer) in shared memory, and the per-task cursor
// that walks them.
//
// Protocol (one stage):
//   producer  acquire:  wait empty[i] (phase p)      then TMA kinds: elected lane arms full[i]
//                                                    with the stage's transaction bytes
//             commit:   AsyncAsync: arrive on full[i]; TMA kinds: nothing (the bytes complete it)
//   consumer  wait:     wait full[i] (phase p)
//             release:  arrive on empty[i]
// A cursor advances at commit (producer) and release (consumer); past the last stage it wraps and
// flips its phase. The producer cursor starts on phase 1: a fresh barrier is in phase 0, so waiting
// for the completion of "phase 1" returns at once — every stage starts empty.
//
// Written on cuda::ptx mbarriers rather than CUTLASS's PipelineTmaAsync because TS fixes the
// arrival counts at compile time from the tasks (R-D15), where CUTLASS assumes one arrival per
// consumer warpgroup and picks roles at run time.
#pragma once

#include <cstdint>

#include "warploom/arch/sm90/cluster.hpp"
#include "warploom/arch/sm90/mbarrier.hpp"
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/config.hpp"
#include "warploom/ts/pipeline_config.hpp"

namespace warploom::ts {

// One task's position in one pipeline.
struct PipelineState {
  int index = 0;
  std::uint32_t phase = 0;
};

#if defined(__CUDACC__)

// kArmsFill: whether a TMA producer's acquire arms the full barrier with the stage's bytes. False
// only for a ts::Fork's secondary member: the group's one fill completes the shared full barrier,
// and the primary member's acquire arms it (pipeline_group.hpp).
template <PipelineConfig kCfg, bool kArmsFill = true>
struct DevicePipeline {
  static constexpr int kStages = kCfg.num_stages;

  // A pipeline group's member points one of them at its group's array (smem_layout.hpp); a group
  // has only the shared one (the other is null).
  sm90::Mbarrier* full = nullptr;   // [kStages]
  sm90::Mbarrier* empty = nullptr;  // [kStages]

  static constexpr std::uint32_t full_arrivals() {
    return static_cast<std::uint32_t>(kCfg.producer.size);
  }
  // With multicast, the consumers of every CTA that writes into this CTA's stages release them.
  static constexpr std::uint32_t empty_arrivals() {
    return static_cast<std::uint32_t>(kCfg.consumer.size * kCfg.release_ctas());
  }

  // Called by one thread before the barrier-init fence, for the arrays this pipeline owns (a
  // shared array is initialised once, by its group).
  WL_DEVICE void init_full() const {
    for (int i = 0; i < kStages; ++i) sm90::mbarrier_init(&full[i], full_arrivals());
  }
  WL_DEVICE void init_empty() const {
    for (int i = 0; i < kStages; ++i) sm90::mbarrier_init(&empty[i], empty_arrivals());
  }

  static WL_DEVICE PipelineState producer_start() { return {0, 1u}; }
  static WL_DEVICE PipelineState consumer_start() { return {0, 0u}; }

  static WL_DEVICE void advance(PipelineState& s) {
    if (++s.index == kStages) {
      s.index = 0;
      s.phase ^= 1u;
    }
  }

  WL_DEVICE bool producer_try_acquire(PipelineState s) const {
    return sm90::mbarrier_test_parity(&empty[s.index], s.phase);
  }
  WL_DEVICE void producer_acquire(PipelineState s, bool ready) const {
    if (!ready) sm90::mbarrier_wait_parity(&empty[s.index], s.phase);
    if constexpr (kCfg.tma_producer() && kArmsFill) {
      if (sm90::elect_one()) {
        sm90::mbarrier_arrive_expect_tx(&full[s.index], static_cast<std::uint32_t>(kCfg.num_bytes));
      }
    }
  }
  WL_DEVICE void producer_commit(PipelineState s) const {
    if constexpr (!kCfg.tma_producer()) arrive(&full[s.index], kCfg.producer.agent);
  }
  WL_DEVICE bool consumer_try_wait(PipelineState s) const {
    return sm90::mbarrier_test_parity(&full[s.index], s.phase);
  }
  WL_DEVICE void consumer_wait(PipelineState s, bool ready) const {
    if (!ready) sm90::mbarrier_wait_parity(&full[s.index], s.phase);
  }
  WL_DEVICE void consumer_release(PipelineState s) const {
    if constexpr (kCfg.release_ctas() == 1) {
      arrive(&empty[s.index], kCfg.consumer.agent);
    } else {
      arrive_in_cluster(&empty[s.index], kCfg.consumer.agent);
    }
  }

  // Producer drain at task end: wait until the consumers released every stage, so no arrival on
  // this CTA's barriers is outstanding when the producer exits.
  WL_DEVICE void producer_tail(PipelineState s) const {
    for (int i = 0; i < kStages; ++i) {
      sm90::mbarrier_wait_parity(&empty[s.index], s.phase);
      advance(s);
    }
  }

  WL_DEVICE sm90::Mbarrier* full_barrier(PipelineState s) const { return &full[s.index]; }

 private:
  // Agent::Warp: the warp converges (bar.warp.sync orders every lane's prior accesses before the
  // elected lane's), then one lane arrives with release semantics, which is cumulative. (racecheck
  // does not model that edge and reports the other lanes' accesses; memcheck/synccheck are clean.)
  static WL_DEVICE void arrive(sm90::Mbarrier* bar, Agent agent) {
    if (agent == Agent::Thread) {
      sm90::mbarrier_arrive(bar);
    } else {
      __syncwarp();
      if (sm90::elect_one()) sm90::mbarrier_arrive(bar);
    }
  }

  // The same arrival on the barrier at `bar`'s offset in each multicasting CTA. A warp spreads
  // them over its lanes (lane r arrives in CTA r), so they issue together.
  static WL_DEVICE void arrive_in_cluster(sm90::Mbarrier* bar, Agent agent) {
    constexpr auto kCtas = static_cast<std::uint32_t>(kCfg.release_ctas());
    if (agent == Agent::Thread) {
      for (std::uint32_t r = 0; r < kCtas; ++r) sm90::mbarrier_arrive_cluster(bar, r);
    } else {
      __syncwarp();
      auto const lane = static_cast<std::uint32_t>(threadIdx.x) % sm90::kThreadsPerWarp;
      if (lane < kCtas) sm90::mbarrier_arrive_cluster(bar, lane);
    }
  }
};

#endif  // __CUDACC__

}  // namespace warploom::ts
