// src/attention/attention.cpp
//
// Argument checks and dispatch of attention_forward: every rule the kernel relies on is checked
// here, once, with an error that names the argument, its value and the rule; then the strides are
// resolved (kPacked) and the prebuilt instance of (type, head_dim, causal) launches.
#include "warploom/attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>

#include "attention/sm90/instance.hpp"
#include "attention/sm90/shape.hpp"

namespace warploom::attention {

namespace {

[[noreturn]] void fail(std::string const& what) {
  throw std::invalid_argument("attention_forward: " + what);
}

std::string str(std::int64_t v) {
  return std::to_string(v);
}

constexpr std::int64_t kElementBytes = 2;  // fp16 and bf16
// TMA's rules for a global tensor (cuTensorMapEncodeTiled): the base address 16-byte aligned, every
// stride but the innermost a multiple of 16 bytes and below 2^40 bytes.
constexpr std::int64_t kTmaAlignment = 16;
constexpr std::int64_t kMaxTmaStride = std::int64_t{1} << 40;

struct Extents {
  int rows;   // per batch (fixed lengths) or in all (variable lengths)
  int heads;  // heads or kv_heads
};

// `t` with kPacked strides replaced by the packed (B, S, H, D) ones.
AttentionTensor resolved(AttentionTensor t, Extents e, int head_dim) {
  if (t.head_stride == kPacked) t.head_stride = head_dim;
  if (t.row_stride == kPacked) t.row_stride = std::int64_t{e.heads} * head_dim;
  if (t.batch_stride == kPacked) t.batch_stride = t.row_stride * e.rows;
  return t;
}

void check_enum(ElementType t) {
  int const v = static_cast<int>(t);
  if (v < 0 || v > static_cast<int>(ElementType::BF16))
    fail("type = ElementType(" + str(v) + ") is out of range: the values are F16 (0) and BF16 (1)");
}

void check_extent(char const* name, std::int64_t value, std::int64_t min) {
  if (value < min) fail(std::string(name) + " = " + str(value) + " must be at least " + str(min));
  if (value > kMaxExtent)
    fail(std::string(name) + " = " + str(value) + " must be at most " + str(kMaxExtent) +
         " (2^31 - 1024: positions are 32-bit on the device)");
}

// A tensor TMA reads (or, for O, the kernel writes two elements at a time).
void check_tensor(char const* name, AttentionTensor const& t, bool varlen) {
  std::string const n(name);
  if (t.data == nullptr) fail(n + " is null");
  if (reinterpret_cast<std::uintptr_t>(t.data) % kTmaAlignment != 0)
    fail(n + " = " + [&] {
      std::ostringstream s;
      s << t.data;
      return s.str();
    }() + " must be 16-byte aligned (TMA reads it)");
  auto check_stride = [&](char const* field, std::int64_t elements, bool used) {
    if (!used) return;
    std::string const what = n + "." + field + " = " + str(elements) + " elements";
    if (elements < 0) fail(what + " must be positive (or kPacked)");
    std::int64_t const bytes = elements * kElementBytes;
    if (bytes % kTmaAlignment != 0)
      fail(what + " (" + str(bytes) +
           " bytes) must be a multiple of 16 bytes (TMA strides): a multiple of 8 elements");
    if (bytes >= kMaxTmaStride)
      fail(what + " (" + str(bytes) + " bytes) must be below 2^40 bytes (TMA strides)");
  };
  check_stride("row_stride", t.row_stride, true);
  check_stride("head_stride", t.head_stride, true);
  check_stride("batch_stride", t.batch_stride, !varlen);
}

void check_arguments(AttentionArgs const& a, AttentionArgs& r) {
  check_enum(a.type);
  if (std::string const error = attention_options_error(a.head_dim, a.scale); !error.empty())
    fail(error);
  bool const varlen = a.cu_seqlens_q != nullptr || a.cu_seqlens_k != nullptr;
  if (varlen && (a.cu_seqlens_q == nullptr || a.cu_seqlens_k == nullptr))
    fail(std::string(a.cu_seqlens_q == nullptr ? "cu_seqlens_q" : "cu_seqlens_k") +
         " is null but " + (a.cu_seqlens_q == nullptr ? "cu_seqlens_k" : "cu_seqlens_q") +
         " is not: variable lengths need both");
  check_extent("batch", a.batch, 1);
  check_extent("seqlen_q", a.seqlen_q, 1);
  check_extent("seqlen_k", a.seqlen_k, 1);
  check_extent("heads", a.heads, 1);
  int const kv_heads = a.kv_heads == 0 ? a.heads : a.kv_heads;
  check_extent("kv_heads", kv_heads, 1);
  if (a.heads % kv_heads != 0)
    fail("heads = " + str(a.heads) + " must be a multiple of kv_heads = " + str(kv_heads) +
         " (each K/V head serves heads / kv_heads query heads)");
  if (varlen) {
    check_extent("total_q", a.total_q, 1);
    check_extent("total_k", a.total_k, 1);
    if (reinterpret_cast<std::uintptr_t>(a.cu_seqlens_q) % 4 != 0 ||
        reinterpret_cast<std::uintptr_t>(a.cu_seqlens_k) % 4 != 0)
      fail("cu_seqlens_q and cu_seqlens_k must be 4-byte aligned (arrays of int)");
  }
  // The query tiles of all heads and sequences are counted in an int.
  std::int64_t const tiles = (std::int64_t{a.seqlen_q} + 127) / 128 * a.heads * a.batch;
  if (tiles > kMaxExtent)
    fail("batch * heads * ceil(seqlen_q / 128) = " + str(tiles) + " tiles must be at most " +
         str(kMaxExtent));
  r = a;
  r.kv_heads = kv_heads;
  if (r.scale == 0.0f) r.scale = 1.0f / std::sqrt(static_cast<float>(a.head_dim));
  Extents const eq{varlen ? a.total_q : a.seqlen_q, a.heads};
  Extents const ek{varlen ? a.total_k : a.seqlen_k, kv_heads};
  r.q = resolved(a.q, eq, a.head_dim);
  r.k = resolved(a.k, ek, a.head_dim);
  r.v = resolved(a.v, ek, a.head_dim);
  AttentionTensor o = a.o_strides;
  o.data = a.o;
  r.o_strides = resolved(o, eq, a.head_dim);
  check_tensor("q", r.q, varlen);
  check_tensor("k", r.k, varlen);
  check_tensor("v", r.v, varlen);
  check_tensor("o", r.o_strides, varlen);
  if (a.lse == nullptr) fail("lse is null: the kernel writes the log-sum-exp of every row");
  if (reinterpret_cast<std::uintptr_t>(a.lse) % 4 != 0) fail("lse must be 4-byte aligned (fp32)");
  // O is written as it is read: rows of whole heads; overlapping rows would race.
  if (r.o_strides.head_stride < a.head_dim)
    fail("o.head_stride = " + str(r.o_strides.head_stride) +
         " must be at least head_dim = " + str(a.head_dim) + " (heads of O must not overlap)");
}

// The reason the device cannot reach `p` ("" when it can, or when the runtime cannot say).
std::string unreachable(void const* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return "";
  }
  if (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged) return "";
  if (attr.type == cudaMemoryTypeHost && attr.devicePointer == p) return "";
  return " is host memory: TMA and the kernel read device memory (cudaMalloc, "
         "cudaMallocManaged)";
}

void check_device_pointers(AttentionArgs const& r) {
  // A pointer query enqueues nothing: let it run while a graph is being captured.
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  (void)cudaThreadExchangeStreamCaptureMode(&mode);
  std::string refused;
  auto check = [&](char const* name, void const* p) {
    if (refused.empty() && p != nullptr)
      if (std::string const why = unreachable(p); !why.empty()) refused = name + why;
  };
  check("q", r.q.data);
  check("k", r.k.data);
  check("v", r.v.data);
  check("o", r.o);
  check("lse", r.lse);
  check("cu_seqlens_q", r.cu_seqlens_q);
  check("cu_seqlens_k", r.cu_seqlens_k);
  (void)cudaThreadExchangeStreamCaptureMode(&mode);
  if (!refused.empty()) fail(refused);
}

// The schedule's range, checked wherever one comes in: `where` names the function, `name` the
// argument ("tuning.schedule").
void check_schedule(char const* where, char const* name, AttentionSchedule s) {
  int const v = static_cast<int>(s);
  if (v < 0 || v > static_cast<int>(AttentionSchedule::Pingpong))
    throw std::invalid_argument(std::string(where) + ": " + name + " = AttentionSchedule(" +
                                str(v) +
                                ") is out of range: the values are Auto (0), Serial (1), "
                                "Overlap (2) and Pingpong (3)");
}

// The prebuilt instance of an explicit schedule (not Auto), or null.
sm90::InstanceEntry const* find_instance(ElementType type, int head_dim, bool causal,
                                         AttentionSchedule schedule) {
  bool const pingpong = schedule == AttentionSchedule::Pingpong;
  bool const overlap = schedule != AttentionSchedule::Serial;  // the ping-pong overlaps too
  for (sm90::InstanceEntry const& e : sm90::prebuilt_instances())
    if (e.type == type && e.head_dim == head_dim && e.causal == causal && e.overlap == overlap &&
        e.pingpong == pingpong)
      return &e;
  return nullptr;
}

// `s`, with Auto replaced by what it runs.
AttentionSchedule resolved(ElementType type, int head_dim, bool causal, AttentionSchedule s,
                           int seqlen_k = 0) {
  return s == AttentionSchedule::Auto ? default_schedule(type, head_dim, causal, seqlen_k) : s;
}

}  // namespace

