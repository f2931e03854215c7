// warploom/attention.hpp
//
// The attention forward API: O = softmax(Q . K^T * scale [+ causal mask]) . V, and the
// log-sum-exp of every row of the softmax's argument, LSE = log(sum_k exp(scale * q . k)) (natural
// log, fp32), as FlashAttention returns it for the backward pass.
//
//   Q and O are (batch, seqlen_q, heads, head_dim), K and V (batch, seqlen_k, kv_heads, head_dim):
//   torch's (B, S, H, D) tensors, D contiguous, any 16-byte-multiple strides for the other three
//   modes (AttentionTensor; the default packs them). LSE is (batch, heads, seqlen_q) fp32, packed.
//   fp16 or bf16 inputs and output, fp32 accumulation and softmax.
//   GQA / MQA: heads a multiple of kv_heads; query head h reads K/V head h / (heads / kv_heads).
//   Causal: query row i sees keys 0 .. i + seqlen_k - seqlen_q (the mask aligned to the bottom
//   right, FlashAttention 2/3's convention; the same as the top-left mask when seqlen_q ==
//   seqlen_k). A row that sees no key (seqlen_k < seqlen_q) gets O = 0 and LSE = +inf.
//   Variable lengths: with cu_seqlens_q and cu_seqlens_k (device arrays of batch + 1 ints, 0 first,
//   non-decreasing), sequence b is rows cu_seqlens[b] .. cu_seqlens[b + 1] - 1 of Q, O (LSE) and
//   of K, V, which are then (total, heads, head_dim) tensors (the batch stride is unused); seqlen_q
//   and seqlen_k are the longest lengths (they size the grid; longer sequences are cut), total_q
//   and total_k the tensors' rows, and LSE is (heads, total_q).
//
// One kernel runs it: the sm90 TS attention (kernels/attention/sm90/, FlashAttention-3's design:
// a TMA warp, two wgmma warpgroups with the online softmax in registers). Head dimensions 64, 128
// and 256, each for both types and both masks, as far as this build prebuilt them
// (attention_instance_built; WARPLOOM_ATTENTION_INSTANCES).
//
// Every call is checked before anything launches: a bad argument throws std::invalid_argument
// naming the argument and the rule it breaks.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <cuda_runtime_api.h>

