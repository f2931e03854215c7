// tests/cpu/gemm/sm90_config_test.cpp — sm90 GEMM configurations (src/gemm/sm90_instances.hpp,
// sm90_config.cpp, sm90_source.cpp): names and their parsing, the fused epilogue's part of the
// key, and the source the generator writes for it. No GPU, no compiler.
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "sm90_instances.hpp"
#include "sm90_source.hpp"
#include "warploom/ts/model.hpp"

namespace {

namespace sm90 = warploom::gemm::sm90;
using warploom::gemm::Activation;
using warploom::gemm::Broadcast;
using warploom::gemm::ConsumerDesign;
using warploom::gemm::GemmArguments;
using warploom::gemm::MatrixLayout;
using warploom::gemm::ScalarType;
using warploom::gemm::TileScheduling;

sm90::KernelConfig with_epilogue(sm90::EpilogueConfig e) {
  return {.epilogue = e};
}

TEST(Sm90Config, ThePlainGemmKeepsItsName) {
  EXPECT_EQ(sm90::name_of({}), "bf16_bf16_tn_cooperative_s4_b2_1x1");
  EXPECT_FALSE(sm90::EpilogueConfig{}.fused());
}

TEST(Sm90Config, FusedEpiloguesAppendTheirOpsInOrder) {
  EXPECT_EQ(sm90::name_of(with_epilogue(
                {.bias = true, .bias_type = ScalarType::BF16, .activation = Activation::GELU})),
            "bf16_bf16_tn_cooperative_s4_b2_1x1_colbiasbf16_gelu");
  EXPECT_EQ(sm90::name_of(with_epilogue({.row_scale = true,
                                         .col_scale = true,
                                         .bias = true,
                                         .bias_broadcast = Broadcast::PerRow,
                                         .pre_activation = true,
                                         .activation = Activation::LeakyReLU,
                                         .residual = true})),
            "bf16_bf16_tn_cooperative_s4_b2_1x1_rowscale_colscale_rowbiasfp32_preact_leakyrelu_"
            "residual");
  EXPECT_EQ(sm90::name_of(with_epilogue({.activation = Activation::GELUTanh})),
            "bf16_bf16_tn_cooperative_s4_b2_1x1_gelutanh");
}

TEST(Sm90Config, EveryNameParsesBackToItsConfiguration) {
  sm90::KernelConfig c{.in = ScalarType::E4M3,
                       .out = ScalarType::F16,
                       .design = ConsumerDesign::PingPong,
                       .stages = 6,
                       .staging_buffers = 1,
                       .cluster_m = 2};
  for (Activation a : {Activation::Identity, Activation::ReLU, Activation::LeakyReLU,
                       Activation::GELU, Activation::GELUTanh, Activation::HardSwish,
                       Activation::Sigmoid, Activation::SiLU, Activation::Tanh}) {
    for (int bias = 0; bias < 5; ++bias) {
      for (int flags = 0; flags < 16; ++flags) {
        c.epilogue = {
            .row_scale = (flags & 1) != 0,
            .col_scale = (flags & 2) != 0,
            .bias = bias != 0,
            .bias_broadcast = bias == 1 || bias == 2 ? Broadcast::PerRow : Broadcast::PerColumn,
            .bias_type = bias == 2 || bias == 4 ? ScalarType::F16 : ScalarType::F32,
            .pre_activation = (flags & 4) != 0,
            .activation = a,
            .residual = (flags & 8) != 0};
        std::string const name = sm90::name_of(c);
        auto const parsed = sm90::parse_config(name);
        ASSERT_TRUE(parsed.has_value()) << name;
        EXPECT_EQ(*parsed, c) << name;
      }
    }
  }
}

TEST(Sm90Config, MalformedEpilogueNamesAreRefused) {
  std::string const base = "bf16_bf16_tn_cooperative_s4_b2_1x1";
  EXPECT_TRUE(sm90::parse_config(base + "_colbiasfp32_gelu").has_value());
  for (std::string const bad : {
           "_gelu_colbiasfp32",  // out of order
           "_gelu_gelu",         // repeated
           "_relu_gelu",         // two activations
           "_identity",          // the default is spelled by no token
           "_colbiasfp16",       // neither fp32 nor D's type
           "_colbiase4m3",       // not a bias type
           "_colbias",           // no type
           "_leaky_relu",        // the activation's name has no underscore here
           "_gelu_",             // empty token
           "_bias",              // unknown
       })
    EXPECT_FALSE(sm90::parse_config(base + bad).has_value()) << bad;
}

TEST(Sm90Config, TheEpilogueComesFromTheArguments) {
  GemmArguments r;
  r.d_type = ScalarType::BF16;
  EXPECT_FALSE(sm90::epilogue_config_of(r).fused());
  float const scale = 1.0f;
  r.epilogue.row_scale = &scale;
  r.epilogue.bias = &scale;
  r.epilogue.bias_type = ScalarType::BF16;
  r.epilogue.bias_broadcast = Broadcast::PerRow;
  r.epilogue.activation = Activation::SiLU;
  r.epilogue.residual = {&scale, ScalarType::BF16, MatrixLayout::ColMajor};
  sm90::EpilogueConfig const e = sm90::epilogue_config_of(r);
  EXPECT_EQ(e, (sm90::EpilogueConfig{.row_scale = true,
                                     .bias = true,
                                     .bias_broadcast = Broadcast::PerRow,
                                     .bias_type = ScalarType::BF16,
                                     .activation = Activation::SiLU,
                                     .residual = true}));
  // Without a bias its broadcast and type are not part of the key (one instance, not three).
  r.epilogue.bias = nullptr;
  EXPECT_EQ(
      sm90::epilogue_config_of(r),
      (sm90::EpilogueConfig{.row_scale = true, .activation = Activation::SiLU, .residual = true}));
  // The epilogue is no part of the schedule: a fused configuration runs the plain one's.
  sm90::KernelConfig c{.epilogue = e};
  EXPECT_EQ(sm90::schedule_of(c), sm90::schedule_of(sm90::KernelConfig{}));
}

TEST(Sm90Config, TheGroupedKernelIsAConfigurationOfItsOwn) {
  sm90::KernelConfig grouped{.design = ConsumerDesign::PingPong, .stages = 6, .staging_buffers = 1};
  grouped.grouped = true;
  EXPECT_EQ(sm90::name_of(grouped), "bf16_bf16_tn_pingpong_s6_b1_1x1_grouped");
  grouped.epilogue = {.bias = true, .bias_type = ScalarType::BF16, .activation = Activation::GELU};
  std::string const name = sm90::name_of(grouped);
  EXPECT_EQ(name, "bf16_bf16_tn_pingpong_s6_b1_1x1_grouped_colbiasbf16_gelu");
  auto const parsed = sm90::parse_config(name);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, grouped);
  EXPECT_FALSE(sm90::parse_config("bf16_bf16_tn_pingpong_s6_b1_1x1_gelu_grouped").has_value());
  EXPECT_FALSE(sm90::parse_config("bf16_bf16_tn_pingpong_s6_b1_1x1_grouped_grouped").has_value());
  // The dense kernel's schedule, verified once for both; but the dense ping-pong kernel runs an
  // epilogue with a second pass (the GELU) in its finish task, a twin schedule the grouped kernel
  // does not use (pingpong.hpp).
  sm90::KernelConfig dense = grouped;
  dense.grouped = false;
  EXPECT_TRUE(sm90::has_finish_task(dense));
  EXPECT_FALSE(sm90::has_finish_task(grouped));
  EXPECT_EQ(sm90::schedule_of(dense), sm90::schedule_of(grouped) + "_f");
  sm90::KernelConfig plain_dense = dense, plain_grouped = grouped;
  plain_dense.epilogue.activation = plain_grouped.epilogue.activation = Activation::Identity;
  EXPECT_EQ(sm90::schedule_of(plain_grouped), sm90::schedule_of(plain_dense));