std::string_view to_string(ElementType t) {
  switch (t) {
    case ElementType::F16:
      return "fp16";
    case ElementType::BF16:
      return "bf16";
  }
  return "?";
}

std::string_view to_string(AttentionSchedule s) {
  switch (s) {
    case AttentionSchedule::Auto:
      return "auto";
    case AttentionSchedule::Serial:
      return "serial";
    case AttentionSchedule::Overlap:
      return "overlap";
    case AttentionSchedule::Pingpong:
      return "pingpong";
  }
  return "?";
}

AttentionSchedule default_schedule(ElementType type, int head_dim, bool causal, int seqlen_k) {
  // Measured with FlashAttention-3's sweep (bf16, S = 512 ... 16384 at 16384 tokens, D = 64, 128,
  // 256, both masks; bench/results/attention_sweep_2026-12-06.json, docs/kernels/sm90_attention.md,
  // "The default schedule"; an H100, the machine the device tool lent): the overlap schedule is the
  // fastest or within 3 % of it at 31 of the 36 points; at D = 64 (192-row tiles, three
  // warpgroups) the serial schedule is level with it (ahead at 6 points, behind at 6, by at most
  // 7 %) and the ping-pong (128 rows) behind both at 11 of 12; the ping-pong is ahead of it at
  // D = 128 without a mask at S <= 1024 (by 4-10 %). fp16 is taken to follow bf16 (the same kernel
  // and tiles; not measured). A build has every schedule of the (type, D, causal) it prebuilt, or
  // none; the serial schedule where it has none (then the call is refused by name anyway).
  // Short keys at D = 128 without a mask go to the ping-pong: a tile there is 4 to 8 key blocks,
  // too few for one warpgroup's overlap to reach its stride, while the ping-pong's two warpgroups
  // cover each other's first and last block (the sweep: S = 512 10 % faster, 1024 4 %, 2048 1.5 %
  // slower; again on the H100 on 2026-12-06 at 32x16x512x128, 13 % in burst and 9 % in cycles,
  // bench/results/attention_pair_major_2026-12-06/). With the mask the short tiles end the same
  // way in both schedules (within 3 %), and at D = 64 the ping-pong's 128-row tiles lose to the
  // others' 192 at every length.
  constexpr int kPingpongLongestKeys = 1024;
  if (head_dim == 128 && !causal && seqlen_k > 0 && seqlen_k <= kPingpongLongestKeys &&
      find_instance(type, head_dim, causal, AttentionSchedule::Pingpong) != nullptr)
    return AttentionSchedule::Pingpong;
  AttentionSchedule const fastest = AttentionSchedule::Overlap;
  if (find_instance(type, head_dim, causal, fastest) != nullptr) return fastest;
  return AttentionSchedule::Serial;
}

