// warploom/ts/async_wait.hpp
//
// ts::wgmma_wait<N>(ctx) / ts::bulk_wait_read<N>(ctx): retire this task's asynchronous
// shared-memory reads. wgmma_wait retires wgmma's reads, keeping
// the N most recent in flight — PTX wgmma.wait_group N. A stage of a tma_wgmma pipeline that a
// consumer work fed to wgmma may be released only after the reads of it retired (R-D13); the
// verifier tracks every read per iteration.
//
//   smem.wait();
//   acc = ts::work<&SmemAB::mma>(smem, acc);  // issues wgmma on this stage
//   ts::wgmma_wait<1>(ctx);                    // the previous stage's reads are done
//   smem.release();                            // (with advance_on_wait: releases that stage)
#pragma once

#include "warploom/config.hpp"
#include "warploom/ts/pipeline_config.hpp"

namespace warploom::ts {

template <int kKeep, class Ctx>
WL_HOST_DEVICE constexpr void wgmma_wait(Ctx& ctx) {
  static_assert(kKeep >= 0 && kKeep <= 7,
                "wgmma_wait<N>: N is the number of groups kept in flight, 0..7");
  ctx.template async_wait<AsyncReader::Wgmma, kKeep>();
}

// ts::bulk_wait_read<N>(ctx): the task's TMA stores (cp.async.bulk) have finished reading shared
// memory but for the N most recent groups — PTX cp.async.bulk.wait_group.read N. An async_tma
// stage may be released once the store that reads it retired (R-D13).
template <int kKeep, class Ctx>
WL_HOST_DEVICE constexpr void bulk_wait_read(Ctx& ctx) {
  static_assert(kKeep >= 0 && kKeep <= 7,
                "bulk_wait_read<N>: N is the number of groups kept in flight, 0..7");
  ctx.template async_wait<AsyncReader::BulkCopy, kKeep>();
}

}  // namespace warploom::ts