  sm90::KernelConfig const both[] = {dense, grouped};
  std::string const source = sm90::instance_source(both);
  EXPECT_NE(source.find("(std::span<GemmArguments const> groups, std::span<int const* const> "
                        "valid_m, int const* row_ends, GemmTuning const& tuning, void* "
                        "workspace, GroupedSteps steps, cudaStream_t stream) {\n  "
                        "launch_ts_grouped_gemm<Instance<Pingpong"),
            std::string::npos)
      << source;
  std::string const table = sm90::instance_table_source(both);
  EXPECT_NE(table.find("Activation::GELU, false}, true}, {nullptr, &run_" + name + "}}"),
            std::string::npos)
      << table;
  // The table declares every launcher with the parameters its definition has (a prebuilt build
  // compiles both; a mismatch fails only there).
  for (sm90::KernelConfig const& c : both) {
    std::string const function = "void run_" + sm90::name_of(c) + "(";
    std::size_t const defined = source.find(function), declared = table.find(function);
    ASSERT_NE(defined, std::string::npos) << source;
    ASSERT_NE(declared, std::string::npos) << table;
    std::string const definition = source.substr(defined, source.find(')', defined) - defined);
    EXPECT_EQ(table.substr(declared, table.find(')', declared) - declared), definition);
  }
}