std::string attention_options_error(int head_dim, float scale) {
  if (head_dim != 64 && head_dim != 128 && head_dim != 256)
    return "head_dim = " + str(head_dim) + " is not supported: the kernel runs 64, 128 and 256";
  if (!(scale >= 0.0f) || std::isinf(scale))
    return "scale = " + std::to_string(scale) +
           " must be finite and not negative (0: 1 / sqrt(head_dim))";
  return "";
}

void check_attention_arguments(AttentionArgs const& args) {
  AttentionArgs resolved_args;
  check_arguments(args, resolved_args);
}

bool attention_schedule_runs(int head_dim, AttentionSchedule schedule) {
  check_schedule("attention_schedule_runs", "schedule", schedule);
  if (!attention_options_error(head_dim, 0.0f).empty()) return false;
  return schedule != AttentionSchedule::Pingpong || sm90::pingpong_runs(head_dim);
}

namespace {

template <int kHeadDim, bool kCausal, bool kTurns>
AttentionKernelShape kernel_shape(AttentionSchedule schedule) {
  using S = sm90::DefaultShape<kHeadDim, kCausal, kTurns>;
  return {.block_m = S::kBlockM,
          .block_n = S::kBlockN,
          .stages = S::kStages,
          .q_stages = S::kStagesQ,
          .schedule_name = std::string(
              sm90::schedule_name<S>(schedule != AttentionSchedule::Serial, kTurns).view())};
}

template <int kHeadDim>
AttentionKernelShape kernel_shape(bool causal, AttentionSchedule schedule) {
  bool const turns = schedule == AttentionSchedule::Pingpong;
  if (causal)
    return turns ? kernel_shape<kHeadDim, true, true>(schedule)
                 : kernel_shape<kHeadDim, true, false>(schedule);
  return turns ? kernel_shape<kHeadDim, false, true>(schedule)
               : kernel_shape<kHeadDim, false, false>(schedule);
}

}  // namespace

