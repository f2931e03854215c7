// warploom/ts/pipeline_config.hpp
//
// A pipelined resource declares how its stages are filled and drained. The kind is named
// <producer><consumer> as in the seed; the sm90 kinds are:
//
//   TmaAsync   TMA writes a stage and completes its transaction bytes on the full barrier;
//              threads read it and arrive on the empty barrier.        (tutorial 02)
//   AsyncAsync threads write a stage and arrive on the full barrier; threads read and release.
//   TmaWgmma   TMA writes, wgmma reads. The consumer may release only after `wgmma.wait_group`
//              retired the reads (ts::wgmma_wait): the DMA-consumer rule (R-D13) applies.
//   AsyncTma   threads write a stage (and fence it for the async proxy), a TMA store reads it.
//              The consumer may release only after `cp.async.bulk.wait_group.read` retired
//              the store's reads (ts::bulk_wait_read): R-D13 again.
//   AsyncWgmma threads write a stage (and fence it for the async proxy), wgmma reads it (the
//              seed's AsyncUmma): R-D13 as for TmaWgmma.
//
// Cooperative groups give the number of arrivals that complete a phase. They are cross-checked
// against the tasks that commit / release the resource (R-D15), so a config that does not match
// the schedule is rejected before the kernel runs.
#pragma once

#include <cstdint>
#include <string_view>

namespace warploom::ts {

enum class PipelineKind : std::uint8_t {
  None,
  TmaAsync,
  AsyncAsync,
  TmaWgmma,
  AsyncTma,
  AsyncWgmma
};

// The asynchronous unit that reads a stage after the consumer work issued it.
enum class AsyncReader : std::uint8_t { None, Wgmma, BulkCopy };

constexpr std::string_view to_string(PipelineKind k) {
  switch (k) {
    case PipelineKind::None:
      return "none";
    case PipelineKind::TmaAsync:
      return "tma_async";
    case PipelineKind::AsyncAsync:
      return "async_async";
    case PipelineKind::TmaWgmma:
      return "tma_wgmma";
    case PipelineKind::AsyncTma:
      return "async_tma";
    case PipelineKind::AsyncWgmma:
      return "async_wgmma";
  }
  return "?";
}

// Who arrives: every thread of the group (Thread), or one elected lane per warp (Warp).
enum class Agent : std::uint8_t { Thread, Warp };

struct CooperativeGroup {
  Agent agent = Agent::Thread;
  int size = 1;  // arrivals per phase: threads for Agent::Thread, warps for Agent::Warp
};

constexpr CooperativeGroup threads(int n) {
  return {Agent::Thread, n};
}
constexpr CooperativeGroup warps(int n) {
  return {Agent::Warp, n};
}

struct PipelineConfig {
  PipelineKind kind = PipelineKind::None;
  int num_stages = 0;
  int num_bytes = 0;  // transaction bytes per stage (TMA producers), 0 otherwise
  CooperativeGroup producer{};
  CooperativeGroup consumer{};
  // Separate cursors (the seed's advance_on_wait / advance_on_acquire): wait() moves a wait cursor
  // and release() a release cursor of its own, so a task may hold several stages and release them
  // later, in order — e.g. release stage k-1 after issuing the MMA on stage k. Without it, wait
  // and release share one cursor and must alternate (as must acquire and commit).
  bool advance_on_wait = false;
  bool advance_on_acquire = false;
  // TMA multicast inside a thread-block cluster: the producers of `multicast_ctas` CTAs (a block of
  // that many consecutive cluster ranks) write parts of one another's stages, so a stage may be
  // refilled only when the consumers of all of them released it. Every consumer release then
  // arrives on the stage's empty barrier in each of those CTAs (its phase completes after
  // consumer.size * multicast_ctas arrivals), and each CTA's full barrier completes when its own
  // producer armed it and every peer's slice landed. With ModelCheckOptions::model_clusters the
  // model checker explores exactly that: one copy of the task set per CTA of the cluster
  // (TaskManager::cluster_size), per-CTA barriers, remote arrivals and multicast copies
  // (docs/verification/README.md §7), so a CTA whose consumers release too few stages, whose trip
  // counts differ from its peers' (ts::per_cta), or whose peer refills a stage it still reads is
  // reported with the CTA named. Without it (the default until the 2-CTA GEMM managers fit the
  // state budget) it checks one CTA and assumes each peer releases when it does.
  int multicast_ctas = 1;
  // CTAs whose consumers the empty barrier counts, and on whose empty barriers a release arrives
  // (0: multicast_ctas, as TS pipelines derive it). Only a model of a hand-written pipeline sets
  // it, where the kernel computes the count itself (CUTLASS's consumer arrival count) and may get
  // it wrong: fewer than multicast_ctas lets a peer's TMA refill a stage still being read (R-M4).
  int release_ctas_override = 0;

