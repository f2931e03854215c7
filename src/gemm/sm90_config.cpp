// src/gemm/sm90_config.cpp — sm90 GEMM configurations: names, selection, shared-memory fit.
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gemm/sm90/cooperative.hpp"
#include "gemm/sm90/cooperative_dynamic.hpp"
#include "gemm/sm90/pingpong.hpp"
#include "gemm/sm90/pingpong_dynamic.hpp"
#include "sm90_instances.hpp"
#include "warploom/ts/model.hpp"

namespace warploom::gemm::sm90 {
namespace {

// A design's tile, default stages and staging buffers, accumulator tiles per CTA and name, read
// off its schedule at its default shape (kernels/gemm/sm90/cooperative.hpp, pingpong.hpp).
struct DesignDefaults {
  int tile_m, tile_n, stages, staging_buffers, slots;
  std::string_view name;
};

template <class Schedule, class S>
constexpr DesignDefaults defaults_from() {
  return {S::kTileM,      S::kTileN, S::kStages, S::kStagingBuffers, Schedule::kAccumulatorTiles,
          Schedule::kName};
}

DesignDefaults defaults_of(ConsumerDesign d) {
  if (d == ConsumerDesign::PingPong)
    return defaults_from<Pingpong<PingpongShape<>>, PingpongShape<>>();
  return defaults_from<Cooperative<CooperativeShape<>>, CooperativeShape<>>();
}

constexpr int kCooperativeWidths[] = {CooperativeShape<>::kTileN, 128, 64};
constexpr int kPingpongWidths[] = {PingpongShape<>::kTileN};

// The default stages of design `d` with tiles `tile_n` wide (0: the design's own).
int default_stages(ConsumerDesign d, int tile_n) {
  DesignDefaults const defaults = defaults_of(d);
  if (tile_n == 0 || tile_n == defaults.tile_n) return defaults.stages;
  return cooperative_stages(tile_n);
}

}  // namespace

std::span<int const> tile_widths(ConsumerDesign d) {
  if (d == ConsumerDesign::PingPong) return kPingpongWidths;
  return kCooperativeWidths;
}

int tile_n_of(KernelConfig const& c) {
  return c.tile_n != 0 ? c.tile_n : defaults_of(c.design).tile_n;
}

std::vector<std::string> epilogue_tokens(EpilogueConfig const& e) {
  std::vector<std::string> t;
  if (e.row_scale) t.emplace_back("rowscale");
  if (e.col_scale) t.emplace_back("colscale");
  if (e.bias)
    t.push_back(fmt::format("{}bias{}", e.bias_broadcast == Broadcast::PerRow ? "row" : "col",
                            to_string(e.bias_type)));
  if (e.pre_activation) t.emplace_back("preact");
  if (e.activation != Activation::Identity) {
    // Identifier-safe: names are also function names (run_<name>) and '_' separates fields.
    std::string a(to_string(e.activation));
    std::erase(a, '_');
    t.push_back(a);
  }
  if (e.residual) t.emplace_back("residual");
  return t;
}

std::string name_of(KernelConfig const& c) {
  std::string name =
      fmt::format("{}_{}_{}{}_{}_s{}_b{}_{}x{}", to_string(c.in), to_string(c.out),
                  c.a_k_major ? 't' : 'n', c.b_k_major ? 'n' : 't', to_string(c.design), c.stages,
                  c.staging_buffers, c.cluster_m, c.cluster_n);
  if (c.tile_n != 0) name += fmt::format("_n{}", c.tile_n);
  if (c.grouped) name += c.dynamic_tiles ? "_grouped_dynamic" : "_grouped";
  for (std::string const& token : epilogue_tokens(c.epilogue)) name += "_" + token;
  return name;
}

EpilogueConfig epilogue_config_of(GemmArguments const& r) {
  GemmEpilogue const& e = r.epilogue;
  EpilogueConfig c{.row_scale = e.row_scale != nullptr,
                   .col_scale = e.col_scale != nullptr,
                   .bias = e.bias != nullptr,
                   .pre_activation = e.pre_activation.data != nullptr,
                   .activation = e.activation,
                   .residual = e.residual.data != nullptr};
  if (c.bias) {
    c.bias_broadcast = e.bias_broadcast;
    c.bias_type = e.bias_type;
  }
  return c;
}

KernelConfig config_of(GemmArguments const& r, GemmTuning const& tuning, bool grouped) {
  DesignDefaults const d = defaults_of(tuning.design);
  int const tile_n = tuning.tile_n == d.tile_n ? 0 : tuning.tile_n;
  KernelConfig c{
      .in = r.a.type,
      .out = r.d_type,
      .a_k_major = r.a.layout == MatrixLayout::RowMajor,
      .b_k_major = r.b.layout == MatrixLayout::ColMajor,
      .design = tuning.design,
      .stages = tuning.stages != 0 ? tuning.stages : default_stages(tuning.design, tile_n),
      .staging_buffers = tuning.staging_buffers != 0 ? tuning.staging_buffers : d.staging_buffers,
      .cluster_m = tuning.cluster_m,
      .cluster_n = tuning.cluster_n,
      .tile_n = tile_n,
      .epilogue = epilogue_config_of(r),
      .grouped = grouped,
      .dynamic_tiles = grouped && tuning.tile_scheduling == TileScheduling::Dynamic};
  // With a finish task, two staging buffers per warpgroup (for 5 stages instead of 6): the MMA
  // warpgroup stages its whole tile and returns to the main loop without waiting for the finish
  // task to free a buffer (bias + GELU, 8192x8192x1024: 0.287 ms against 0.344 with one buffer;
  // other shapes within 2 %; H200, 2026-12-02).
  if (has_finish_task(c) && tuning.stages == 0 && tuning.staging_buffers == 0) {
    c.stages = PingpongShape<5, 2, 1, true>::kStages;
    c.staging_buffers = PingpongShape<5, 2, 1, true>::kStagingBuffers;
  }
  return c;
}

bool has_finish_task(KernelConfig const& c) {
  return c.design == ConsumerDesign::PingPong && !c.grouped && c.epilogue.second_pass();
}

bool folds_split_k(KernelConfig const& c) {
  return c.design == ConsumerDesign::Cooperative && c.cluster_m * c.cluster_n == 1 && !c.grouped;
}

std::string schedule_of(KernelConfig const& c) {
  DesignDefaults const d = defaults_of(c.design);
  // The dynamic tile scheduler is each design's schedule (the same shapes) over a queue.
  std::string_view const dynamic = c.design == ConsumerDesign::PingPong
                                       ? PingpongDynamic<PingpongShape<>>::kName
                                       : CooperativeDynamic<CooperativeShape<>>::kName;
  std::string_view const name = c.dynamic_tiles ? dynamic : d.name;
  ShapeChoice const shape{c.stages, c.staging_buffers, c.cluster_m * c.cluster_n, tile_n_of(c),
                          has_finish_task(c)};
  ShapeChoice const defaults{d.stages, d.staging_buffers, 1, d.tile_n, false};
  return std::string(schedule_name(name, shape, defaults).view());
}

std::vector<KernelConfig> selectable_configs() {
  struct Types {
    ScalarType in, out;
    bool every_layout;  // fp8: "tn" only (wgmma reads 8-bit operands K-major only)
  };
  constexpr Types kTypes[] = {
      {ScalarType::F16, ScalarType::F16, true},    {ScalarType::F16, ScalarType::F32, true},
      {ScalarType::BF16, ScalarType::BF16, true},  {ScalarType::BF16, ScalarType::F32, true},
      {ScalarType::E4M3, ScalarType::BF16, false}, {ScalarType::E4M3, ScalarType::F16, false},
      {ScalarType::E4M3, ScalarType::F32, false},  {ScalarType::E5M2, ScalarType::BF16, false},
      {ScalarType::E5M2, ScalarType::F16, false},  {ScalarType::E5M2, ScalarType::F32, false}};
  constexpr int kClusters[][2] = {{1, 1}, {2, 1}, {1, 2}};
  std::vector<KernelConfig> out;
  for (ConsumerDesign design : {ConsumerDesign::Cooperative, ConsumerDesign::PingPong}) {
    DesignDefaults const d = defaults_of(design);
    for (int width : tile_widths(design)) {
      int const tile_n = width == d.tile_n ? 0 : width;
      for (Types const& t : kTypes)
        for (int layout = 0; layout < (t.every_layout ? 4 : 1); ++layout)
          for (auto const& cluster : kClusters)
            out.push_back({.in = t.in,
                           .out = t.out,
                           .a_k_major = (layout & 1) == 0,
                           .b_k_major = (layout & 2) == 0,
                           .design = design,
                           .stages = default_stages(design, tile_n),
                           .staging_buffers = d.staging_buffers,
                           .cluster_m = cluster[0],
                           .cluster_n = cluster[1],
                           .tile_n = tile_n});
    }
  }
  return out;
}

DesignShape design_shape(ConsumerDesign design, int tile_n) {
  DesignDefaults const d = defaults_of(design);
  return {.tile_m = d.tile_m,
          .tile_n = tile_n != 0 ? tile_n : d.tile_n,
          .tile_k_bytes = CooperativeShape<>::kTileKBytes,
          .stages = default_stages(design, tile_n),
          .staging_buffers = d.staging_buffers};
}

long long smem_bytes_of(KernelConfig const& c) {
  DesignDefaults const d = defaults_of(c.design);
  return smem_payload_bytes(d.tile_m, tile_n_of(c), c.stages, c.staging_buffers, d.slots);
}

void check_fits(KernelConfig const& c) {
  long long const bytes = smem_bytes_of(c);
  if (bytes > ts::kSmemCapacityBytes)
    throw std::invalid_argument(fmt::format(
        "gemm: tuning.stages = {} and tuning.staging_buffers = {} do not fit shared memory with "
        "the {} design: {} bytes of stages and staging needed, {} available per block",
        c.stages, c.staging_buffers, to_string(c.design), bytes, ts::kSmemCapacityBytes));
}

}  // namespace warploom::gemm::sm90