namespace warploom::attention {

enum class ElementType { F16, BF16 };
std::string_view to_string(ElementType t);

// Strides in elements; -1 (kPacked) packs the tensor as (B, S, H, D): row stride H * D, head stride
// D, batch stride S * H * D.
inline constexpr std::int64_t kPacked = -1;

struct AttentionTensor {
  void const* data = nullptr;  // O: written (AttentionArgs::o is its own field)
  std::int64_t batch_stride = kPacked;
  std::int64_t row_stride = kPacked;
  std::int64_t head_stride = kPacked;
};

// The largest batch, sequence length and head count: positions are held in 32-bit ints on the
// device, and a 128-row tile starting inside a sequence must end below 2^31.
inline constexpr int kMaxExtent = std::numeric_limits<int>::max() - 1023;

struct AttentionArgs {
  ElementType type = ElementType::BF16;
  AttentionTensor q, k, v;
  void* o = nullptr;
  AttentionTensor o_strides;  // O's strides (its data pointer is `o`)
  float* lse = nullptr;       // (batch, heads, seqlen_q) fp32; required
  int batch = 1;
  int seqlen_q = 0;
  int seqlen_k = 0;
  int heads = 1;
  int kv_heads = 0;  // 0: heads (multi-head attention)
  int head_dim = 128;
  float scale = 0.0f;  // 0: 1 / sqrt(head_dim)
  bool causal = false;
  // Variable lengths (see above); both or neither.
  int const* cu_seqlens_q = nullptr;
  int const* cu_seqlens_k = nullptr;
  int total_q = 0;
  int total_k = 0;
};

// Which schedule runs a problem (docs/kernels/sm90_attention.md, "Three schedules per head
// dimension"). Each is a kernel of its own, prebuilt per (type, head_dim, causal).
enum class AttentionSchedule {
  // The fastest schedule measured for the problem's head dimension and key length among those this
  // build prebuilt: default_schedule() says which.
  Auto,
  // The two GEMMs of a key block back to back: S = Q . K^T, its softmax, then O += P . V
  // (schedule sm90_ts_attention_d<D>).
  Serial,
  // FlashAttention-3's intra-warpgroup overlap: block j's S issued with block j-1's O += P . V,
  // and its softmax run while that wgmma is in flight (sm90_ts_attention_overlap_d<D>).
  Overlap,
  // That overlap with FlashAttention-3's inter-warpgroup ping-pong: the two consumer warpgroups
  // take turns at the tensor cores, one's softmax under the other's GEMMs
  // (sm90_ts_attention_pingpong_d<D>). Head dimensions 64 and 128 (attention_schedule_runs): at
  // 256 its warpgroups' registers do not hold it, and attention_forward refuses it.
  Pingpong,
};
// "auto", "serial", "overlap", "pingpong".
std::string_view to_string(AttentionSchedule s);

struct AttentionTuning {
  AttentionSchedule schedule = AttentionSchedule::Auto;
};

// Computes O and LSE on `stream`. Throws std::invalid_argument for a bad argument (before any work
// on the device; a schedule this build did not prebuild is one), std::runtime_error for a CUDA
// error.
void attention_forward(AttentionArgs const& args, cudaStream_t stream = nullptr,
                       AttentionTuning const& tuning = {});

// Checks `args` as attention_forward does, without touching the device or its memory (pointers are
// checked for null and alignment only): what the CPU tests run.
void check_attention_arguments(AttentionArgs const& args);

// The rules on the head dimension and the scale alone, worded as attention_forward words them
// (without its "attention_forward: " prefix); empty when both hold. What a plan made before any
// tensor (ops::Attention) checks, so that both say the same.
std::string attention_options_error(int head_dim, float scale);

// The schedule AttentionSchedule::Auto runs for (type, head_dim, causal) and keys of length up to
// `seqlen_k` (the problem's longest; 0 where it is not known yet, as for a plan made before its
// tensors: then the long-sequence choice): the one measured fastest where this build prebuilt it,
// else Serial. Never Auto. The one place that policy is written (attention_forward,
// ops::Attention and Python's schedule="auto" ask it).
AttentionSchedule default_schedule(ElementType type, int head_dim, bool causal, int seqlen_k = 0);

// Whether the kernel has `schedule` at head dimension `head_dim` at all, whatever this build
// prebuilt (false for a head dimension it does not run; Auto runs every one it runs): what to ask
// before attention_instance_built, to tell "no such kernel" from "not in this build". Throws
// std::invalid_argument for a schedule out of the enum's range.
bool attention_schedule_runs(int head_dim, AttentionSchedule schedule);

// The tile of the kernel that runs `schedule` (Serial, Overlap or Pingpong) at `head_dim` with
// or without the causal mask, whatever this build prebuilt (kernels/attention/sm90/shape.hpp, the
// one source): block_m query rows per tile, block_n keys per K/V block, `stages` K/V ring stages,
// `q_stages` Q tiles in flight, and the verified schedule's name. For what counts a problem's
// tiles and blocks (ops::Attention's tile descriptions, bench/python/attention.py's records).
// Throws std::invalid_argument for Auto (name a schedule: default_schedule says Auto's), or a
// head dimension or schedule the kernel does not have (attention_schedule_runs).
struct AttentionKernelShape {
  int block_m = 0, block_n = 0, stages = 0, q_stages = 0;
  std::string schedule_name;
};
AttentionKernelShape attention_kernel_shape(int head_dim, bool causal, AttentionSchedule schedule);

// Whether this build prebuilt the kernel of `schedule` (Auto: default_schedule's) for (type,
// head_dim, causal); attention_forward refuses the others by name. Throws std::invalid_argument
// for a schedule out of the enum's range.
bool attention_instance_built(ElementType type, int head_dim, bool causal,
                              AttentionSchedule schedule = AttentionSchedule::Auto);

// 4 * (unmasked (query, key) pairs) * head_dim * heads: the FLOPs of the two GEMMs over the pairs
// the mask keeps (causal: the bottom-right triangle), as FlashAttention counts them (without the
// softmax). For fixed lengths.
double attention_flops(int batch, int heads, int seqlen_q, int seqlen_k, int head_dim, bool causal);

}  // namespace warploom::attention
