// tests/cpu/ops/tile_description_test.cpp
//
// Tile descriptions (warploom/ops/tile_description.hpp) as plans list, print, validate and compile
// them without a GPU: the list is what the build verified (every verified sm90 GEMM schedule is
// listed), each listed description validates, edited ones are refused with the reason and the
// numbers, and compile() obtains prebuilt kernels without compiling.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "sm90_instances.hpp"
#include "stand_ins.hpp"
#include "warploom/ops/gemm.hpp"
#include "warploom/testing/invalid_argument.hpp"
#include "warploom/ts/schedule_unit.hpp"

namespace warploom::ops {
namespace {

using test_support::fake;

namespace sm90 = gemm::sm90;
using gemm::ConsumerDesign;
using testing::invalid_argument_message;

Gemm bf16_plan(MatrixLayout a, MatrixLayout b, MatrixLayout d) {
  return Gemm({.element = ScalarType::BF16,
               .layout_a = a,
               .layout_b = b,
               .layout_d = d,
               .arch = Arch::Sm90});
}

Gemm bf16_tn() {
  return bf16_plan(MatrixLayout::RowMajor, MatrixLayout::ColMajor, MatrixLayout::RowMajor);
}

TEST(TileDescription, PrintsReadably) {
  TileDescription td;
  td.design = ConsumerDesign::Cooperative;
  td.tile_m = 128;
  td.tile_n = 256;
  td.tile_k = 64;
  td.stages = 4;
  td.staging_buffers = 2;
  EXPECT_EQ(to_string(td),
            "cooperative 128x256x64, 4 stages, 2 staging buffers, cluster 1x1, raster panel 8");
  td.design = ConsumerDesign::PingPong;
  td.staging_buffers = 1;
  td.cluster_m = 2;
  td.max_ctas = 66;
  td.scheduler = TileScheduler::StreamK;
  EXPECT_EQ(to_string(td),
            "pingpong 128x256x64, 4 stages, 1 staging buffer, cluster 2x1, raster panel 8, at "
            "most 66 CTAs, stream-k scheduler");
  TileDescription simt;
  simt.opclass = OperatorClass::Simt;
  simt.design = ConsumerDesign::Auto;
  simt.tile_m = simt.tile_n = 128;
  simt.tile_k = 32;
  simt.stages = 3;
  EXPECT_EQ(to_string(simt), "simt 128x128x32, 3 stages, raster panel 8");
}

TEST(TileDescription, TheListLeadsWithTheDefaultAndCoversEveryVerifiedSchedule) {
  Gemm const plan = bf16_tn();
  std::vector<TileDescription> const all = plan.tile_descriptions();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(to_string(all.front()),
            "cooperative 128x256x64, 4 stages, 2 staging buffers, cluster 1x1, raster panel 8");
  // Every sm90 GEMM schedule this build verified runs for some listed description (the list is
  // derived from the registry, and its candidates must not miss a schedule a unit adds), with
  // this plain plan's epilogue or with a second pass (ping-pong's finish-task schedules, "_f"), or
  // in a GroupedGemm with the dynamic tile scheduler (the cooperative design's "_dynamic").
  std::set<std::string> listed;
  for (TileDescription const& td : all) {
    sm90::KernelConfig c{
        .design = td.design,
        .stages = td.stages,
        .staging_buffers = td.staging_buffers,
        .cluster_m = td.cluster_m,
        .cluster_n = td.cluster_n,
        .tile_n = td.tile_n == sm90::design_shape(td.design).tile_n ? 0 : td.tile_n};
    listed.insert(sm90::schedule_of(c));
    sm90::KernelConfig dynamic = c;
    dynamic.grouped = dynamic.dynamic_tiles = true;
    if (sm90::schedule_verified(dynamic)) listed.insert(sm90::schedule_of(dynamic));
    c.epilogue.activation = gemm::Activation::GELU;
    listed.insert(sm90::schedule_of(c));
  }
  for (ts::RegisteredSchedule const& s : ts::registered_schedules()) {
    if (s.name.rfind("sm90_ts_gemm", 0) == 0) {
      EXPECT_EQ(listed.count(std::string(s.name)), 1u) << s.name << " is not listed";
    }
  }
  bool pingpong_default = false;
  for (TileDescription const& td : all) {
    SCOPED_TRACE(to_string(td));
    EXPECT_EQ(td.opclass, OperatorClass::TensorOp);
    EXPECT_EQ(td.tile_k, 64);  // one 128-byte row of bf16
    if (td.tile_m != 128) {    // split-K on D^T: a kernel tile turned (tested below)
      EXPECT_EQ(td.scheduler, TileScheduler::SplitK);
      EXPECT_TRUE(td.tile_m == 256 || td.tile_m == 64);
      EXPECT_EQ(td.tile_n, 128);
    } else if (td.design == ConsumerDesign::Cooperative) {
      EXPECT_TRUE(td.tile_n == 256 || td.tile_n == 128 || td.tile_n == 64);
    } else {
      EXPECT_EQ(td.tile_n, 128);
    }
    EXPECT_NO_THROW(plan.source(td));  // every listed description validates
    pingpong_default |= to_string(td) ==
                        "pingpong 128x128x64, 6 stages, 1 staging buffer, cluster 1x1, raster "
                        "panel 8";
  }
  EXPECT_TRUE(pingpong_default);
}

// The cooperative design's narrow tiles are listed, each width led by gemm()'s default for it
// (the stages that fit: 6 for 128, 8 for 64), and compile; a width no design runs is refused
// naming the widths there are.
TEST(TileDescription, NarrowTilesAreListedAndOthersRefusedNamingTheWidths) {
  Gemm plan = bf16_tn();
  std::vector<TileDescription> const all = plan.tile_descriptions();
  auto const listed = [&](std::string const& text) {
    return std::any_of(all.begin(), all.end(),
                       [&](TileDescription const& td) { return to_string(td) == text; });
  };
  EXPECT_TRUE(
      listed("cooperative 128x128x64, 6 stages, 2 staging buffers, cluster 1x1, raster panel 8"));
  EXPECT_TRUE(
      listed("cooperative 128x64x64, 8 stages, 2 staging buffers, cluster 2x1, raster panel 8"));
  EXPECT_TRUE(
      listed("cooperative 128x64x64, 8 stages, 2 staging buffers, cluster 1x1, raster "
             "panel 8, split-k scheduler, slices per problem"));
  TileDescription td = all.front();
  td.tile_n = 96;
  std::string const message = invalid_argument_message([&] { plan.compile(td); });
  EXPECT_NE(message.find("tile 128x96x64: the cooperative design computes 128x256x64 tiles for "
                         "this plan, or their tile_n narrowed to 128 or 64 (pick one of "
                         "tile_descriptions())"),
            std::string::npos)
      << message;
  // A column-major D: the kernel's width is D's rows.
  Gemm const col_d(
      {.element = ScalarType::F16, .layout = MatrixLayout::ColMajor, .arch = Arch::Sm90});
  bool narrow_rows = false;
  for (TileDescription const& t : col_d.tile_descriptions())
    narrow_rows |= t.tile_m == 64 && t.tile_n == 128;
  EXPECT_TRUE(narrow_rows);
}

TEST(TileDescription, TilesAreInDsTermsAndKIsPerType) {
  // A column-major D runs the kernel on D^T: the cooperative 128 x 256 kernel tile is 256 x 128
  // of D.
  Gemm const col_d(
      {.element = ScalarType::F16, .layout = MatrixLayout::ColMajor, .arch = Arch::Sm90});
  TileDescription const td = col_d.tile_descriptions().front();
  EXPECT_EQ(td.tile_m, 256);
  EXPECT_EQ(td.tile_n, 128);
  Gemm const fp8({.element = ScalarType::E4M3,
                  .element_d = ScalarType::BF16,
                  .layout_a = MatrixLayout::RowMajor,
                  .layout_b = MatrixLayout::ColMajor,
                  .layout_d = MatrixLayout::RowMajor,
                  .arch = Arch::Sm90});
  EXPECT_EQ(fp8.tile_descriptions().front().tile_k, 128);  // one 128-byte row of fp8
}

TEST(TileDescription, SimtPlansListTheSimtShape) {
  Gemm const f32(ScalarType::F32, MatrixLayout::RowMajor, Arch::Sm90);
  std::vector<TileDescription> const f32_all = f32.tile_descriptions();
  ASSERT_EQ(f32_all.size(), 1u);
  EXPECT_EQ(to_string(f32_all[0]), "simt 128x128x32, 3 stages, raster panel 8");
  Gemm const f64(ScalarType::F64, MatrixLayout::RowMajor, Arch::Sm90);
  EXPECT_EQ(to_string(f64.tile_descriptions().at(0)), "simt 128x64x16, 4 stages, raster panel 8");
  EXPECT_TRUE(f32.is_prebuilt(f32_all[0]));
  EXPECT_CONTAINS(f32.source(f32_all[0]), "prebuilt");
}

TEST(TileDescription, StagesThatDoNotFitAreRefusedWithTheNumbers) {
  Gemm plan = bf16_tn();
  TileDescription td = plan.tile_descriptions().front();
  td.stages = 8;  // 8 x 48 KiB of A/B stages alone exceed 227 KiB (the seed's example)
  std::string const e = invalid_argument_message([&] { plan.compile(td); });
  EXPECT_CONTAINS(e,
                  "tile_description.stages = 8 and staging_buffers = 2 do not fit shared "
                  "memory with the cooperative design: 425984 bytes of stages and staging "
                  "needed, 232448 available per block");
  EXPECT_CONTAINS(e, "(tile description: cooperative 128x256x64, 8 stages");
  EXPECT_FALSE(plan.tile_description().has_value());  // nothing compiled
}

TEST(TileDescription, UnverifiedSchedulesAreRefusedNamingThoseThatExist) {
  Gemm plan = bf16_tn();
  TileDescription td = plan.tile_descriptions().front();
  td.stages = 3;
  td.cluster_m = 2;  // fits, but no unit verified a 3-stage schedule in 2-CTA clusters
  std::string const e = invalid_argument_message([&] { plan.compile(td); });
  EXPECT_CONTAINS(e, "sm90_ts_gemm_s3_c2");
  EXPECT_CONTAINS(e, "has not verified");
  EXPECT_CONTAINS(e, "sm90_ts_gemm_c2");
}

TEST(TileDescription, EditedFieldsAreRefusedNamingThem) {
  Gemm plan = bf16_tn();
  TileDescription const base = plan.tile_descriptions().front();
  auto refusal = [&](auto edit) {
    TileDescription td = base;
    edit(td);
    return invalid_argument_message([&] { plan.compile(td); });
  };
  EXPECT_CONTAINS(refusal([](TileDescription& td) { td.tile_m = 64; }),
                  "tile 64x256x64: the cooperative design computes 128x256x64 tiles");
  EXPECT_CONTAINS(refusal([](TileDescription& td) { td.cluster_m = td.cluster_n = 2; }),
                  "tile_description.cluster = 2x2 is not a cluster shape of the kernel");
  EXPECT_CONTAINS(refusal([](TileDescription& td) { td.stages = 1; }),
                  "tile_description.stages = 1: the A/B ring needs at least 2 stages");
  EXPECT_CONTAINS(refusal([](TileDescription& td) { td.staging_buffers = 3; }),
                  "tile_description.staging_buffers = 3 must be 1 or 2");
  EXPECT_CONTAINS(refusal([](TileDescription& td) { td.design = ConsumerDesign::Auto; }),
                  "tile_description.design = auto");
  EXPECT_CONTAINS(refusal([](TileDescription& td) { td.raster_panel = 0; }),
                  "tile_description.raster_panel = 0 must be at least 1");
  EXPECT_CONTAINS(refusal([](TileDescription& td) { td.max_ctas = -1; }),
                  "tile_description.max_ctas = -1");
  EXPECT_CONTAINS(refusal([](TileDescription& td) { td.opclass = OperatorClass::Simt; }),
                  "tile_description.opclass = simt: this plan runs tensor-op");
}

// Stream-K is listed over the cooperative design's default at each width, runs that instance
// (the one gemm() runs; the fix-up is in its epilogue), and refuses the designs and clusters it
// does not run by name.
TEST(TileDescription, StreamKIsListedOverTheCooperativeDefaultsAndCheckedByName) {
  Gemm plan = bf16_tn();
  std::vector<TileDescription> stream_k;
  for (TileDescription const& td : plan.tile_descriptions())
    if (td.scheduler == TileScheduler::StreamK) stream_k.push_back(td);
  ASSERT_FALSE(stream_k.empty());
  for (TileDescription const& td : stream_k) {
    EXPECT_EQ(td.design, ConsumerDesign::Cooperative) << to_string(td);
    EXPECT_EQ(td.cluster_m * td.cluster_n, 1) << to_string(td);
  }
  TileDescription const coop = stream_k.front();
  EXPECT_EQ(to_string(coop),
            "cooperative 128x256x64, 4 stages, 2 staging buffers, cluster 1x1, raster panel 8, "
            "stream-k scheduler");
  EXPECT_CONTAINS(plan.source(coop), "bf16_bf16_tn_cooperative_s4_b2_1x1");
  auto refusal = [&](auto edit) {
    TileDescription td = coop;
    edit(td);
    return invalid_argument_message([&] { plan.compile(td); });
  };
  EXPECT_CONTAINS(refusal([](TileDescription& td) {
                    td.design = ConsumerDesign::PingPong;
                    td.tile_n = 128;
                    td.stages = 6;
                    td.staging_buffers = 1;
                  }),
                  "tile_description.scheduler = stream-k runs on the cooperative design");
  EXPECT_CONTAINS(refusal([](TileDescription& td) { td.cluster_m = 2; }),
                  "tile_description.scheduler = stream-k runs 1x1 clusters (cluster = 2x1)");
  EXPECT_CONTAINS(refusal([](TileDescription& td) { td.split_k = 4; }),
                  "tile_description.split_k = 4 takes scheduler = split-k (it is stream-k)");
}

// Split-K is listed over each design's default, prints its slices, runs the slices' fp32 instance,
// and refuses what it cannot run by name: a slice count out of range, slices without the split-k
// scheduler, an fp8 D (which then lists none).
TEST(TileDescription, SplitKIsListedOverEachDefaultAndCheckedByName) {
  Gemm plan = bf16_tn();
  std::vector<TileDescription> const all = plan.tile_descriptions();
  ASSERT_GE(all.size(), 2u);
  TileDescription const coop = *std::find_if(all.begin(), all.end(), [](TileDescription const& td) {
    return td.scheduler == TileScheduler::SplitK;
  });
  TileDescription const ping = *std::find_if(all.begin(), all.end(), [](TileDescription const& td) {
    return td.scheduler == TileScheduler::SplitK && td.design == ConsumerDesign::PingPong;
  });
  EXPECT_EQ(to_string(coop),
            "cooperative 128x256x64, 4 stages, 2 staging buffers, cluster 1x1, raster panel 8, "
            "split-k scheduler, slices per problem");
  EXPECT_EQ(ping.design, ConsumerDesign::PingPong);
  EXPECT_EQ(ping.scheduler, TileScheduler::SplitK);
  EXPECT_CONTAINS(plan.source(coop), "bf16_fp32_tn_cooperative_s4_b2_1x1");  // the slices' D
  TileDescription four = coop;
  four.split_k = 4;
  EXPECT_CONTAINS(to_string(four), "split-k scheduler, 4 slices");
  EXPECT_NO_THROW(plan.source(four));
  auto refusal = [&](auto edit) {
    TileDescription td = coop;
    edit(td);
    return invalid_argument_message([&] { plan.compile(td); });
  };
  EXPECT_CONTAINS(refusal([](TileDescription& td) { td.split_k = 1; }),
                  "tile_description.split_k = 1 must be 0 (slices per problem) or 2 to 32");
  EXPECT_CONTAINS(refusal([](TileDescription& td) { td.split_k = 33; }),
                  "tile_description.split_k = 33 must be 0");
  EXPECT_CONTAINS(refusal([](TileDescription& td) {
                    td.scheduler = TileScheduler::Persistent;
                    td.split_k = 4;
                  }),
                  "tile_description.split_k = 4 takes scheduler = split-k (it is persistent)");
  Gemm fp8_d({.element = ScalarType::E4M3,
              .layout_a = MatrixLayout::RowMajor,
              .layout_b = MatrixLayout::ColMajor,
              .layout_d = MatrixLayout::RowMajor,
              .arch = Arch::Sm90});
  for (TileDescription const& td : fp8_d.tile_descriptions())
    EXPECT_NE(td.scheduler, TileScheduler::SplitK) << to_string(td);
  TileDescription split = fp8_d.tile_descriptions().front();
  split.scheduler = TileScheduler::SplitK;
  EXPECT_CONTAINS(invalid_argument_message([&] { fp8_d.compile(split); }),
                  "split-k writes a 16-bit or fp32 D, and this plan's D is e4m3");
}

// Split-K on D^T (a decode step's D of few rows: split_k_choice's swap) is a description whose
// tile reads transposed in D's terms: listed after the split-K ones, compiled into the instance of
// the swapped operands (their majors swapped: "nn" slices run "tt"), named by description_for
// where a run splits that way, and refused for a scheduler other than split-K.
TEST(TileDescription, SplitKOnTheTransposeIsATurnedTile) {
  Gemm plan = bf16_tn();
  std::vector<TileDescription> const all = plan.tile_descriptions();
  auto const turned = std::find_if(all.begin(), all.end(), [](TileDescription const& td) {
    return td.scheduler == TileScheduler::SplitK && td.tile_m == 64;
  });
  ASSERT_NE(turned, all.end());
  EXPECT_EQ(to_string(*turned),
            "cooperative 64x128x64, 8 stages, 2 staging buffers, cluster 1x1, raster panel 8, "
            "split-k scheduler, slices per problem");
  // "tn" operands swapped are "tn" again: the slices' 64-wide fp32 instance.
  EXPECT_CONTAINS(plan.source(*turned), "bf16_fp32_tn_cooperative_s8_b2_1x1_n64");
  Gemm const nn = bf16_plan(MatrixLayout::ColMajor, MatrixLayout::ColMajor, MatrixLayout::RowMajor);
  EXPECT_CONTAINS(nn.source(*turned), "bf16_fp32_tt_cooperative_s8_b2_1x1_n64");
  // A column-major D runs the kernel on D^T already: its split on the transpose computes D's own
  // rows, and the turned tile reads 128x64.
  Gemm const col_d =
      bf16_plan(MatrixLayout::RowMajor, MatrixLayout::ColMajor, MatrixLayout::ColMajor);
  std::vector<TileDescription> const col_all = col_d.tile_descriptions();
  EXPECT_TRUE(std::ranges::any_of(col_all, [](TileDescription const& td) {
    return td.scheduler == TileScheduler::SplitK && td.tile_m == 128 && td.tile_n == 64;
  }));
  // Only split-K runs on the transpose.
  TileDescription persistent = *turned;
  persistent.scheduler = TileScheduler::Persistent;
  EXPECT_CONTAINS(invalid_argument_message([&] { plan.compile(persistent); }),
                  "tile 64x128x64: the cooperative design computes");
  TileDescription tall = *turned;
  tall.tile_m = 32;
  EXPECT_CONTAINS(invalid_argument_message([&] { plan.compile(tall); }),
                  "split-K also takes them transposed (its slices on D^T)");
  // What a run of M x N x K would split on (the slices for 132 SMs, no device here): "tn" views at
  // addresses far enough apart for the largest.
  auto const split_for = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    TileDescription const td = plan.description_for(
        row_major(fake(1), ScalarType::BF16, m, k), column_major(fake(100), ScalarType::BF16, k, n),
        {}, row_major(fake(300), ScalarType::BF16, m, n));
    EXPECT_EQ(td.scheduler, TileScheduler::SplitK) << m << "x" << n << "x" << k;
    EXPECT_GT(td.split_k, 1) << m << "x" << n << "x" << k;
    return td;
  };
  // A decode step's GEMM: run() splits it on D^T, and description_for says so.
  TileDescription const decode = split_for(64, 4096, 16384);
  EXPECT_EQ(decode.tile_m, 64);
  EXPECT_EQ(decode.tile_n, 128);
  EXPECT_CONTAINS(plan.source(decode), "bf16_fp32_tn_cooperative_s8_b2_1x1_n64");
  // D's own tiles where M is large (128 x 128).
  EXPECT_EQ(split_for(512, 512, 65536).tile_m, 128);
}

TEST(TileDescription, SimtDescriptionsRefuseTensorCoreKnobs) {
  Gemm plan(ScalarType::F32, MatrixLayout::RowMajor, Arch::Sm90);
  TileDescription td = plan.tile_descriptions().front();
  td.cluster_m = 2;
  EXPECT_CONTAINS(invalid_argument_message([&] { plan.compile(td); }),
                  "the SIMT GEMM has no clusters and no staging buffers");
  td = plan.tile_descriptions().front();
  td.stages = 4;
  EXPECT_CONTAINS(invalid_argument_message([&] { plan.compile(td); }),
                  "the SIMT GEMM runs 128x128x32 tiles with 3 stages for fp32 accumulation");
}

TEST(TileDescription, CompilingAPrebuiltConfigurationCompilesNothing) {
  // bf16 "tn" in both designs' defaults is prebuilt in every build (WARPLOOM_GEMM_INSTANCES).
  ::setenv("WARPLOOM_JIT", "0", 1);  // a compile would throw: compile() must find it prebuilt
  Gemm plan = bf16_tn();
  TileDescription td = plan.tile_descriptions().front();
  EXPECT_TRUE(plan.is_prebuilt(td));
  td.raster_panel = 4;  // a run-time knob: the same instance
  plan.compile(td);
  ASSERT_TRUE(plan.tile_description().has_value());
  EXPECT_EQ(*plan.tile_description(), td);
  plan.compile();  // the defaults of both designs, also prebuilt
  EXPECT_FALSE(plan.tile_description().has_value());
  ::unsetenv("WARPLOOM_JIT");
}

TEST(TileDescription, DescriptionForARunIsTheCompiledOneElseTheSizesDefault) {
  Gemm plan = bf16_tn();
  auto const views = [](std::int64_t m, std::int64_t n) {
    return std::tuple{row_major(fake(1), ScalarType::BF16, m, 64),
                      column_major(fake(2), ScalarType::BF16, 64, n),
                      row_major(fake(4), ScalarType::BF16, m, n)};
  };
  // gemm()'s size rule: cooperative below 8192 x 8192 outputs, ping-pong from there on; a
  // narrow cooperative tile where 128 x 256 tiles leave half the SMs idle (without a device, 132
  // of them).
  auto [a, b, d] = views(2048, 4096);
  TileDescription const small = plan.description_for(a, b, {}, d);
  EXPECT_EQ(small, plan.tile_descriptions().front());
  EXPECT_EQ(small.design, ConsumerDesign::Cooperative);
  auto [a1, b1, d1] = views(1024, 1024);
  TileDescription const narrow = plan.description_for(a1, b1, {}, d1);
  EXPECT_EQ(narrow.design, ConsumerDesign::Cooperative);
  EXPECT_EQ(narrow.tile_n, 64);
  EXPECT_EQ(narrow.stages, 8);
  auto [a2, b2, d2] = views(8192, 8192);
  EXPECT_EQ(plan.description_for(a2, b2, {}, d2).design, ConsumerDesign::PingPong);
  // The ping-pong default, prebuilt in every build: compile() runs no nvcc here.
  std::vector<TileDescription> const all = plan.tile_descriptions();
  TileDescription const chosen = *std::find_if(
      all.begin(), all.end(), [](auto const& td) { return td.design == ConsumerDesign::PingPong; });
  plan.compile(chosen);
  EXPECT_EQ(plan.description_for(a, b, {}, d), chosen);
}

TEST(TileDescription, SourceIsTheGeneratedInstance) {
  Gemm const plan = bf16_tn();
  std::string const s = plan.source(plan.tile_descriptions().front());
  EXPECT_CONTAINS(s, "bf16_bf16_tn_cooperative_s4_b2_1x1");
}

// A description no build prebuilds (3 stages, not the default's 4) is compiled by the JIT: its
// source is what the JIT's compiler compiles — NVRTC's kernel and the host compiler's launcher, or
// nvcc's one translation unit when WARPLOOM_JIT_COMPILER=nvcc asks (sm90::source_of).
TEST(TileDescription, SourceOfAJitInstanceIsWhatCompilesIt) {
  Gemm const plan = bf16_tn();
  std::vector<TileDescription> const all = plan.tile_descriptions();
  auto const three = std::find_if(all.begin(), all.end(), [](TileDescription const& td) {
    return td.stages == 3 && td.cluster_m == 1 && td.cluster_n == 1;
  });
  ASSERT_NE(three, all.end());
  ::setenv("WARPLOOM_JIT_COMPILER", "nvcc", 1);
  std::string const nvcc = plan.source(*three);
  ::setenv("WARPLOOM_JIT_COMPILER", "nvrtc", 1);
  std::string const nvrtc = plan.source(*three);
  ::setenv("WARPLOOM_JIT_COMPILER", "clang", 1);
  std::string const refused = invalid_argument_message([&] { return plan.source(*three); });
  ::unsetenv("WARPLOOM_JIT_COMPILER");
  EXPECT_CONTAINS(nvcc, "_s3_");
  EXPECT_CONTAINS(nvcc, "warploom_jit_entry");  // the JIT's translation unit, entry included
  EXPECT_EQ(nvcc.find("NVRTC"), std::string::npos);
  if (nvrtc == nvcc) GTEST_SKIP() << "prebuilt in this build, or libnvrtc cannot be loaded";
  EXPECT_CONTAINS(refused, "WARPLOOM_JIT_COMPILER=clang");
  EXPECT_CONTAINS(nvrtc, "---- The kernel: NVRTC compiles it");
  EXPECT_CONTAINS(nvrtc, "---- The launcher: the host compiler compiles it");
  EXPECT_CONTAINS(nvrtc, "warploom_jit_set_kernel");
}

}  // namespace
}  // namespace warploom::ops
