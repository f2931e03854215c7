// warploom/ops/attention.hpp
//
// warploom::ops::Attention: an attention-forward plan, in the shape of ops::Gemm (warploom/ops/
// gemm.hpp). Declare the element type, head dimension and mask once, list the schedules this build
// runs for them, compile one, then run it on tensors as often as needed.
//
//   ops::Attention plan({.element = ScalarType::BF16, .head_dim = 128, .causal = true});
//   for (ops::AttentionTileDescription const& td : plan.tile_descriptions())
//     std::printf("%s\n", ops::to_string(td).c_str());
//   plan.run(q, k, v, o, lse, stream);               // the default schedule (Auto's)
//   plan.compile(plan.tile_descriptions().back());   // or another one this build runs
//   plan.run(q, k, v, o, lse, stream);
//
// O = softmax(Q . K^T * scale [+ causal mask]) . V and LSE, the fp32 log-sum-exp of each row, on
// views of torch's (B, S, H, D) tensors (HeadsView: any strides with D contiguous; a (B, H, S, D)
// tensor is the same memory with its strides permuted, bhsd() below). The semantics (GQA / MQA,
// the bottom-right causal mask, variable lengths) and every rule are warploom/attention.hpp's:
// run() checks the views against the plan (types, head dimension, shapes that agree) and then
// every rule of attention::check_attention_arguments, before anything is enqueued. Errors are
// std::invalid_argument naming the argument and the rule; a wrong dtype is ops::DtypeError, naming
// both types.
//
// One kernel family runs it: the sm90 TS attention (kernels/attention/sm90/), prebuilt per (type,
// head dimension, mask, schedule) as WARPLOOM_ATTENTION_INSTANCES chose; there is no JIT for it, so
// a plan lists, and a construction accepts, only what this build prebuilt.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "warploom/attention.hpp"
#include "warploom/ops/gemm.hpp"  // Arch, DtypeError, ScalarType, TensorView

namespace warploom::ops {

namespace detail {
class RunDevice;  // src/ops/device.hpp
}

// ops::HeadsView
//
// A 4-D tensor of attention heads in device memory, in torch's (batch, seqlen, heads, head_dim)
// order: a pointer, an element type, the extents and the strides in elements. Owns nothing.
struct HeadsView {
  void* data = nullptr;
  ScalarType dtype = ScalarType::BF16;
  std::int64_t batch = 1, seqlen = 0, heads = 1, head_dim = 0;
  std::int64_t batch_stride = 0, seq_stride = 0, head_stride = 0, dim_stride = 1;
  int device = -1;  // the CUDA device ordinal of the memory; -1: not said
};

// A packed (B, S, H, D) tensor, and a packed (B, H, S, D) one (torch SDPA's layout) seen in
// (B, S, H, D) order: the same memory, strides permuted.
HeadsView bshd(void* data, ScalarType dtype, std::int64_t batch, std::int64_t seqlen,
               std::int64_t heads, std::int64_t head_dim);
HeadsView bhsd(void* data, ScalarType dtype, std::int64_t batch, std::int64_t heads,
               std::int64_t seqlen, std::int64_t head_dim);

// e.g. "bf16 (B 4, S 4096, H 32, D 128) strides (16777216, 4096, 128, 1)".
std::string to_string(HeadsView const& v);

// ops::AttentionOptions
struct AttentionOptions {
  ScalarType element = ScalarType::BF16;  // F16 or BF16: Q, K, V and O
  int head_dim = 128;                     // 64, 128 or 256
  bool causal = false;                    // the bottom-right mask (warploom/attention.hpp)
  float scale = 0.0f;                     // 0: 1 / sqrt(head_dim)
  // Unset: the current CUDA device's. Set: the plan is made for it without a device (listing,
  // validating: CPU tests) and runs only on a device of that architecture (as ops::Gemm).
  std::optional<Arch> arch{};
};

// Which schedule a kernel runs: attention::AttentionSchedule (warploom/attention.hpp), with its
// to_string. A tile description names an explicit one (Serial, Overlap or Pingpong), never Auto.
using attention::AttentionSchedule;
using attention::to_string;

// ops::AttentionTileDescription: one kernel a plan can run. The tile numbers are the schedule's
// (kernels/attention/sm90/shape.hpp): block_m query rows per CTA tile (two consumer warpgroups of
// 64), block_n keys per K/V block, `stages` K/V ring stages, `q_stages` Q tiles in flight.
struct AttentionTileDescription {
  AttentionSchedule schedule = AttentionSchedule::Serial;
  int block_m = 0, block_n = 0, stages = 0, q_stages = 0;
  std::string schedule_name;  // the verified schedule's registry name (`warploom verify <name>`)
};
bool operator==(AttentionTileDescription const& x, AttentionTileDescription const& y);
inline bool operator!=(AttentionTileDescription const& x, AttentionTileDescription const& y) {
  return !(x == y);
}
// e.g. "overlap schedule, 128 x 128 blocks, 2 K/V stages, 2 Q stages
// (sm90_ts_attention_overlap_d128)".
std::string to_string(AttentionTileDescription const& td);

// Variable lengths (warploom/attention.hpp): q, o (1, total_q, H, D) and k, v (1, total_k, H_kv, D)
// views of every sequence's rows stacked, `cu_seqlens_q` / `cu_seqlens_k` batch + 1 device ints
// (0 first, non-decreasing), max_seqlen_* the longest lengths; lse is then (1, H, total_q).
struct VarlenLengths {
  int const* cu_seqlens_q = nullptr;
  int const* cu_seqlens_k = nullptr;
  int batch = 0;
  int max_seqlen_q = 0, max_seqlen_k = 0;
};

// ops::Attention
class Attention {
 public:
  // Refuses, naming the option and the rule: an element type other than fp16 / bf16 (DtypeError), a
  // head dimension other than 64, 128, 256, a negative or non-finite scale, an architecture this
  // build has no kernels for (or a device of another), and a combination this build did not
  // prebuild (naming WARPLOOM_ATTENTION_INSTANCES).
  explicit Attention(AttentionOptions const& options);

