// tests/cpu/attention/attention_args_test.cpp
//
// attention_forward's argument checks, without a GPU: every rule has a violating call whose error
// names the argument and the rule, and the valid calls pass. The checks run before any device work,
// so check_attention_arguments (the same checks, no pointer query) is what is called, and
// attention_forward itself for a combination this build did not prebuild.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "warploom/attention.hpp"
#include "warploom/testing/invalid_argument.hpp"

namespace warploom::attention {
namespace {

using warploom::testing::invalid_argument_message;

// 16-byte aligned fake addresses: the checks never dereference them.
void* fake(std::uintptr_t i) {
  return reinterpret_cast<void*>(i << 32);
}

AttentionArgs valid() {
  AttentionArgs a;
  a.q.data = fake(1);
  a.k.data = fake(2);
  a.v.data = fake(3);
  a.o = fake(4);
  a.lse = static_cast<float*>(fake(5));
  a.batch = 2;
  a.seqlen_q = 77;
  a.seqlen_k = 1000;
  a.heads = 8;
  a.kv_heads = 2;
  a.head_dim = 128;
  return a;
}

// The message of the refusal of `a` ("(no exception of that type)" when it passes).
std::string refusal(AttentionArgs const& a) {
  return invalid_argument_message([&] { check_attention_arguments(a); });
}

void expect_refused(AttentionArgs const& a, std::string const& part) {
  std::string const m = refusal(a);
  EXPECT_NE(m.find(part), std::string::npos)
      << "message: " << m << "\nexpected to contain: " << part;
  EXPECT_EQ(m.rfind("attention_forward: ", 0), 0u) << m;
}

TEST(AttentionArgs, ValidCallsPass) {
  EXPECT_NO_THROW(check_attention_arguments(valid()));
  for (int d : {64, 128, 256}) {
    AttentionArgs a = valid();
    a.head_dim = d;
    a.kv_heads = 0;  // multi-head
    a.causal = true;
    EXPECT_NO_THROW(check_attention_arguments(a)) << d;
  }
  AttentionArgs mqa = valid();
  mqa.kv_heads = 1;
  EXPECT_NO_THROW(check_attention_arguments(mqa));
  AttentionArgs strided = valid();
  strided.q.row_stride = 8 * 128 + 8;  // padded rows
  strided.o_strides.row_stride = 3 * 8 * 128;
  EXPECT_NO_THROW(check_attention_arguments(strided));
  AttentionArgs varlen = valid();
  varlen.cu_seqlens_q = static_cast<int const*>(fake(6));
  varlen.cu_seqlens_k = static_cast<int const*>(fake(7));
  varlen.total_q = 300;
  varlen.total_k = 3000;
  varlen.q.batch_stride = 3;  // unused with variable lengths
  EXPECT_NO_THROW(check_attention_arguments(varlen));
}

TEST(AttentionArgs, NullAndMisalignedPointers) {
  AttentionArgs a = valid();
  a.q.data = nullptr;
  expect_refused(a, "q is null");
  a = valid();
  a.o = nullptr;
  expect_refused(a, "o is null");
  a = valid();
  a.lse = nullptr;
  expect_refused(a, "lse is null");
  a = valid();
  a.k.data = static_cast<char const*>(fake(2)) + 8;
  expect_refused(a, "must be 16-byte aligned (TMA reads it)");
  a = valid();
  a.lse = reinterpret_cast<float*>(static_cast<char*>(fake(5)) + 2);
  expect_refused(a, "lse must be 4-byte aligned");
  a = valid();
  a.cu_seqlens_q = static_cast<int const*>(fake(6));
  expect_refused(a, "cu_seqlens_k is null but cu_seqlens_q is not");
}

TEST(AttentionArgs, TypeAndHeadDim) {
  AttentionArgs a = valid();
  a.type = static_cast<ElementType>(7);
  expect_refused(a, "type = ElementType(7) is out of range");
  a = valid();
  a.head_dim = 96;
  expect_refused(a, "head_dim = 96 is not supported: the kernel runs 64, 128 and 256");
  a.head_dim = 512;
  expect_refused(a, "head_dim = 512 is not supported");
}

TEST(AttentionArgs, ExtentsAndHeads) {
  AttentionArgs a = valid();
  a.seqlen_q = 0;
  expect_refused(a, "seqlen_q = 0 must be at least 1");
  a = valid();
  a.seqlen_k = -5;
  expect_refused(a, "seqlen_k = -5 must be at least 1");
  a = valid();
  a.batch = 0;
  expect_refused(a, "batch = 0 must be at least 1");
  a = valid();
  a.seqlen_k = kMaxExtent + 1;
  expect_refused(a, "must be at most 2147482624");
  a = valid();
  a.heads = 6;
  a.kv_heads = 4;
  expect_refused(a, "heads = 6 must be a multiple of kv_heads = 4");
  a = valid();
  a.kv_heads = -1;
  expect_refused(a, "kv_heads = -1 must be at least 1");
  a = valid();
  a.batch = 1 << 20;
  a.heads = 1 << 10;
  a.kv_heads = 1;
  a.seqlen_q = 1 << 10;
  expect_refused(a, "tiles must be at most");
  a = valid();
  a.cu_seqlens_q = static_cast<int const*>(fake(6));
  a.cu_seqlens_k = static_cast<int const*>(fake(7));
  expect_refused(a, "total_q = 0 must be at least 1");
}

TEST(AttentionArgs, StridesTmaCanHold) {
  AttentionArgs a = valid();
  a.q.row_stride = 8 * 128 + 4;
  expect_refused(a, "q.row_stride = 1028 elements (2056 bytes) must be a multiple of 16 bytes");
  a = valid();
  a.v.head_stride = 100;
  expect_refused(a, "v.head_stride = 100 elements");
  a = valid();
  a.k.batch_stride = std::int64_t{1} << 40;
  expect_refused(a, "must be below 2^40 bytes");
  a = valid();
  a.o_strides.row_stride = -8;
  expect_refused(a, "o.row_stride = -8 elements must be positive");
  a = valid();
  a.o_strides.head_stride = 64;
  expect_refused(a, "o.head_stride = 64 must be at least head_dim = 128");
}

TEST(AttentionArgs, Scale) {
  AttentionArgs a = valid();
  a.scale = -1.0f;
  expect_refused(a, "scale = -1.000000 must be finite and not negative");
  a.scale = std::nanf("");
  expect_refused(a, "must be finite and not negative");
  a.scale = INFINITY;
  expect_refused(a, "must be finite and not negative");
}

// A combination this build did not compile is refused by name, schedule included, before anything
// touches the device (fp16 D = 64 is not in the minimal set; with every instance built there is
// nothing to refuse).
TEST(AttentionArgs, UnbuiltInstanceRefusedByName) {
  if (attention_instance_built(ElementType::F16, 64, false)) GTEST_SKIP() << "every instance built";
  AttentionArgs a = valid();
  a.type = ElementType::F16;
  a.head_dim = 64;
  std::string const m = invalid_argument_message([&] { attention_forward(a); });
  EXPECT_NE(m.find("no kernel for type = fp16, head_dim = 64, causal = false, schedule serial "
                   "(auto) in this build"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("WARPLOOM_ATTENTION_INSTANCES=all"), std::string::npos) << m;
  std::string const pingpong = invalid_argument_message(
      [&] { attention_forward(a, nullptr, {.schedule = AttentionSchedule::Pingpong}); });
  EXPECT_NE(pingpong.find("causal = false, schedule pingpong in this build"), std::string::npos)
      << pingpong;
}

// The ping-pong schedule has no D = 256 kernel in any build (its warpgroups' registers do not
// hold it): asked for, it is refused for what it is, not as an instance this build left out.
TEST(AttentionArgs, PingpongAtHeadDim256RefusedForWhatItIs) {
  AttentionArgs a = valid();
  a.head_dim = 256;
  std::string const m = invalid_argument_message(
      [&] { attention_forward(a, nullptr, {.schedule = AttentionSchedule::Pingpong}); });
  EXPECT_EQ(m.rfind("attention_forward: tuning.schedule = Pingpong runs head_dim 64 and 128, not "
                    "256",
                    0),
            0u)
      << m;
  EXPECT_NE(m.find("Overlap (the default) or Serial"), std::string::npos) << m;
  for (ElementType t : {ElementType::F16, ElementType::BF16})
    for (bool causal : {false, true})
      EXPECT_FALSE(attention_instance_built(t, 256, causal, AttentionSchedule::Pingpong));
}

// Which schedules the kernel has per head dimension, whatever the build prebuilt: every one at 64
// and 128, all but the ping-pong at 256, none at a head dimension it does not run; and a build
// never holds a kernel it says does not exist.
TEST(AttentionArgs, ScheduleRunsPerHeadDimension) {
  using enum AttentionSchedule;
  for (AttentionSchedule s : {Auto, Serial, Overlap, Pingpong}) {
    SCOPED_TRACE(std::string(to_string(s)));
    EXPECT_TRUE(attention_schedule_runs(64, s));
    EXPECT_TRUE(attention_schedule_runs(128, s));
    EXPECT_EQ(attention_schedule_runs(256, s), s != Pingpong);
    for (int d : {0, 32, 96, 192, 512}) EXPECT_FALSE(attention_schedule_runs(d, s)) << d;
    for (ElementType t : {ElementType::F16, ElementType::BF16})
      for (bool causal : {false, true})
        for (int d : {64, 128, 256}) {
          if (attention_instance_built(t, d, causal, s)) {
            EXPECT_TRUE(attention_schedule_runs(d, s)) << to_string(t) << " D=" << d;
          }
        }
  }
  std::string const m = invalid_argument_message(
      [] { attention_schedule_runs(128, static_cast<AttentionSchedule>(7)); });
  EXPECT_NE(m.find("attention_schedule_runs: schedule"), std::string::npos) << m;
}

// The kernel shape of every schedule a head dimension has, whatever the build prebuilt: the
// overlap schedule's tile at each head dimension and mask (kernels/attention/sm90/shape.hpp,
// DefaultShape), the ping-pong's 128 rows, and refusals by name.
TEST(AttentionArgs, KernelShapePerHeadDimensionMaskAndSchedule) {
  using enum AttentionSchedule;
  struct Case {
    int head_dim;
    bool causal;
    AttentionSchedule schedule;
    int block_m, block_n, stages, q_stages;
    char const* name;
  };
  for (Case const c :
       {Case{64, false, Overlap, 192, 128, 2, 2, "sm90_ts_attention_overlap_d64"},
        Case{64, true, Pingpong, 128, 128, 2, 2, "sm90_ts_attention_pingpong_d64"},
        Case{128, false, Overlap, 128, 160, 2, 2, "sm90_ts_attention_overlap_d128_n160"},
        Case{128, true, Overlap, 128, 128, 2, 2, "sm90_ts_attention_overlap_d128"},
        Case{128, false, Serial, 128, 160, 2, 2, "sm90_ts_attention_d128_n160"},
        Case{128, false, Pingpong, 128, 128, 2, 2, "sm90_ts_attention_pingpong_d128"},
        Case{256, true, Overlap, 128, 80, 2, 1, "sm90_ts_attention_overlap_d256"}}) {
    SCOPED_TRACE(c.name);
    AttentionKernelShape const k = attention_kernel_shape(c.head_dim, c.causal, c.schedule);
    EXPECT_EQ(k.block_m, c.block_m);
    EXPECT_EQ(k.block_n, c.block_n);
    EXPECT_EQ(k.stages, c.stages);
    EXPECT_EQ(k.q_stages, c.q_stages);
    EXPECT_EQ(k.schedule_name, c.name);
  }
  EXPECT_NE(invalid_argument_message([] {
              attention_kernel_shape(128, false, Auto);
            }).find("attention_kernel_shape: schedule = auto names no kernel"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([] {
              attention_kernel_shape(256, false, Pingpong);
            }).find("the pingpong schedule does not run head_dim 256"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([] {
              attention_kernel_shape(96, false, Overlap);
            }).find("attention_kernel_shape: head_dim = 96 is not supported"),
            std::string::npos);
}

// AttentionSchedule::Auto runs the schedule the sweep measured fastest where this build has it:
// the overlap one (the ping-pong for short keys at D = 128 without a mask); the serial one where
// the build has not.
TEST(AttentionArgs, AutoResolvesToTheMeasuredDefault) {
  for (ElementType t : {ElementType::F16, ElementType::BF16})
    for (bool causal : {false, true}) {
      SCOPED_TRACE(std::string(to_string(t)) + (causal ? " causal" : ""));
      for (int d : {64, 128, 256}) {
        AttentionSchedule const fastest = AttentionSchedule::Overlap;
        EXPECT_EQ(default_schedule(t, d, causal), attention_instance_built(t, d, causal, fastest)
                                                      ? fastest
                                                      : AttentionSchedule::Serial)
            << d;
      }
      // Auto is built exactly when what it resolves to is.
      for (int d : {64, 128, 256})
        EXPECT_EQ(attention_instance_built(t, d, causal),
                  attention_instance_built(t, d, causal, default_schedule(t, d, causal)))
            << d;
    }
  // The minimal instance set (CI's) has bf16 D = 128 in every schedule: there Auto is the overlap.
  EXPECT_TRUE(attention_instance_built(ElementType::BF16, 128, false, AttentionSchedule::Overlap));
  EXPECT_EQ(default_schedule(ElementType::BF16, 128, false), AttentionSchedule::Overlap);
  EXPECT_EQ(default_schedule(ElementType::BF16, 128, true), AttentionSchedule::Overlap);
  // ... except for keys of up to 1024 without the mask, where the ping-pong was measured faster;
  // an unknown length (0) takes the long-sequence choice.
  EXPECT_TRUE(attention_instance_built(ElementType::BF16, 128, false, AttentionSchedule::Pingpong));
  for (int seqlen_k : {1, 512, 1000, 1024})
    EXPECT_EQ(default_schedule(ElementType::BF16, 128, false, seqlen_k),
              AttentionSchedule::Pingpong)
        << seqlen_k;
  for (int seqlen_k : {0, 1025, 4096})
    EXPECT_EQ(default_schedule(ElementType::BF16, 128, false, seqlen_k), AttentionSchedule::Overlap)
        << seqlen_k;
  EXPECT_EQ(default_schedule(ElementType::BF16, 128, true, 512), AttentionSchedule::Overlap);
  for (ElementType t : {ElementType::F16, ElementType::BF16})
    for (int d : {64, 256})
      EXPECT_NE(default_schedule(t, d, false, 512), AttentionSchedule::Pingpong) << d;
  EXPECT_EQ(AttentionTuning{}.schedule, AttentionSchedule::Auto);
  EXPECT_EQ(to_string(AttentionSchedule::Auto), "auto");
  EXPECT_EQ(to_string(AttentionSchedule::Serial), "serial");
  EXPECT_EQ(to_string(AttentionSchedule::Overlap), "overlap");
  EXPECT_EQ(to_string(AttentionSchedule::Pingpong), "pingpong");
}

TEST(AttentionArgs, ScheduleOutOfRange) {
  AttentionSchedule const bad = static_cast<AttentionSchedule>(7);
  std::string const m =
      invalid_argument_message([&] { attention_forward(valid(), nullptr, {.schedule = bad}); });
  EXPECT_EQ(m,
            "attention_forward: tuning.schedule = AttentionSchedule(7) is out of range: the values "
            "are Auto (0), Serial (1), Overlap (2) and Pingpong (3)");
  std::string const built = invalid_argument_message([] {
    (void)attention_instance_built(ElementType::BF16, 128, false,
                                   static_cast<AttentionSchedule>(-1));
  });
  EXPECT_EQ(
      built.rfind("attention_instance_built: schedule = AttentionSchedule(-1) is out of range", 0),
      0u)
      << built;
}

TEST(AttentionArgs, FlopsCountUnmaskedPairs) {
  // Non-causal: every pair.
  EXPECT_DOUBLE_EQ(attention_flops(2, 3, 5, 7, 64, false), 4.0 * 5 * 7 * 64 * 3 * 2);
  // Causal, S_q == S_k = n: n (n + 1) / 2 pairs.
  EXPECT_DOUBLE_EQ(attention_flops(1, 1, 4, 4, 64, true), 4.0 * 10 * 64);
  // Causal, S_q = 2 < S_k = 5: row 0 sees 4 keys, row 1 all 5.
  EXPECT_DOUBLE_EQ(attention_flops(1, 1, 2, 5, 128, true), 4.0 * 9 * 128);
  // Causal, S_q = 5 > S_k = 2: rows 0-2 see none, row 3 one, row 4 two.
  EXPECT_DOUBLE_EQ(attention_flops(1, 1, 5, 2, 128, true), 4.0 * 3 * 128);
}

}  // namespace
}  // namespace warploom::attention
