// bench/attention_plans.hpp
//
// The `attention` family of `warploom bench`: attention forward on batch x heads x seqlen x
// head_dim problems (S_q = S_k = seqlen; K/V heads = heads / --group), --dtype bf16 | fp16,
// --mask none | causal. FLOPs are 4 * (unmasked (query, key) pairs) * head_dim * heads * batch
// (attention_flops: the causal count is the exact triangle, not half of the square); bytes are Q,
// K, V and O once and the LSE.
//
// Providers: warploom (attention_forward, the sm90 TS kernel, in its default schedule; --autotune
// also times each schedule this build has by name: `schedule=serial`, `schedule=overlap`,
// `schedule=pingpong`). cuDNN's SDPA and FlashAttention-2 are measured from Python (torch) in the
// same process for now (issue 18).
//
// Checked against a float64 host reference on the first and last 64 query rows of the first and of
// the last (sequence, head), with the tolerance of tests/gpu/attention/attention_test.cpp.
#pragma once

#include "warploom/harness/kernel_plan.hpp"

namespace warploom::bench {

harness::PlanFamily attention_plan_family();

}  // namespace warploom::bench