// The dynamic tile scheduler: a grouped configuration of its own, the cooperative design's shape on
// a schedule of its own (cooperative_dynamic.hpp), which this build verified; named, parsed and
// generated like the others, and refused by the parser where it does not exist (a cluster, the
// dense kernel).
TEST(Sm90Config, TheDynamicTileSchedulerIsAGroupedConfiguration) {
  GemmArguments r;
  r.m = r.n = r.k = 256;
  r.b.layout = MatrixLayout::ColMajor;  // "tn"
  sm90::KernelConfig const c = sm90::config_of(
      r, {.design = ConsumerDesign::Cooperative, .tile_scheduling = TileScheduling::Dynamic},
      /*grouped=*/true);
  EXPECT_TRUE(c.grouped);
  EXPECT_TRUE(c.dynamic_tiles);
  std::string const name = sm90::name_of(c);
  EXPECT_EQ(name, "bf16_bf16_tn_cooperative_s4_b2_1x1_grouped_dynamic");
  auto const parsed = sm90::parse_config(name);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, c);
  EXPECT_EQ(sm90::schedule_of(c), "sm90_ts_gemm_dynamic");
  EXPECT_TRUE(sm90::schedule_verified(c));
  // Static (and Auto) tuning, or the dense kernel: the static walk.
  EXPECT_FALSE(sm90::config_of(r, {.design = ConsumerDesign::Cooperative}, true).dynamic_tiles);
  EXPECT_FALSE(
      sm90::config_of(
          r, {.design = ConsumerDesign::Cooperative, .tile_scheduling = TileScheduling::Dynamic},
          /*grouped=*/false)
          .dynamic_tiles);
  for (char const* bad : {"bf16_bf16_tn_pingpong_s6_b1_2x1_grouped_dynamic",
                          "bf16_bf16_tn_cooperative_s4_b2_2x1_grouped_dynamic",
                          "bf16_bf16_tn_cooperative_s4_b2_1x1_dynamic",
                          "bf16_bf16_tn_cooperative_s4_b2_1x1_grouped_dynamic_dynamic"})
    EXPECT_FALSE(sm90::parse_config(bad).has_value()) << bad;
  sm90::KernelConfig const one[] = {c};
  std::string const source = sm90::instance_source(one);
  EXPECT_NE(source.find("launch_ts_grouped_gemm<Instance<CooperativeDynamic, CooperativeShape<4, "
                        "1>"),
            std::string::npos)
      << source;
  EXPECT_NE(sm90::instance_table_source(one).find("true, true}, {nullptr, &run_" + name + "}}"),
            std::string::npos);
}

// Ping-pong over the queue (pingpong_dynamic.hpp): pairs of tiles, at the design's default shape
// and at 5 stages with two staging buffers, both verified by this build; another shape names a
// schedule no unit proves, which the host refuses listing those that exist.
TEST(Sm90Config, PingpongOverTheQueueIsAGroupedConfiguration) {
  GemmArguments r;
  r.m = r.n = r.k = 256;
  r.b.layout = MatrixLayout::ColMajor;  // "tn"
  warploom::gemm::GemmTuning tuning{.design = ConsumerDesign::PingPong,
                                    .tile_scheduling = TileScheduling::Dynamic};
  sm90::KernelConfig const c = sm90::config_of(r, tuning, /*grouped=*/true);
  EXPECT_TRUE(c.dynamic_tiles);
  std::string const name = sm90::name_of(c);
  EXPECT_EQ(name, "bf16_bf16_tn_pingpong_s6_b1_1x1_grouped_dynamic");
  auto const parsed = sm90::parse_config(name);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, c);
  EXPECT_EQ(sm90::schedule_of(c), "sm90_ts_gemm_pingpong_dynamic");
  EXPECT_TRUE(sm90::schedule_verified(c));
  sm90::KernelConfig const one[] = {c};
  EXPECT_NE(sm90::instance_source(one).find(
                "launch_ts_grouped_gemm<Instance<PingpongDynamic, PingpongShape<6, 1, 1, false>"),
            std::string::npos);
  tuning.stages = 5;
  tuning.staging_buffers = 2;
  sm90::KernelConfig const s5b2 = sm90::config_of(r, tuning, true);
  EXPECT_EQ(sm90::schedule_of(s5b2), "sm90_ts_gemm_pingpong_dynamic_s5_b2");
  EXPECT_TRUE(sm90::schedule_verified(s5b2));
  tuning.stages = 4;
  tuning.staging_buffers = 1;
  EXPECT_FALSE(sm90::schedule_verified(sm90::config_of(r, tuning, true)));
}