AttentionKernelShape attention_kernel_shape(int head_dim, bool causal, AttentionSchedule schedule) {
  check_schedule("attention_kernel_shape", "schedule", schedule);
  if (schedule == AttentionSchedule::Auto)
    throw std::invalid_argument(
        "attention_kernel_shape: schedule = auto names no kernel: ask for serial, overlap or "
        "pingpong (default_schedule says which auto runs)");
  if (std::string const e = attention_options_error(head_dim, 0.0f); !e.empty())
    throw std::invalid_argument("attention_kernel_shape: " + e);
  if (!attention_schedule_runs(head_dim, schedule))
    throw std::invalid_argument("attention_kernel_shape: the " + std::string(to_string(schedule)) +
                                " schedule does not run head_dim " + str(head_dim) +
                                " (attention_schedule_runs)");
  switch (head_dim) {
    case 64:
      return kernel_shape<64>(causal, schedule);
    case 128:
      return kernel_shape<128>(causal, schedule);
    default:
      return kernel_shape<256>(causal, schedule);
  }
}

bool attention_instance_built(ElementType type, int head_dim, bool causal,
                              AttentionSchedule schedule) {
  check_schedule("attention_instance_built", "schedule", schedule);
  return find_instance(type, head_dim, causal, resolved(type, head_dim, causal, schedule)) !=
         nullptr;
}

void attention_forward(AttentionArgs const& args, cudaStream_t stream,
                       AttentionTuning const& tuning) {
  AttentionArgs r;
  check_arguments(args, r);
  check_schedule("attention_forward", "tuning.schedule", tuning.schedule);
  AttentionSchedule const schedule =
      resolved(r.type, r.head_dim, r.causal, tuning.schedule, r.seqlen_k);
  if (!attention_schedule_runs(r.head_dim, schedule)) {
    std::string dims;  // "64 and 128"
    std::size_t const n = std::size(sm90::kPingpongHeadDims);
    for (std::size_t i = 0; i < n; ++i)
      dims += (i == 0 ? "" : i + 1 == n ? " and " : ", ") + str(sm90::kPingpongHeadDims[i]);
    fail("tuning.schedule = Pingpong runs head_dim " + dims + ", not " + str(r.head_dim) +
         ": there its two warpgroups' registers cannot hold a block's accumulators with the GEMMs "
         "in flight (kernels/attention/sm90/shape.hpp, pingpong_runs); Overlap (the default) or "
         "Serial run it");
  }
  sm90::InstanceEntry const* instance = find_instance(r.type, r.head_dim, r.causal, schedule);
  if (instance == nullptr) {
    std::string built;
    for (sm90::InstanceEntry const& e : sm90::prebuilt_instances())
      if (!e.overlap && !e.pingpong)
        built += (built.empty() ? "" : ", ") + std::string(to_string(e.type)) +
                 " D=" + str(e.head_dim) + (e.causal ? " causal" : "");
    fail("no kernel for type = " + std::string(to_string(r.type)) +
         ", head_dim = " + str(r.head_dim) + ", causal = " + (r.causal ? "true" : "false") +
         ", schedule " + std::string(to_string(schedule)) +
         (tuning.schedule == AttentionSchedule::Auto ? " (auto)" : "") +
         " in this build (built, each in its head dimension's schedules: " + built +
         "); configure with -DWARPLOOM_ATTENTION_INSTANCES=all for every combination");
  }
  check_device_pointers(r);
  instance->launch(r, stream);
}

double attention_flops(int batch, int heads, int seqlen_q, int seqlen_k, int head_dim,
                       bool causal) {
  double pairs = static_cast<double>(seqlen_q) * seqlen_k;
  if (causal) {
    // Row i sees keys 0 .. i + seqlen_k - seqlen_q (none when that is negative), at most seqlen_k.
    pairs = 0.0;
    std::int64_t const shift = std::int64_t{seqlen_k} - seqlen_q;
    for (std::int64_t i = 0; i < seqlen_q; ++i) {
      std::int64_t const seen =
          std::min<std::int64_t>(seqlen_k, std::max<std::int64_t>(0, i + shift + 1));
      pairs += static_cast<double>(seen);
    }
  }
  return 4.0 * pairs * head_dim * heads * batch;
}

}  // namespace warploom::attention
