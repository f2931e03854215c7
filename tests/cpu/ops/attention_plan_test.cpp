// tests/cpu/ops/attention_plan_test.cpp
//
// ops::Attention (warploom/ops/attention.hpp) without a GPU: plans made for sm_90a, the schedules
// a plan lists and compiles, views mapped onto attention_forward's arguments (torch's (B, S, H, D)
// and (B, H, S, D) layouts, GQA, variable lengths), and every refusal naming the argument. The
// build's minimal instance set (bf16, head_dim 128, both masks, every schedule: CI's) is assumed
// where a plan must be made; other combinations are asked about, not assumed.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "stand_ins.hpp"
#include "warploom/ops/attention.hpp"
#include "warploom/testing/invalid_argument.hpp"

namespace warploom::ops {
namespace {

using test_support::fake;
using testing::invalid_argument_message;

constexpr ScalarType kBf16 = ScalarType::BF16;

Attention plan(bool causal = false) {
  return Attention({.element = kBf16, .head_dim = 128, .causal = causal, .arch = Arch::Sm90});
}

// B = 2, S_q = 77, S_k = 300, H = 8, H_kv = 2, D = 128, packed (B, S, H, D).
struct Views {
  HeadsView q = bshd(fake(1), kBf16, 2, 77, 8, 128);
  HeadsView k = bshd(fake(2), kBf16, 2, 300, 2, 128);
  HeadsView v = bshd(fake(3), kBf16, 2, 300, 2, 128);
  HeadsView o = bshd(fake(4), kBf16, 2, 77, 8, 128);
  TensorView lse = row_major(fake(5), ScalarType::F32, 8, 77, 2);
};

std::string refusal(Attention const& p, Views const& w) {
  return invalid_argument_message([&] { (void)p.arguments(w.q, w.k, w.v, w.o, w.lse); });
}

TEST(AttentionPlan, ListsTheSchedulesThisBuildPrebuilt) {
  for (bool causal : {false, true}) {
    Attention const p = plan(causal);
    std::vector<AttentionTileDescription> const tds = p.tile_descriptions();
    ASSERT_FALSE(tds.empty());
    // The default first: attention_forward's AttentionSchedule::Auto, the overlap schedule at
    // head_dim 128; the plan runs it until compile() picks another.
    EXPECT_EQ(tds.front().schedule,
              attention::default_schedule(attention::ElementType::BF16, 128, causal));
    EXPECT_EQ(tds.front().schedule, AttentionSchedule::Overlap);
    EXPECT_EQ(p.tile_description(), tds.front());
    // The shapes of kernels/attention/sm90/shape.hpp (DefaultShape): without the causal mask,
    // 160-key blocks for the serial and overlap schedules; the ping-pong keeps 128.
    int const wide = causal ? 128 : 160;
    std::string const n = causal ? "" : "_n160";
    for (AttentionTileDescription const& td : tds) {
      EXPECT_EQ(td.block_m, 128);
      EXPECT_EQ(td.block_n, td.schedule == AttentionSchedule::Pingpong ? 128 : wide);
      EXPECT_NE(td.schedule, AttentionSchedule::Auto);
      EXPECT_TRUE(attention::attention_instance_built(attention::ElementType::BF16, 128, causal,
                                                      td.schedule));
    }
    EXPECT_EQ(to_string(tds.front()),
              fmt::format("overlap schedule, 128 x {} blocks, 2 K/V stages, 2 Q stages "
                          "(sm90_ts_attention_overlap_d128{})",
                          wide, n));
    // Every build prebuilds the three schedules of each instance it builds (CMakeLists.txt); after
    // the default, the others in their order.
    ASSERT_EQ(tds.size(), 3u);
    EXPECT_EQ(tds[1].schedule, AttentionSchedule::Serial);
    EXPECT_EQ(tds[1].schedule_name, "sm90_ts_attention_d128" + n);
    EXPECT_EQ(to_string(tds[2]),
              "pingpong schedule, 128 x 128 blocks, 2 K/V stages, 2 Q stages "
              "(sm90_ts_attention_pingpong_d128)");
  }
  EXPECT_EQ(plan(true).describe(),
            "Attention bf16, head_dim 128, causal, scale 1/sqrt(128), sm_90a");
  EXPECT_EQ(to_string(AttentionSchedule::Pingpong), "pingpong");  // the enum is attention's
}

TEST(AttentionPlan, CompileTakesAListedScheduleAndRefusesAnEditedOne) {
  Attention p = plan();
  for (AttentionTileDescription const& td : p.tile_descriptions()) {
    p.compile(td);
    EXPECT_EQ(p.tile_description(), td);
  }
  AttentionTileDescription edited = p.tile_descriptions().front();
  edited.block_n = 96;
  std::string const m = invalid_argument_message([&] { p.compile(edited); });
  EXPECT_CONTAINS(m, "is not a kernel this plan runs");
  // The listed ones, to choose from (no mask: 160-key blocks but for the ping-pong's).
  EXPECT_CONTAINS(m, "serial schedule, 128 x 160 blocks");
  EXPECT_CONTAINS(m, "pingpong schedule, 128 x 128 blocks");
}

TEST(AttentionPlan, ConstructionRefusesWhatNoKernelRuns) {
  EXPECT_THROW(Attention({.element = ScalarType::F32, .arch = Arch::Sm90}), DtypeError);
  EXPECT_CONTAINS(invalid_argument_message(
                      [] { Attention({.element = ScalarType::E4M3, .arch = Arch::Sm90}); }),
                  "fp16 or bf16");
  EXPECT_CONTAINS(invalid_argument_message([] { Attention({.head_dim = 96, .arch = Arch::Sm90}); }),
                  "head_dim = 96");
  EXPECT_CONTAINS(invalid_argument_message([] { Attention({.scale = -1.0f, .arch = Arch::Sm90}); }),
                  "scale = -1");
  EXPECT_CONTAINS(
      invalid_argument_message([] { Attention({.scale = std::nanf(""), .arch = Arch::Sm90}); }),
      "finite");
  EXPECT_CONTAINS(invalid_argument_message([] { Attention({.arch = Arch::Sm80}); }), "sm_80");
  // A combination this build did not prebuild is refused by name (CI builds bf16 D = 128 only).
  for (ScalarType t : {ScalarType::F16, kBf16})
    for (int d : {64, 256}) {
      bool const any = attention::attention_instance_built(
          t == kBf16 ? attention::ElementType::BF16 : attention::ElementType::F16, d, false);
      std::string const m = invalid_argument_message(
          [&] { Attention({.element = t, .head_dim = d, .arch = Arch::Sm90}); });
      if (!any) {
        EXPECT_CONTAINS(m, "WARPLOOM_ATTENTION_INSTANCES=all");
      }
    }
}

TEST(AttentionPlan, ViewsBecomeTheKernelsArguments) {
  Views const w;
  attention::AttentionArgs const a = plan(true).arguments(w.q, w.k, w.v, w.o, w.lse);
  EXPECT_EQ(a.batch, 2);
  EXPECT_EQ(a.seqlen_q, 77);
  EXPECT_EQ(a.seqlen_k, 300);
  EXPECT_EQ(a.heads, 8);
  EXPECT_EQ(a.kv_heads, 2);
  EXPECT_EQ(a.head_dim, 128);
  EXPECT_TRUE(a.causal);
  EXPECT_EQ(a.q.data, w.q.data);
  EXPECT_EQ(a.o, w.o.data);
  EXPECT_EQ(a.o_strides.row_stride, 8 * 128);
  EXPECT_EQ(a.k.row_stride, 2 * 128);
  EXPECT_EQ(a.k.batch_stride, 300 * 2 * 128);
  EXPECT_EQ(a.lse, w.lse.data);
}

TEST(AttentionPlan, ReadsTorchsSdpaLayoutInPlace) {
  Views w;
  w.q = bhsd(fake(1), kBf16, 2, 8, 77, 128);
  w.k = bhsd(fake(2), kBf16, 2, 2, 300, 128);
  w.v = bhsd(fake(3), kBf16, 2, 2, 300, 128);
  attention::AttentionArgs const a = plan().arguments(w.q, w.k, w.v, w.o, w.lse);
  EXPECT_EQ(a.q.row_stride, 128);
  EXPECT_EQ(a.q.head_stride, 77 * 128);
  EXPECT_EQ(a.q.batch_stride, 8 * 77 * 128);
  EXPECT_EQ(a.k.head_stride, 300 * 128);
  EXPECT_EQ(to_string(w.q), "bf16 (B 2, S 77, H 8, D 128) strides (78848, 128, 9856, 1)");
}

TEST(AttentionPlan, VariableLengthsStackTheSequences) {
  Views w;
  w.q = bshd(fake(1), kBf16, 1, 500, 8, 128);
  w.o = bshd(fake(4), kBf16, 1, 500, 8, 128);
  w.k = bshd(fake(2), kBf16, 1, 900, 2, 128);
  w.v = bshd(fake(3), kBf16, 1, 900, 2, 128);
  w.lse = row_major(fake(5), ScalarType::F32, 8, 500);
  VarlenLengths const lengths{.cu_seqlens_q = static_cast<int const*>(fake(6)),
                              .cu_seqlens_k = static_cast<int const*>(fake(7)),
                              .batch = 4,
                              .max_seqlen_q = 300,
                              .max_seqlen_k = 400};
  attention::AttentionArgs const a = plan().arguments(w.q, w.k, w.v, w.o, w.lse, lengths);
  EXPECT_EQ(a.batch, 4);
  EXPECT_EQ(a.total_q, 500);
  EXPECT_EQ(a.total_k, 900);
  EXPECT_EQ(a.seqlen_q, 300);
  EXPECT_EQ(a.cu_seqlens_k, lengths.cu_seqlens_k);
  VarlenLengths half = lengths;
  half.cu_seqlens_k = nullptr;
  EXPECT_CONTAINS(
      invalid_argument_message([&] { (void)plan().arguments(w.q, w.k, w.v, w.o, w.lse, half); }),
      "cu_seqlens_q and cu_seqlens_k must both be set");
  Views batched;  // batch 2: not stacked
  EXPECT_CONTAINS(invalid_argument_message([&] {
                    (void)plan().arguments(batched.q, batched.k, batched.v, batched.o, batched.lse,
                                           lengths);
                  }),
                  "q has batch 2");
}

TEST(AttentionPlan, EveryRefusalNamesTheArgument) {
  Attention const p = plan();
  {
    Views w;
    w.k.dtype = ScalarType::F16;
    EXPECT_THROW((void)p.arguments(w.q, w.k, w.v, w.o, w.lse), DtypeError);
    EXPECT_CONTAINS(refusal(p, w), "k is fp16, but the plan was made for bf16");
  }
  {
    Views w;
    w.v.head_dim = 64;
    EXPECT_CONTAINS(refusal(p, w), "v has head_dim 64, but the plan was made for head_dim 128");
  }
  {
    Views w;
    w.q.dim_stride = 2;
    EXPECT_CONTAINS(refusal(p, w), "q's head_dim stride is 2");
  }
  {
    Views w;
    w.o.seqlen = 78;
    EXPECT_CONTAINS(refusal(p, w), "o has seqlen 78, but q has 77");
  }
  {
    Views w;
    w.v.seqlen = 299;
    EXPECT_CONTAINS(refusal(p, w), "v has seqlen 299, but k has 300");
  }
  {
    Views w;
    w.k.batch = 1;
    EXPECT_CONTAINS(refusal(p, w), "k has batch 1, but q has 2");
  }
  {
    Views w;
    w.q.heads = 0;
    EXPECT_CONTAINS(refusal(p, w), "every extent must be in [1,");
  }
  {
    Views w;
    w.lse.dtype = ScalarType::BF16;
    EXPECT_THROW((void)p.arguments(w.q, w.k, w.v, w.o, w.lse), DtypeError);
  }
  {
    Views w;
    w.lse = row_major(fake(5), ScalarType::F32, 77, 8, 2);  // (B, S, H): transposed
    EXPECT_CONTAINS(refusal(p, w), "lse is fp32 2 x 77 x 8");
  }
  {
    Views w;
    w.k.heads = w.v.heads = 3;  // 8 query heads: not a multiple
    EXPECT_CONTAINS(refusal(p, w), "must be a multiple of kv_heads = 3");
  }
  {
    Views w;
    w.q.data = nullptr;  // attention_forward's own rules, with its message
    EXPECT_CONTAINS(refusal(p, w), "q");
    EXPECT_CONTAINS(refusal(p, w), "null");
  }
  {
    Views w;
    w.q.seq_stride = 8 * 128 + 4;  // not a 16-byte multiple
    EXPECT_CONTAINS(refusal(p, w), "q.row_stride");
  }
}

}  // namespace
}  // namespace warploom::ops