TEST(Sm90Config, TheGeneratorWritesTheChain) {
  sm90::KernelConfig const plain{};
  sm90::KernelConfig const fused = with_epilogue({.col_scale = true,
                                                  .bias = true,
                                                  .bias_type = ScalarType::BF16,
                                                  .pre_activation = true,
                                                  .activation = Activation::HardSwish,
                                                  .residual = true});
  sm90::KernelConfig const both[] = {plain, fused};
  std::string const source = sm90::instance_source(both);
  EXPECT_NE(source.find("1, 1>>(args, tuning, fold, stream);"), std::string::npos) << source;
  EXPECT_NE(
      source.find("1, 1, epi::Chain<epi::ColScale, epi::Bias<Broadcast::PerColumn, "
                  "cute::bfloat16_t>, epi::PreActivation, "
                  "epi::Act<Activation::HardSwish>, epi::Residual>>>(args, tuning, fold, stream);"),
      std::string::npos)
      << source;
  std::string const table = sm90::instance_table_source(both);
  EXPECT_NE(table.find("{false, true, true, Broadcast::PerColumn, ScalarType::BF16, true, "
                       "Activation::HardSwish, true}"),
            std::string::npos)
      << table;
}

}  // namespace

namespace {

// Ping-pong with a second pass in its epilogue runs a finish task, by default with 5 stages and
// two staging buffers per warpgroup (config_of); stages or buffers asked for are kept, and the
// cooperative design and the grouped kernel keep their own defaults.
TEST(Sm90Config, ASecondPassTakesTheFinishTasksDefaultShape) {
  GemmArguments r;
  r.a.type = ScalarType::BF16;
  r.d_type = ScalarType::BF16;
  r.a.layout = MatrixLayout::RowMajor;
  r.b.layout = MatrixLayout::ColMajor;
  r.epilogue.activation = Activation::GELU;
  warploom::gemm::GemmTuning t;
  t.design = ConsumerDesign::PingPong;
  sm90::KernelConfig const c = sm90::config_of(r, t);
  EXPECT_EQ(sm90::name_of(c), "bf16_bf16_tn_pingpong_s5_b2_1x1_gelu");
  EXPECT_EQ(sm90::schedule_of(c), "sm90_ts_gemm_pingpong_s5_b2_f");
  t.stages = 6;
  t.staging_buffers = 1;
  EXPECT_EQ(sm90::schedule_of(sm90::config_of(r, t)), "sm90_ts_gemm_pingpong_f");
  t.stages = t.staging_buffers = 0;
  EXPECT_EQ(sm90::name_of(sm90::config_of(r, t, /*grouped=*/true)),
            "bf16_bf16_tn_pingpong_s6_b1_1x1_grouped_gelu");
  t.design = ConsumerDesign::Cooperative;
  EXPECT_EQ(sm90::schedule_of(sm90::config_of(r, t)), "sm90_ts_gemm");
  r.epilogue.activation = Activation::Identity;  // no second pass: the plain ping-pong
  t.design = ConsumerDesign::PingPong;
  EXPECT_EQ(sm90::name_of(sm90::config_of(r, t)), "bf16_bf16_tn_pingpong_s6_b1_1x1");
}

}  // namespace

