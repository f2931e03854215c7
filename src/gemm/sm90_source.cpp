// src/gemm/sm90_source.cpp — instance sources and configuration names (sm90_source.hpp).
#include "sm90_source.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace warploom::gemm::sm90 {
namespace {

// CuTe's element type and ScalarType's enumerator name of each tensor-core type.
struct TypeNames {
  ScalarType type;
  std::string_view cute;
  std::string_view enumerator;
};
constexpr std::array<TypeNames, 5> kTypes{{
    {ScalarType::F16, "cute::half_t", "F16"},
    {ScalarType::BF16, "cute::bfloat16_t", "BF16"},
    {ScalarType::F32, "float", "F32"},
    {ScalarType::E4M3, "cute::float_e4m3_t", "E4M3"},
    {ScalarType::E5M2, "cute::float_e5m2_t", "E5M2"},
}};

TypeNames const* names_of(ScalarType t) {
  for (auto const& n : kTypes)
    if (n.type == t) return &n;
  return nullptr;
}

std::optional<ScalarType> type_named(std::string_view s) {
  for (auto const& n : kTypes)
    if (to_string(n.type) == s) return n.type;
  return std::nullopt;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    std::size_t const end = s.find(sep, start);
    out.push_back(s.substr(start, end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

std::optional<int> number_after(std::string_view s, char tag) {
  if (s.size() < 2 || s[0] != tag) return std::nullopt;
  int v = 0;
  auto const [end, error] = std::from_chars(s.data() + 1, s.data() + s.size(), v);
  if (error != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string function_of(KernelConfig const& c) {
  return fmt::format("run_{}", name_of(c));
}

constexpr Activation kActivations[] = {
    Activation::Identity, Activation::ReLU,     Activation::LeakyReLU,
    Activation::GELU,     Activation::GELUTanh, Activation::HardSwish,
    Activation::Sigmoid,  Activation::SiLU,     Activation::Tanh,
};

std::string_view enumerator_of(Activation a) {
  switch (a) {
    case Activation::Identity:
      return "Identity";
    case Activation::ReLU:
      return "ReLU";
    case Activation::LeakyReLU:
      return "LeakyReLU";
    case Activation::GELU:
      return "GELU";
    case Activation::GELUTanh:
      return "GELUTanh";
    case Activation::HardSwish:
      return "HardSwish";
    case Activation::Sigmoid:
      return "Sigmoid";
    case Activation::SiLU:
      return "SiLU";
    case Activation::Tanh:
      return "Tanh";
  }
  return "?";
}

std::string_view enumerator_of(Broadcast b) {
  return b == Broadcast::PerRow ? "PerRow" : "PerColumn";
}

// Every epilogue of one op: each spells one name token (epilogue_tokens).
std::vector<EpilogueConfig> single_ops() {
  std::vector<EpilogueConfig> ops = {
      {.row_scale = true}, {.col_scale = true}, {.pre_activation = true}, {.residual = true}};
  for (Broadcast b : {Broadcast::PerRow, Broadcast::PerColumn})
    for (ScalarType t : {ScalarType::F32, ScalarType::BF16, ScalarType::F16})
      ops.push_back({.bias = true, .bias_broadcast = b, .bias_type = t});
  for (Activation a : kActivations)
    if (a != Activation::Identity) ops.push_back({.activation = a});
  return ops;
}

// Adds the op that one name token stands for to `e`; false for no token.
bool parse_epilogue_token(std::string_view token, EpilogueConfig& e) {
  for (EpilogueConfig const& op : single_ops()) {
    if (epilogue_tokens(op).front() != token) continue;
    e.row_scale |= op.row_scale;
    e.col_scale |= op.col_scale;
    e.pre_activation |= op.pre_activation;
    e.residual |= op.residual;
    if (op.bias) {
      e.bias = true;
      e.bias_broadcast = op.bias_broadcast;
      e.bias_type = op.bias_type;
    }
    if (op.activation != Activation::Identity) e.activation = op.activation;
    return true;
  }
  return false;
}

// The epi::Chain<...> type of a fused epilogue (kernels/gemm/sm90/epilogue_ops.cuh), its ops in
// the order of the name's tokens; "" for the plain GEMM (the instance's default).
std::string chain_of(EpilogueConfig const& e) {
  if (!e.fused()) return "";
  std::vector<std::string> ops;
  if (e.row_scale) ops.emplace_back("epi::RowScale");
  if (e.col_scale) ops.emplace_back("epi::ColScale");
  if (e.bias)
    ops.push_back(fmt::format("epi::Bias<Broadcast::{}, {}>", enumerator_of(e.bias_broadcast),
                              names_of(e.bias_type)->cute));
  if (e.pre_activation) ops.emplace_back("epi::PreActivation");
  if (e.activation != Activation::Identity)
    ops.push_back(fmt::format("epi::Act<Activation::{}>", enumerator_of(e.activation)));
  if (e.residual) ops.emplace_back("epi::Residual");
  return fmt::format(", epi::Chain<{}>", fmt::join(ops, ", "));
}

// The Instance (kernels/gemm/sm90/kernel.cuh) of `c`, as named inside warploom::gemm::sm90.
std::string instance_of(KernelConfig const& c) {
  bool const coop = c.design == ConsumerDesign::Cooperative;
  int const cluster = c.cluster_m * c.cluster_n;
  // A narrow tile's width is the shape's third argument (the others keep the source, and so the
  // kernel cache's key, they always had).
  std::string const width = c.tile_n != 0 ? fmt::format(", {}", c.tile_n) : "";
  std::string const shape =
      coop ? fmt::format("CooperativeShape<{}, {}{}>", c.stages, cluster, width)
           : fmt::format("PingpongShape<{}, {}, {}, {}>", c.stages, c.staging_buffers, cluster,
                         has_finish_task(c));
  return fmt::format("Instance<{}, {}, {}, {}, {}, {}, {}, {}{}>",
                     c.dynamic_tiles ? (coop ? "CooperativeDynamic" : "PingpongDynamic")
                     : coop          ? "Cooperative"
                                     : "Pingpong",
                     shape, names_of(c.in)->cute, names_of(c.out)->cute, c.a_k_major, c.b_k_major,
                     c.cluster_m, c.cluster_n, chain_of(c.epilogue));
}

// NVRTC compiles the plain kernel (kernel.cuh) only: grouped.cuh mixes host and device code.
void check_nvrtc_compiles(KernelConfig const& c, std::string_view who) {
  if (c.grouped || c.dynamic_tiles)
    throw std::invalid_argument(std::string(who) + ": " + name_of(c) +
                                " is grouped or takes its tiles from a queue; NVRTC compiles the "
                                "plain kernel (kernel.cuh) only");
}

}  // namespace

// A launcher's parameters (LaunchFn, GroupedLaunchFn in sm90_instances.hpp) as the generated
// definitions and the instance table's declarations both write them, and the call forwarding them.
constexpr std::string_view kLaunchParameters =
    "GemmArguments const& args, GemmTuning const& tuning, SplitKFold const& fold, "
    "cudaStream_t stream";
constexpr std::string_view kLaunchArguments = "args, tuning, fold, stream";
constexpr std::string_view kGroupedLaunchParameters =
    "std::span<GemmArguments const> groups, std::span<int const* const> valid_m, "
    "int const* row_ends, GemmTuning const& tuning, void* workspace, GroupedSteps steps, "
    "cudaStream_t stream";
constexpr std::string_view kGroupedLaunchArguments =
    "groups, valid_m, row_ends, tuning, workspace, steps, stream";

std::string_view jit_entry_of(bool grouped) {
  return grouped ? "warploom_jit_grouped_entry" : "warploom_jit_entry";
}

std::optional<KernelConfig> parse_config(std::string_view name) {
  // in_out_letters_design_sS_bB_MxN[_nW][_grouped[_dynamic]][_epilogue tokens]
  std::vector<std::string_view> const f = split(name, '_');
  if (f.size() < 7 || f[2].size() != 2) return std::nullopt;
  KernelConfig c;
  auto const in = type_named(f[0]);
  auto const out = type_named(f[1]);
  if (!in || !out) return std::nullopt;
  c.in = *in;
  c.out = *out;
  if ((f[2][0] != 't' && f[2][0] != 'n') || (f[2][1] != 't' && f[2][1] != 'n')) return std::nullopt;
  c.a_k_major = f[2][0] == 't';
  c.b_k_major = f[2][1] == 'n';
  if (f[3] == to_string(ConsumerDesign::Cooperative)) {
    c.design = ConsumerDesign::Cooperative;
  } else if (f[3] == to_string(ConsumerDesign::PingPong)) {
    c.design = ConsumerDesign::PingPong;
  } else {
    return std::nullopt;
  }
  auto const stages = number_after(f[4], 's');
  auto const buffers = number_after(f[5], 'b');
  std::vector<std::string_view> const cluster = split(f[6], 'x');
  if (!stages || !buffers || cluster.size() != 2 || cluster[0].size() != 1 ||
      cluster[1].size() != 1)
    return std::nullopt;
  c.stages = *stages;
  c.staging_buffers = *buffers;
  c.cluster_m = cluster[0][0] - '0';
  c.cluster_n = cluster[1][0] - '0';
  std::size_t i = 7;
  if (i < f.size()) {
    if (auto const tile_n = number_after(f[i], 'n')) {
      c.tile_n = *tile_n;
      ++i;
      // A width the design runs, and not its own (name_of's canonical spelling, checked below).
      auto const widths = tile_widths(c.design);
      if (c.tile_n == widths.front() ||
          std::find(widths.begin(), widths.end(), c.tile_n) == widths.end())
        return std::nullopt;
    }
  }
  if (i < f.size() && f[i] == "grouped") {
    c.grouped = true;
    ++i;
    if (i < f.size() && f[i] == "dynamic") {
      c.dynamic_tiles = true;
      ++i;
    }
  }
  // The dynamic tile scheduler exists for 1x1 clusters only.
  if (c.dynamic_tiles && c.cluster_m * c.cluster_n != 1) return std::nullopt;
  for (; i < f.size(); ++i)
    if (!parse_epilogue_token(f[i], c.epilogue)) return std::nullopt;
  // e.g. leading zeros, cluster digits out of range, epilogue tokens out of order or repeated, a
  // bias type that is neither fp32 nor D's
  if (name_of(c) != name) return std::nullopt;
  if (c.epilogue.bias && c.epilogue.bias_type != ScalarType::F32 && c.epilogue.bias_type != c.out)
    return std::nullopt;
  return c;
}

std::string instance_source(std::span<KernelConfig const> configs, bool jit_entry) {
  std::string s =
      "// Generated by warploom (src/gemm/sm90_source.cpp): sm90 TS GEMM instances of\n"
      "// kernels/gemm/sm90/kernel.cuh. Their schedules were verified in their schedule units,\n"
      "// not here: the verifier is not even parsed (warploom/ts/task_manager.hpp).\n"
      "#define WARPLOOM_TS_VERIFIED_IN_SCHEDULE_UNITS\n"
      "#include \"gemm/sm90/cooperative_dynamic.hpp\"\n"
      "#include \"gemm/sm90/pingpong_dynamic.hpp\"\n"
      "#include \"gemm/sm90/grouped.cuh\"\n"
      "#include \"gemm/sm90/launch.cuh\"\n"
      "#include \"sm90_instances.hpp\"\n\n"
      "namespace warploom::gemm::sm90 {\n";
  for (KernelConfig const& c : configs) {
    std::string const instance = instance_of(c);
    s += c.grouped ? fmt::format("\nvoid {}({}) {{\n  launch_ts_grouped_gemm<{}>({});\n}}\n",
                                 function_of(c), kGroupedLaunchParameters, instance,
                                 kGroupedLaunchArguments)
                   : fmt::format("\nvoid {}({}) {{\n  launch_ts_gemm<{}>({});\n}}\n",
                                 function_of(c), kLaunchParameters, instance, kLaunchArguments);
  }
  s += "\n}  // namespace warploom::gemm::sm90\n";
  if (jit_entry && !configs.empty()) {
    bool const grouped = configs.front().grouped;
    s += fmt::format(
        "\nextern \"C\" warploom::gemm::sm90::{} {}() {{\n"
        "  return &warploom::gemm::sm90::{};\n}}\n",
        grouped ? "GroupedLaunchFn" : "LaunchFn", jit_entry_of(grouped),
        function_of(configs.front()));
  }
  return s;
}

NvrtcKernelSource nvrtc_kernel_source(KernelConfig const& c,
                                      std::span<std::size_t const> params_layout) {
  check_nvrtc_compiles(c, "nvrtc_kernel_source");
  std::string const check =
      params_layout.empty()
          ? std::string()
          : fmt::format(
                "static_assert(params_layout<I::Params>() == std::array<std::size_t, {}>{{{}}},\n"
                "              \"the kernel's Params are not laid out as the launcher's "
                "(params_layout, kernels/gemm/sm90/config.cuh)\");\n",
                params_layout.size(), fmt::join(params_layout, ", "));
  return {
      .source = fmt::format(
          "// Generated by warploom (src/gemm/sm90_source.cpp): the kernel of {} for NVRTC.\n"
          "// Its schedule was verified in its schedule unit. Its Params are written by a\n"
          "// launcher another compiler compiled: {} layout of them, which {}.\n"
          "#define WARPLOOM_TS_VERIFIED_IN_SCHEDULE_UNITS\n"
          "#include \"gemm/sm90/kernel.cuh\"\n\n"
          "namespace warploom::gemm::sm90::nvrtc {{\n"
          "using I = {};\n{}"
          "}}  // namespace warploom::gemm::sm90::nvrtc\n\n"
          "extern \"C\" __device__ decltype(warploom::gemm::sm90::params_layout<\n"
          "    warploom::gemm::sm90::nvrtc::I::Params>()) const {} =\n"
          "    warploom::gemm::sm90::params_layout<warploom::gemm::sm90::nvrtc::I::Params>();\n",
          name_of(c),
          params_layout.empty() ? "the cubin holds this compiler's" : "the array below is the",
          params_layout.empty() ? "the loader compares with the launcher's"
                                : "this compile asserts",
          instance_of(c), check, kParamsLayoutSymbol),
      .kernel = "warploom::gemm::sm90::ts_gemm_kernel<warploom::gemm::sm90::nvrtc::I>"};
}

std::string nvrtc_launcher_source(KernelConfig const& c) {
  check_nvrtc_compiles(c, "nvrtc_launcher_source");
  return fmt::format(
      "// Generated by warploom (src/gemm/sm90_source.cpp): the launcher of {0}, for the host\n"
      "// compiler alone; its kernel, compiled by NVRTC, comes as a cubin file ({1}), loaded at\n"
      "// the first launch.\n"
      "#define WARPLOOM_TS_VERIFIED_IN_SCHEDULE_UNITS\n"
      "#include <algorithm>\n#include <cstddef>\n\n"
      "#include \"gemm/sm90/launch.cuh\"\n"
      "#include \"sm90_instances.hpp\"\n"
      "#include \"warploom/ts/loaded_kernel.hpp\"\n\n"
      "namespace warploom::gemm::sm90 {{\n"
      "namespace {{\n"
      "using I = {2};\n"
      "ts::LoadedKernel<I::Params> kernel;\n"
      "}}  // namespace\n\n"
      "void {3}({4}) {{\n  launch_ts_gemm<I>({5}, kernel.get());\n}}\n\n"
      "}}  // namespace warploom::gemm::sm90\n\n"
      "extern \"C\" warploom::gemm::sm90::LaunchFn {6}() {{\n"
      "  return &warploom::gemm::sm90::{3};\n}}\n"
      "extern \"C\" void {1}(char const* cubin_path) {{\n"
      "  warploom::gemm::sm90::kernel.set(cubin_path);\n}}\n"
      "extern \"C\" std::size_t {7}(std::size_t* out, std::size_t capacity) {{\n"
      "  auto const layout = "
      "warploom::gemm::sm90::params_layout<warploom::gemm::sm90::I::Params>();\n"
      "  std::copy_n(layout.begin(), std::min(capacity, layout.size()), out);\n"
      "  return layout.size();\n}}\n",
      name_of(c), kJitSetKernel, instance_of(c), function_of(c), kLaunchParameters,
      kLaunchArguments, jit_entry_of(false), kJitParamsLayout);
}

std::string instance_table_source(std::span<KernelConfig const> configs) {
  std::string decls, entries;
  for (KernelConfig const& c : configs) {
    decls += fmt::format("void {}({});\n", function_of(c),
                         c.grouped ? kGroupedLaunchParameters : kLaunchParameters);
    EpilogueConfig const& e = c.epilogue;
    std::string const epilogue =
        !e.fused() && !c.grouped
            ? ""
            : fmt::format(", {{{}, {}, {}, Broadcast::{}, ScalarType::{}, {}, Activation::{}, {}}}",
                          e.row_scale, e.col_scale, e.bias, enumerator_of(e.bias_broadcast),
                          names_of(e.bias_type)->enumerator, e.pre_activation,
                          enumerator_of(e.activation), e.residual);
    entries += fmt::format(
        "      {{{{ScalarType::{}, ScalarType::{}, {}, {}, ConsumerDesign::{}, {}, {}, {}, "
        "{}, {}{}{}}}, "
        "{{{}&{}}}}},\n",
        names_of(c.in)->enumerator, names_of(c.out)->enumerator, c.a_k_major, c.b_k_major,
        c.design == ConsumerDesign::Cooperative ? "Cooperative" : "PingPong", c.stages,
        c.staging_buffers, c.cluster_m, c.cluster_n, c.tile_n, epilogue,
        c.grouped ? (c.dynamic_tiles ? ", true, true" : ", true") : "",
        c.grouped ? "nullptr, " : "", function_of(c));
  }
  return fmt::format(
      "// Generated by warploom (src/gemm/sm90_source.cpp): the sm90 TS GEMM instances this\n"
      "// build compiled ({}).\n"
      "#include <array>\n#include <span>\n\n#include \"sm90_instances.hpp\"\n\n"
      "namespace warploom::gemm::sm90 {{\n\n{}\n"
      "std::span<PrebuiltInstance const> prebuilt_instances() {{\n"
      "  static std::array<PrebuiltInstance, {}> const instances{{{{\n{}  }}}};\n"
      "  return instances;\n}}\n\n}}  // namespace warploom::gemm::sm90\n",
      configs.size(), decls, configs.size(), entries);
}
}  // namespace warploom::gemm::sm90
