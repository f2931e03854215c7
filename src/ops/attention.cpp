// src/ops/attention.cpp — ops::Attention (warploom/ops/attention.hpp): the plan's own checks (what
// it was made for against the views it is given), then attention_forward's.
#include "warploom/ops/attention.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "device.hpp"

namespace warploom::ops {

namespace {

[[noreturn]] void fail(std::string const& what) {
  throw std::invalid_argument("Attention: " + what);
}

attention::ElementType element_of(ScalarType t) {
  return t == ScalarType::F16 ? attention::ElementType::F16 : attention::ElementType::BF16;
}

// The kernel of a plan's head dimension and mask for `schedule` (attention_kernel_shape: the one
// source of its tile).
AttentionTileDescription described(AttentionOptions const& o, AttentionSchedule schedule) {
  attention::AttentionKernelShape const k =
      attention::attention_kernel_shape(o.head_dim, o.causal, schedule);
  return {.schedule = schedule,
          .block_m = k.block_m,
          .block_n = k.block_n,
          .stages = k.stages,
          .q_stages = k.q_stages,
          .schedule_name = k.schedule_name};
}

constexpr AttentionSchedule kSchedules[] = {AttentionSchedule::Serial, AttentionSchedule::Overlap,
                                            AttentionSchedule::Pingpong};

bool built(AttentionOptions const& o, AttentionSchedule s) {
  return attention::attention_instance_built(element_of(o.element), o.head_dim, o.causal, s);
}

// `v`'s (B, S, H) strides as an attention::AttentionTensor, after the plan's own checks: its dtype
// the plan's, its head dimension the plan's and contiguous.
attention::AttentionTensor tensor_of(char const* name, HeadsView const& v,
                                     AttentionOptions const& plan) {
  if (v.dtype != plan.element)
    throw DtypeError(fmt::format("Attention: {} is {}, but the plan was made for {}", name,
                                 gemm::to_string(v.dtype), gemm::to_string(plan.element)));
  if (v.head_dim != plan.head_dim)
    fail(fmt::format("{} has head_dim {}, but the plan was made for head_dim {}", name, v.head_dim,
                     plan.head_dim));
  if (v.dim_stride != 1)
    fail(fmt::format("{}'s head_dim stride is {}: the head dimension must be contiguous (1)", name,
                     v.dim_stride));
  for (std::int64_t const extent : {v.batch, v.seqlen, v.heads})
    if (extent < 1 || extent > attention::kMaxExtent)
      fail(fmt::format("{} is {}: every extent must be in [1, {}]", name, to_string(v),
                       attention::kMaxExtent));
  return {.data = v.data,
          .batch_stride = v.batch_stride,
          .row_stride = v.seq_stride,
          .head_stride = v.head_stride};
}

void expect_extent(char const* name, char const* what, std::int64_t got, std::int64_t want,
                   char const* source) {
  if (got != want)
    fail(
        fmt::format("{} has {} {}, but {} has {}: they must agree", name, what, got, source, want));
}

}  // namespace

HeadsView bshd(void* data, ScalarType dtype, std::int64_t batch, std::int64_t seqlen,
               std::int64_t heads, std::int64_t head_dim) {
  return {.data = data,
          .dtype = dtype,
          .batch = batch,
          .seqlen = seqlen,
          .heads = heads,
          .head_dim = head_dim,
          .batch_stride = seqlen * heads * head_dim,
          .seq_stride = heads * head_dim,
          .head_stride = head_dim,
          .dim_stride = 1};
}

HeadsView bhsd(void* data, ScalarType dtype, std::int64_t batch, std::int64_t heads,
               std::int64_t seqlen, std::int64_t head_dim) {
  HeadsView v = bshd(data, dtype, batch, seqlen, heads, head_dim);  // the same batch stride
  v.seq_stride = head_dim;
  v.head_stride = seqlen * head_dim;
  return v;
}

std::string to_string(HeadsView const& v) {
  return fmt::format("{} (B {}, S {}, H {}, D {}) strides ({}, {}, {}, {})",
                     gemm::to_string(v.dtype), v.batch, v.seqlen, v.heads, v.head_dim,
                     v.batch_stride, v.seq_stride, v.head_stride, v.dim_stride);
}

bool operator==(AttentionTileDescription const& x, AttentionTileDescription const& y) {
  return x.schedule == y.schedule && x.block_m == y.block_m && x.block_n == y.block_n &&
         x.stages == y.stages && x.q_stages == y.q_stages && x.schedule_name == y.schedule_name;
}

std::string to_string(AttentionTileDescription const& td) {
  return fmt::format("{} schedule, {} x {} blocks, {} K/V stages, {} Q stages ({})",
                     to_string(td.schedule), td.block_m, td.block_n, td.stages, td.q_stages,
                     td.schedule_name);
}

Attention::Attention(AttentionOptions const& options) : options_(options) {
  if (options.element != ScalarType::F16 && options.element != ScalarType::BF16)
    throw DtypeError(fmt::format(
        "Attention: element = {}: the attention kernels take fp16 or bf16 (Q, K, V and O)",
        gemm::to_string(options.element)));
  if (std::string const error = attention::attention_options_error(options.head_dim, options.scale);
      !error.empty())
    fail(error);
  arch_ = detail::plan_arch(options.arch, detail::current_device());
  device_ = std::make_shared<detail::RunDevice const>();
  if (std::ranges::none_of(kSchedules, [&](AttentionSchedule s) { return built(options, s); }))
    fail(fmt::format(
        "this build prebuilt no kernel for {}, head_dim {}{} (configure with "
        "-DWARPLOOM_ATTENTION_INSTANCES=all for every combination)",
        gemm::to_string(options.element), options.head_dim, options.causal ? ", causal" : ""));
  chosen_ = tile_descriptions().front();
}

std::string Attention::describe() const {
  std::string const scale = options_.scale == 0.0f ? fmt::format("1/sqrt({})", options_.head_dim)
                                                   : fmt::format("{}", options_.scale);
  return fmt::format("Attention {}, head_dim {}, {}, scale {}, {}",
                     gemm::to_string(options_.element), options_.head_dim,
                     options_.causal ? "causal" : "no mask", scale, ops::to_string(arch_));
}

std::vector<AttentionTileDescription> Attention::tile_descriptions() const {
  AttentionSchedule const first =
      attention::default_schedule(element_of(options_.element), options_.head_dim, options_.causal);
  std::vector<AttentionTileDescription> out;
  if (built(options_, first)) out.push_back(described(options_, first));
  for (AttentionSchedule const s : kSchedules)
    if (s != first && built(options_, s)) out.push_back(described(options_, s));
  return out;
}

void Attention::compile(AttentionTileDescription const& td) {
  std::vector<AttentionTileDescription> const all = tile_descriptions();
  for (AttentionTileDescription const& d : all)
    if (d == td) {
      chosen_ = td;
      compiled_ = true;
      return;
    }
  std::string listed;
  for (AttentionTileDescription const& d : all) listed += "\n  " + to_string(d);
  fail(fmt::format("compile: `{}` is not a kernel this plan runs ({}); its descriptions:{}",
                   to_string(td), describe(), listed));
}

namespace {

// The plan's own checks of the views (what it was made for), and the AttentionArgs they describe,
// not yet checked by attention_forward's rules: arguments() adds those (check_attention_arguments),
// run() leaves them to attention_forward, which checks every call.
attention::AttentionArgs mapped(AttentionOptions const& plan, HeadsView const& q,
                                HeadsView const& k, HeadsView const& v, HeadsView const& o,
                                TensorView const& lse, std::optional<VarlenLengths> const& varlen) {
  attention::AttentionArgs a;
  a.type = element_of(plan.element);
  a.q = tensor_of("q", q, plan);
  a.k = tensor_of("k", k, plan);
  a.v = tensor_of("v", v, plan);
  attention::AttentionTensor const ot = tensor_of("o", o, plan);
  a.o = o.data;
  a.o_strides = ot;
  a.o_strides.data = nullptr;
  // O is Q's shape; V is K's; K and Q share the batch (and, varlen, the single stacked "batch").
  expect_extent("o", "batch", o.batch, q.batch, "q");
  expect_extent("o", "seqlen", o.seqlen, q.seqlen, "q");
  expect_extent("o", "heads", o.heads, q.heads, "q");
  expect_extent("k", "batch", k.batch, q.batch, "q");
  expect_extent("v", "batch", v.batch, k.batch, "k");
  expect_extent("v", "seqlen", v.seqlen, k.seqlen, "k");
  expect_extent("v", "heads", v.heads, k.heads, "k");
  if (lse.dtype != ScalarType::F32)
    throw DtypeError(
        fmt::format("Attention: lse is {}: it must be fp32", gemm::to_string(lse.dtype)));
  std::int64_t const rows = q.seqlen;  // per batch, or every sequence's (varlen)
  if (lse.batch != q.batch || lse.rows != q.heads || lse.cols != rows || lse.col_stride != 1 ||
      lse.row_stride != rows || (lse.batch > 1 && lse.batch_stride != q.heads * rows))
    fail(
        fmt::format("lse is {}: it must be a packed fp32 ({}, {}, {}) tensor (batch, heads, "
                    "seqlen_q)",
                    to_string(lse), q.batch, q.heads, rows));
  a.lse = static_cast<float*>(lse.data);
  a.heads = static_cast<int>(q.heads);
  a.kv_heads = static_cast<int>(k.heads);
  a.head_dim = plan.head_dim;
  a.scale = plan.scale;
  a.causal = plan.causal;
  if (varlen) {
    if (q.batch != 1)
      fail(
          fmt::format("q has batch {}: with variable lengths q, k, v and o stack every "
                      "sequence's rows in one batch of 1",
                      q.batch));
    a.batch = varlen->batch;
    a.seqlen_q = varlen->max_seqlen_q;
    a.seqlen_k = varlen->max_seqlen_k;
    a.cu_seqlens_q = varlen->cu_seqlens_q;
    a.cu_seqlens_k = varlen->cu_seqlens_k;
    a.total_q = static_cast<int>(q.seqlen);
    a.total_k = static_cast<int>(k.seqlen);
    if (a.cu_seqlens_q == nullptr || a.cu_seqlens_k == nullptr)
      fail(
          "varlen: cu_seqlens_q and cu_seqlens_k must both be set (device arrays of batch + 1 "
          "ints)");
  } else {
    a.batch = static_cast<int>(q.batch);
    a.seqlen_q = static_cast<int>(q.seqlen);
    a.seqlen_k = static_cast<int>(k.seqlen);
  }
  return a;
}

}  // namespace

attention::AttentionArgs Attention::arguments(HeadsView const& q, HeadsView const& k,
                                              HeadsView const& v, HeadsView const& o,
                                              TensorView const& lse,
                                              std::optional<VarlenLengths> const& varlen) const {
  attention::AttentionArgs const a = mapped(options_, q, k, v, o, lse, varlen);
  attention::check_attention_arguments(a);
  return a;
}

void Attention::run(HeadsView const& q, HeadsView const& k, HeadsView const& v, HeadsView const& o,
                    TensorView const& lse, cudaStream_t stream,
                    std::optional<VarlenLengths> const& varlen) const {
  attention::AttentionArgs const a = mapped(options_, q, k, v, o, lse, varlen);
  try {
    (void)device_->checked(arch_);
  } catch (std::invalid_argument const& e) {
    fail(e.what());
  }
  // Uncompiled: Auto, which picks by the keys' length as attention_forward's default does.
  attention::attention_forward(
      a, stream, {.schedule = compiled_ ? chosen_.schedule : AttentionSchedule::Auto});
}

}  // namespace warploom::ops