  AttentionOptions const& options() const { return options_; }
  Arch arch() const { return arch_; }
  // e.g. "Attention bf16, head_dim 128, causal, scale 1/sqrt(128), sm_90a".
  std::string describe() const;

  // The kernels this build runs for the plan, one per schedule: the default first (the schedule
  // attention::default_schedule names for keys of unknown length, as attention_forward's
  // AttentionSchedule::Auto runs it for long keys), then the others in the order serial, overlap,
  // pingpong.
  std::vector<AttentionTileDescription> tile_descriptions() const;
  // Validates `td` for this plan (one of tile_descriptions(): a description edited by hand is
  // refused with what differs); run() uses it from then on.
  void compile(AttentionTileDescription const& td);
  // The description compile() chose, else the default. A plan nobody compiled runs what
  // attention_forward's AttentionSchedule::Auto runs for each call's tensors: this default, or for
  // short keys the schedule default_schedule names for their length.
  AttentionTileDescription const& tile_description() const { return chosen_; }

  // The attention::AttentionArgs run() derives from the views, checked against the plan and by
  // attention::check_attention_arguments, without a device: what a run computes (tests, or a
  // direct call of attention::attention_forward). `lse` is fp32 (batch, heads, seqlen_q), packed
  // (a TensorView of batch `batch`, heads x seqlen_q; for variable lengths 1 x heads x total_q).
  attention::AttentionArgs arguments(HeadsView const& q, HeadsView const& k, HeadsView const& v,
                                     HeadsView const& o, TensorView const& lse,
                                     std::optional<VarlenLengths> const& varlen = {}) const;
  // Enqueues the forward pass on `stream` and returns (asynchronous): arguments(), the current
  // device's architecture and the pointers' memory checked first.
  void run(HeadsView const& q, HeadsView const& k, HeadsView const& v, HeadsView const& o,
           TensorView const& lse, cudaStream_t stream = nullptr,
           std::optional<VarlenLengths> const& varlen = {}) const;

 private:
  AttentionOptions options_;
  Arch arch_;
  AttentionTileDescription chosen_;
  bool compiled_ = false;  // compile() chose chosen_; else run() asks for Auto
  // The current device, checked against arch_ the first time a run sees it (shared by copies:
  // they have one architecture).
  std::shared_ptr<detail::RunDevice const> device_;
};

}  // namespace warploom::ops