  constexpr int release_ctas() const {
    return release_ctas_override > 0 ? release_ctas_override : multicast_ctas;
  }

  constexpr bool enabled() const { return kind != PipelineKind::None; }
  constexpr PipelineConfig with_advance_on_wait() const {
    PipelineConfig c = *this;
    c.advance_on_wait = true;
    return c;
  }
  constexpr PipelineConfig with_advance_on_acquire() const {
    PipelineConfig c = *this;
    c.advance_on_acquire = true;
    return c;
  }
  // Requires a TMA producer (only TMA writes into another CTA's shared memory).
  constexpr PipelineConfig with_multicast(int ctas) const {
    PipelineConfig c = *this;
    c.multicast_ctas = ctas;
    return c;
  }
  constexpr bool tma_producer() const {
    return kind == PipelineKind::TmaAsync || kind == PipelineKind::TmaWgmma;
  }
  // The consumer reads through an asynchronous unit (wgmma, TMA store) whose reads outlive the
  // consume work.
  constexpr AsyncReader async_reader() const {
    return kind == PipelineKind::TmaWgmma || kind == PipelineKind::AsyncWgmma ? AsyncReader::Wgmma
           : kind == PipelineKind::AsyncTma ? AsyncReader::BulkCopy
                                            : AsyncReader::None;
  }
  constexpr bool dma_consumer() const { return async_reader() != AsyncReader::None; }
};

inline constexpr PipelineConfig no_pipeline{};

// TMA producer, thread consumer. The producer group counts the warps that issue TMA (one elected
// lane each arms the stage's transaction count).
constexpr PipelineConfig tma_async(int num_stages, int num_bytes, CooperativeGroup producer,
                                   CooperativeGroup consumer) {
  return {PipelineKind::TmaAsync, num_stages, num_bytes, producer, consumer, false, false, 1, 0};
}

// Thread producer, thread consumer: the producer's commit is an arrival on the full barrier.
constexpr PipelineConfig async_async(int num_stages, CooperativeGroup producer,
                                     CooperativeGroup consumer) {
  return {PipelineKind::AsyncAsync, num_stages, 0, producer, consumer, false, false, 1, 0};
}

// TMA producer, wgmma consumer (the Hopper analogue of the seed's TmaUmma).
constexpr PipelineConfig tma_wgmma(int num_stages, int num_bytes, CooperativeGroup producer,
                                   CooperativeGroup consumer) {
  return {PipelineKind::TmaWgmma, num_stages, num_bytes, producer, consumer, false, false, 1, 0};
}

// Thread producer, TMA-store consumer (e.g. an epilogue's staging tile). Producer threads fence
// their shared-memory writes for the async proxy before committing; the consumer's work issues the
// store and releases the stage only after ts::bulk_wait_read retired the store's reads.
constexpr PipelineConfig async_tma(int num_stages, CooperativeGroup producer,
                                   CooperativeGroup consumer) {
  return {PipelineKind::AsyncTma, num_stages, 0, producer, consumer, false, false, 1, 0};
}

// Thread producer, wgmma consumer (the seed's AsyncUmma): threads write a stage, as for
// async_async, and wgmma reads it through descriptors, as for tma_wgmma. wgmma reads shared memory
// through the async proxy, so each producer thread must make its writes visible to it with
// `fence.proxy.async.shared::cta` (cuda::ptx::fence_proxy_async(space_shared)) before it commits:
// the producer's work does that; the verifier does not model proxies. The consumer releases only
// after ts::wgmma_wait retired the reads (R-D13).
constexpr PipelineConfig async_wgmma(int num_stages, CooperativeGroup producer,
                                     CooperativeGroup consumer) {
  return {PipelineKind::AsyncWgmma, num_stages, 0, producer, consumer, false, false, 1, 0};
}

}  // namespace warploom::ts