namespace {

// The cooperative design's narrow tiles (GemmTuning::tile_n): configurations of their own, named
// by their width after the cluster, with the stages that fit beside their staging (8 for 64 wide,
// 6 for 128), on schedules of their own that this build verified; the design's own width is never
// spelled (one kernel, one name), and ping-pong has no narrow tile.
TEST(Sm90Config, NarrowTilesAreConfigurationsOfTheirOwn) {
  GemmArguments r;
  r.b.layout = MatrixLayout::ColMajor;  // "tn"
  warploom::gemm::GemmTuning t{.design = ConsumerDesign::Cooperative, .tile_n = 64};
  sm90::KernelConfig const n64 = sm90::config_of(r, t);
  EXPECT_EQ(sm90::name_of(n64), "bf16_bf16_tn_cooperative_s8_b2_1x1_n64");
  EXPECT_EQ(sm90::tile_n_of(n64), 64);
  EXPECT_EQ(sm90::schedule_of(n64), "sm90_ts_gemm_s8_n64");
  t.tile_n = 128;
  t.cluster_m = 2;
  sm90::KernelConfig const n128 = sm90::config_of(r, t);
  EXPECT_EQ(sm90::name_of(n128), "bf16_bf16_tn_cooperative_s6_b2_2x1_n128");
  EXPECT_EQ(sm90::schedule_of(n128), "sm90_ts_gemm_s6_c2_n128");
  t.tile_n = 256;  // the design's own: the plain configuration
  EXPECT_EQ(sm90::config_of(r, t),
            sm90::config_of(r, {.cluster_m = 2, .design = ConsumerDesign::Cooperative}));
  for (sm90::KernelConfig const& c : {n64, n128}) {
    EXPECT_TRUE(sm90::schedule_verified(c)) << sm90::schedule_of(c);
    EXPECT_LE(sm90::smem_bytes_of(c), warploom::ts::kSmemCapacityBytes);
    auto const parsed = sm90::parse_config(sm90::name_of(c));
    ASSERT_TRUE(parsed.has_value()) << sm90::name_of(c);
    EXPECT_EQ(*parsed, c);
  }
  // Stages asked for are kept (and checked against shared memory and the verified schedules).
  t = {.design = ConsumerDesign::Cooperative, .stages = 4, .tile_n = 64};
  sm90::KernelConfig const few = sm90::config_of(r, t);
  EXPECT_EQ(sm90::name_of(few), "bf16_bf16_tn_cooperative_s4_b2_1x1_n64");
  EXPECT_FALSE(sm90::schedule_verified(few));
  EXPECT_THROW(sm90::check_schedule(few), std::invalid_argument);

  for (char const* bad : {"bf16_bf16_tn_cooperative_s4_b2_1x1_n256",  // the design's own
                          "bf16_bf16_tn_cooperative_s8_b2_1x1_n32",   // no such width
                          "bf16_bf16_tn_cooperative_s8_b2_1x1_n064",  // not canonical
                          "bf16_bf16_tn_pingpong_s6_b1_1x1_n64",      // ping-pong: 128 only
                          "bf16_bf16_tn_pingpong_s6_b1_1x1_n128",     // its own: unspelled
                          "bf16_bf16_tn_cooperative_s8_b2_1x1_n64_n64"})
    EXPECT_FALSE(sm90::parse_config(bad).has_value()) << bad;

  sm90::KernelConfig const one[] = {n64};
  std::string const source = sm90::instance_source(one);
  EXPECT_NE(source.find("launch_ts_gemm<Instance<Cooperative, CooperativeShape<8, 1, 64>"),
            std::string::npos)
      << source;
  EXPECT_NE(sm90::instance_table_source(one).find("8, 2, 1, 1, 64}, {&run_" + sm90::name_of(n64)),
            std::string::npos)
      << sm90::instance_table_source(one);

  // gemm() can select them: `warploom precompile --all` and WARPLOOM_GEMM_INSTANCES=all list them.
  int narrow = 0;
  for (sm90::KernelConfig const& c : sm90::selectable_configs()) {
    if (c.tile_n == 0) continue;
    ++narrow;
    EXPECT_EQ(c.design, ConsumerDesign::Cooperative) << sm90::name_of(c);
    EXPECT_TRUE(sm90::schedule_verified(c)) << sm90::name_of(c);
  }
  EXPECT_EQ(narrow, 2 * 22 * 3);  // 2 widths x 22 type-layout pairs x 3 clusters
}

}  // namespace
