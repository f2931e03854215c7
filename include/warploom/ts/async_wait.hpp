// warploom/ts/async_wait.hpp
//
// ts::wgmma_wait<N>(ctx): retires this task's asynchronous shared-memory reads (wgmma), keeping
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

namespace warploom::ts {

template <int kKeep, class Ctx>
WL_HOST_DEVICE constexpr void wgmma_wait(Ctx& ctx) {
  static_assert(kKeep >= 0 && kKeep <= 7,
                "wgmma_wait<N>: N is the number of groups kept in flight, 0..7");
  ctx.template async_wait<kKeep>();
}

}  // namespace warploom::ts
