// python/src/attention.cpp
//
// warploom._core.attention_forward: the attention forward API (warploom/attention.hpp) for the
// Python side, which reads torch tensors' pointers, shapes and strides (warploom.op.attention)
// and hands them over as integers. Every rule is the C++ one (check_attention_arguments and
// attention_forward's device checks), with its message: a pointer that is not device memory, a
// misaligned stride, an unsupported head dimension, a head count that is no multiple of the K/V
// heads' all come back as ValueError naming the argument.
#include <array>
#include <cstdint>

#include <nanobind/nanobind.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/string.h>

#include "warploom/attention.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace warploom::python {
namespace {

namespace at = warploom::attention;

// (batch, row, head) strides in elements, as AttentionTensor holds them.
using Strides = std::array<std::int64_t, 3>;

at::AttentionTensor tensor(std::uintptr_t data, Strides const& s) {
  return {.data = reinterpret_cast<void const*>(data),
          .batch_stride = s[0],
          .row_stride = s[1],
          .head_stride = s[2]};
}

}  // namespace

void bind_attention(nb::module_& m) {
  nb::enum_<at::ElementType>(m, "AttentionType", "Attention's input and output element type.")
      .value("f16", at::ElementType::F16)
      .value("bf16", at::ElementType::BF16);
  nb::enum_<at::AttentionSchedule>(
      m, "AttentionSchedule",
      "Attention's schedule (warploom/attention.hpp): auto, the fastest measured where built "
      "(attention_default_schedule); serial; overlap; pingpong.")
      .value("auto", at::AttentionSchedule::Auto)
      .value("serial", at::AttentionSchedule::Serial)
      .value("overlap", at::AttentionSchedule::Overlap)
      .value("pingpong", at::AttentionSchedule::Pingpong);
  m.def(
      "attention_forward",
      [](at::ElementType type, std::uintptr_t q, Strides const& q_strides, std::uintptr_t k,
         Strides const& k_strides, std::uintptr_t v, Strides const& v_strides, std::uintptr_t o,
         Strides const& o_strides, std::uintptr_t lse, int batch, int seqlen_q, int seqlen_k,
         int heads, int kv_heads, int head_dim, float scale, bool causal,
         at::AttentionSchedule schedule, std::uintptr_t stream, bool check_only) {
        at::AttentionArgs const args{.type = type,
                                     .q = tensor(q, q_strides),
                                     .k = tensor(k, k_strides),
                                     .v = tensor(v, v_strides),
                                     .o = reinterpret_cast<void*>(o),
                                     .o_strides = tensor(o, o_strides),
                                     .lse = reinterpret_cast<float*>(lse),
                                     .batch = batch,
                                     .seqlen_q = seqlen_q,
                                     .seqlen_k = seqlen_k,
                                     .heads = heads,
                                     .kv_heads = kv_heads,
                                     .head_dim = head_dim,
                                     .scale = scale,
                                     .causal = causal};
        if (check_only) {
          at::check_attention_arguments(args);
          return;
        }
        nb::gil_scoped_release released;  // a first call may load the kernel's module
        at::attention_forward(args, reinterpret_cast<cudaStream_t>(stream), {.schedule = schedule});
      },
      "type"_a, "q"_a, "q_strides"_a, "k"_a, "k_strides"_a, "v"_a, "v_strides"_a, "o"_a,
      "o_strides"_a, "lse"_a, "batch"_a, "seqlen_q"_a, "seqlen_k"_a, "heads"_a, "kv_heads"_a,
      "head_dim"_a, "scale"_a, "causal"_a, "schedule"_a, "stream"_a, "check_only"_a = false,
      "warploom::attention::attention_forward on (pointer, (batch, row, head) strides) tensors; "
      "check_only: the argument checks alone, no device touched. Use warploom.op.attention.");
  m.def("attention_schedule_runs", &at::attention_schedule_runs, "head_dim"_a, "schedule"_a,
        "Whether the attention kernel has this schedule at this head dimension at all, whatever "
        "this build prebuilt (attention_schedule_runs).");
  m.def(
      "attention_kernel_shape",
      [](int head_dim, bool causal, at::AttentionSchedule schedule) {
        at::AttentionKernelShape const k = at::attention_kernel_shape(head_dim, causal, schedule);
        nb::dict d;
        d["block_m"] = k.block_m;
        d["block_n"] = k.block_n;
        d["stages"] = k.stages;
        d["q_stages"] = k.q_stages;
        d["schedule_name"] = k.schedule_name;
        return d;
      },
      "head_dim"_a, "causal"_a, "schedule"_a,
      "The tile of the kernel that runs `schedule` at this head dimension and mask, whatever this "
      "build prebuilt: dict(block_m, block_n, stages, q_stages, schedule_name) "
      "(attention_kernel_shape).");
  m.def("attention_instance_built", &at::attention_instance_built, "type"_a, "head_dim"_a,
        "causal"_a, "schedule"_a = at::AttentionSchedule::Auto,
        "Whether this build prebuilt the attention kernel for these (attention_instance_built).");
  m.def("attention_default_schedule", &at::default_schedule, "type"_a, "head_dim"_a, "causal"_a,
        "seqlen_k"_a = 0,
        "The schedule AttentionSchedule.auto runs for these and keys up to seqlen_k long (0: not "
        "known, the long-sequence choice; default_schedule).");
}

}  // namespace warploom::python
