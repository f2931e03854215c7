// bench/gemm_plans.cpp
#include "gemm_plans.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bias_activation.hpp"
#include "blas_gemm.hpp"
#include "cutlass_sm90_gemm.hpp"
#include "gemm_operands.hpp"
#include "gemm_stage_variants.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/ops/gemm.hpp"

namespace warploom::bench {
namespace {

namespace wg = warploom::gemm;
namespace h = warploom::harness;

// Enqueues one GEMM on `args` at tuning point `tuning`.
using GemmLaunch = std::function<void(wg::GemmArguments const&, h::Tuning const&, cudaStream_t)>;

// One GEMM contender, as the family's providers are built from it.
struct GemmContender {
  std::string name, description;
  // Throws std::invalid_argument, naming the argument and the rule, for a problem it does not run
  // (`args` carries placeholder addresses: nothing is allocated yet).
  std::function<void(wg::GemmArguments const& args)> require;
  // The launcher, made once the first operand set exists (cuBLASLt plans on it).
  std::function<GemmLaunch(wg::GemmArguments const& first)> bind;
  // The tuning space (default: the contender's one configuration).
  std::function<std::vector<h::Tuning>(GemmProblem const&)> space = nullptr;
  // What it computes for the problem's arguments, as the reference checks it (default: the
  // problem itself; cuBLASLt's GELU is the tanh form, the plain GEMM has no epilogue).
  std::function<wg::GemmArguments(wg::GemmArguments const&)> computes = nullptr;
};

// Rows of D compared with the reference at each end of D (the whole of a large D would take the
// float64 reference minutes; the GPU tests check every element).
constexpr int kCheckedRows = 128;

class GemmPlan final : public h::KernelPlan {
 public:
  GemmPlan(GemmProblem problem, GemmContender const& contender)
      : problem_(problem), contender_(contender) {}

  h::Work work() const override {
    double const m = problem_.m, n = problem_.n, k = problem_.k;
    double const in = wg::size_of(problem_.type), out = wg::size_of(output_type(problem_.type));
    double const bias = problem_.bias ? n * out : 0.0;
    return {.flops = 2.0 * m * n * k, .bytes = (m * k + k * n) * in + m * n * out + bias};
  }
  std::size_t bytes_per_input_set() const override { return GemmOperands::bytes(problem_); }
  std::vector<h::Tuning> tuning_space() const override {
    return contender_.space ? contender_.space(problem_) : std::vector<h::Tuning>{{}};
  }

  void prepare(int input_sets, std::uint64_t seed) override {
    sets_.clear();
    if (is_fp8(problem_.type) && !scales_) scales_.emplace();
    for (int i = 0; i < input_sets; ++i)
      sets_.emplace_back(problem_, seed * 1000 + static_cast<std::uint64_t>(i),
                         scales_ ? &*scales_ : nullptr);
    launch_ = contender_.bind(sets_.at(0).args());
  }

  void run(int input_set, h::Tuning const& tuning, cudaStream_t stream) override {
    launch_(sets_.at(input_set).args(), tuning, stream);
  }

  h::CheckResult check(h::Tuning const& tuning) override {
    GemmOperands const& set = sets_.at(0);
    testing::poison(set.d(), set.d_bytes());
    run(0, tuning, nullptr);
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    int const rows = std::min(problem_.m, kCheckedRows);
    wg::GemmArguments const want =
        contender_.computes ? contender_.computes(set.args()) : set.args();
    double const error = std::max(max_relative_error(want, 0, rows),
                                  max_relative_error(want, problem_.m - rows, rows));
    double const tolerance = error_tolerance(problem_.type);
    char detail[160];
    std::snprintf(detail, sizeof detail,
                  "max relative error %.2e on D's first and last %d rows (tolerance %.0e)", error,
                  rows, tolerance);
    return {error <= tolerance, detail};
  }

 private:
  GemmProblem problem_;
  GemmContender const& contender_;
  std::optional<Fp8Scales> scales_;
  std::vector<GemmOperands> sets_;
  GemmLaunch launch_;
};

int extent(harness::Problem const& p, int i, char const* name) {
  std::int64_t const e = p.extents.at(i);
  if (e < 1 || e > std::numeric_limits<int>::max())
    throw std::invalid_argument(std::string(name) + " = " + std::to_string(e) +
                                " must be in [1, 2^31 - 1]");
  return static_cast<int>(e);
}

GemmProblem gemm_problem(h::Problem const& p) {
  if (p.extents.size() != 3) throw std::invalid_argument("gemm: a problem is m x n x k");
  GemmProblem g{.m = extent(p, 0, "m"),
                .n = extent(p, 1, "n"),
                .k = extent(p, 2, "k"),
                .type = parse_input_type(p.parameters.at("dtype"), "--dtype")};
  parse_layout(p.parameters.at("layout"), "--layout", g);
  parse_epilogue(p.parameters.at("epilogue"), "--epilogue", g);
  return g;
}

void require_no_epilogue(std::string_view who, wg::GemmArguments const& args) {
  if (args.epilogue.bias != nullptr || args.epilogue.activation != wg::Activation::Identity)
    throw std::invalid_argument(std::string(who) + ": epilogue: runs the plain GEMM only");
}

void require_epilogue(std::string_view who, wg::GemmArguments const& args) {
  if (args.epilogue.bias == nullptr && args.epilogue.activation == wg::Activation::Identity)
    throw std::invalid_argument(std::string(who) +
                                ": epilogue: none: nothing to compare fusion with");
}

bool parse_positive(std::string const& s, int& out) {
  auto const [end, error] = std::from_chars(s.data(), s.data() + s.size(), out);
  return error == std::errc{} && end == s.data() + s.size() && out > 0;
}

}  // namespace

wg::GemmTuning gemm_tuning(h::Tuning const& t) {
  wg::GemmTuning g;
  for (auto const& [knob, value] : t) {
    if (knob == "design" && (value == "cooperative" || value == "pingpong")) {
      g.design =
          value == "cooperative" ? wg::ConsumerDesign::Cooperative : wg::ConsumerDesign::PingPong;
    } else if (knob == "cluster" && (value == "1x1" || value == "2x1" || value == "1x2")) {
      g.cluster_m = value[0] - '0';
      g.cluster_n = value[2] - '0';
    } else if (int panel = 0; knob == "panel" && parse_positive(value, panel)) {
      g.raster_panel = panel;
    } else if (knob == "tiles" &&
               (value == "static" || value == "dynamic" || value == "stream-k")) {
      g.tile_scheduling = value == "static"    ? wg::TileScheduling::Static
                          : value == "dynamic" ? wg::TileScheduling::Dynamic
                                               : wg::TileScheduling::StreamK;
    } else if (int slices = 0; knob == "split" && parse_positive(value, slices)) {
      g.split_k = slices;
    } else if (knob == "reduction" && (value == "in-kernel" || value == "separate-kernel")) {
      g.split_k_reduction = value == "in-kernel" ? wg::SplitKReduction::InKernel
                                                 : wg::SplitKReduction::SeparateKernel;
    } else if (int width = 0; knob == "tile_n" && parse_positive(value, width)) {
      g.tile_n = width;
    } else if (knob == "variant") {
      auto const v = std::find_if(std::begin(kStageVariants), std::end(kStageVariants),
                                  [&](StageVariant const& s) { return s.name == value; });
      if (v == std::end(kStageVariants))
        throw std::invalid_argument("tuning: no stage variant `" + value + "`");
      g = v->applied_to(g);
    } else {
      throw std::invalid_argument("tuning: `" + knob + "=" + value +
                                  "` is not a knob of gemm() (design=cooperative|pingpong, "
                                  "cluster=1x1|2x1|1x2, panel=N, split=S, "
                                  "reduction=in-kernel|separate-kernel, tile_n=256|128|64, "
                                  "tiles=static|dynamic|stream-k, variant=NAME)");
    }
  }
  return g;
}

namespace {

std::vector<h::Tuning> warploom_space(GemmProblem const& p) {
  std::vector<h::Tuning> space = {{}};
  if (wg::selected_kernel(placeholder_arguments(p)) != wg::GemmKernel::TensorCore) return space;
  for (char const* design : {"cooperative", "pingpong"})
    for (char const* cluster : {"1x1", "2x1"})
      space.push_back({{"design", design}, {"cluster", cluster}});
  // Stream-K on the cooperative design (its tiles past the last whole wave cut along K).
  space.push_back({{"tiles", "stream-k"}});
  // The raster panel (default 8 tile rows) against none and a taller one.
  for (char const* panel : {"1", "16"}) space.push_back({{"panel", panel}});
  // Split-K (the plain epilogue only): never (against Auto's choice), and a few slice counts.
  bool const splits = !p.bias && p.activation == wg::Activation::Identity;
  if (splits) {
    for (char const* slices : {"1", "2", "4", "8"}) space.push_back({{"split", slices}});
    // Auto's split, and two and four slices, with each reduction named: the slices added in the
    // GEMM by each tile's last slice, or in a kernel after it (`--points reduction` times them
    // side by side).
    for (char const* where : {"in-kernel", "separate-kernel"}) {
      space.push_back({{"reduction", where}});
      for (char const* slices : {"2", "4"})
        space.push_back({{"split", slices}, {"reduction", where}});
    }
  }
  // The cooperative design's tile widths, alone (Auto's split) and with each slice count.
  for (char const* width : {"256", "128", "64"}) {
    space.push_back({{"tile_n", width}});
    if (splits)
      for (char const* slices : {"1", "2", "4", "8", "16"})
        space.push_back({{"tile_n", width}, {"split", slices}});
  }
  bool const variants_apply = p.type == wg::ScalarType::BF16 &&
                              p.a_layout == wg::MatrixLayout::RowMajor &&
                              p.b_layout == wg::MatrixLayout::ColMajor;
  if (variants_apply)
    for (StageVariant const& v : kStageVariants)
      space.push_back({{"variant", std::string(v.name)}});
  return space;
}

GemmContender warploom_contender(std::string name, std::string description, wg::GemmKernel kernel) {
  return {std::move(name), std::move(description),
          [kernel](wg::GemmArguments const& args) { wg::check_arguments(args, kernel); },
          [kernel](wg::GemmArguments const&) -> GemmLaunch {
            return [kernel](wg::GemmArguments const& a, h::Tuning const& t, cudaStream_t s) {
              wg::GemmTuning tuning = gemm_tuning(t);
              tuning.kernel = kernel;
              wg::gemm(a, s, tuning);
            };
          },
          kernel == wg::GemmKernel::Auto ? warploom_space : nullptr};
}

// gemm() with one consumer design forced (the problem's epilogue included): what Auto's choice
// between them (gemm.cpp, selected_design) is measured against.
GemmContender warploom_design_contender(std::string name, wg::ConsumerDesign design,
                                        wg::TileScheduling scheduling = wg::TileScheduling::Auto) {
  std::string description = std::string("gemm() with the ") + std::string(wg::to_string(design)) +
                            " design forced (Auto picks one by shape and epilogue)";
  if (scheduling == wg::TileScheduling::StreamK)
    description += ", stream-K (its workspace from the library's pool)";
  return {
      std::move(name), std::move(description),
      [](wg::GemmArguments const& args) { wg::check_arguments(args, wg::GemmKernel::TensorCore); },
      [design, scheduling](wg::GemmArguments const&) -> GemmLaunch {
        return
            [design, scheduling](wg::GemmArguments const& a, h::Tuning const& t, cudaStream_t s) {
              wg::GemmTuning tuning = gemm_tuning(t);
              tuning.kernel = wg::GemmKernel::TensorCore;
              tuning.design = design;
              if (scheduling != wg::TileScheduling::Auto) tuning.tile_scheduling = scheduling;
              wg::gemm(a, s, tuning);
            };
      }};
}

// Ours without the epilogue: the plain GEMM's time, what the fused epilogue costs on top of it (it
// solves another problem: checked against the reference without the epilogue).
GemmContender warploom_plain_contender() {
  return {"warploom_plain",
          "gemm() without the problem's epilogue: the plain GEMM, for the cost of fusing",
          [](wg::GemmArguments const& args) {
            require_epilogue("warploom_plain", args);
            wg::check_arguments(without_epilogue(args));
          },
          [](wg::GemmArguments const&) -> GemmLaunch {
            return [](wg::GemmArguments const& a, h::Tuning const& t, cudaStream_t s) {
              wg::gemm(without_epilogue(a), s, gemm_tuning(t));
            };
          },
          nullptr,
          [](wg::GemmArguments const& a) { return without_epilogue(a); }};
}

// The unfused chain: a GEMM (`gemm`), then bias and activation in a second kernel reading and
// writing D again (bias_activation.hpp), as a framework without fused epilogues runs a Linear
// layer and its activation.
GemmLaunch then_bias_activation(GemmLaunch gemm) {
  return [gemm = std::move(gemm)](wg::GemmArguments const& a, h::Tuning const& t, cudaStream_t s) {
    gemm(without_epilogue(a), t, s);
    if (a.epilogue.bias != nullptr) bias_activation(a, s);
  };
}

// Ours through the plan API (warploom/ops/gemm.hpp), compiled once, run on tensor views: what the
// plan adds to gemm() (checks, the views' mapping) on the same kernel.
GemmContender warploom_plan_contender() {
  struct Planned {
    ops::Gemm plan;
    static ops::TensorView view(wg::Matrix const& x, std::int64_t rows, std::int64_t cols) {
      bool const row_major = x.layout == wg::MatrixLayout::RowMajor;
      return {.data = const_cast<void*>(x.data),
              .dtype = x.type,
              .rows = rows,
              .cols = cols,
              .row_stride = row_major ? x.ld : 1,
              .col_stride = row_major ? 1 : x.ld};
    }
    void run(wg::GemmArguments const& a, cudaStream_t s) {
      plan.set_epilogue(a.epilogue);  // each operand set has its own bias
      plan.run(view(a.a, a.m, a.k), view(a.b, a.k, a.n), {},
               view({a.d, a.d_type, a.d_layout, a.ldd}, a.m, a.n), a.alpha, a.beta, s);
    }
  };
  return {"warploom_plan",
          "ops::Gemm: the plan API on tensor views, compiled once (the default description)",
          [](wg::GemmArguments const& args) {
            if (is_fp8(args.a.type))
              throw std::invalid_argument("warploom_plan: dtype: fp8 plans need input scales");
            wg::check_arguments(args);
          },
          [](wg::GemmArguments const& first) -> GemmLaunch {
            auto planned = std::make_shared<Planned>(
                Planned{ops::Gemm(ops::GemmOptions{.element_a = first.a.type,
                                                   .element_b = first.b.type,
                                                   .element_d = first.d_type,
                                                   .layout_a = first.a.layout,
                                                   .layout_b = first.b.layout,
                                                   .layout_d = first.d_layout})});
            planned->plan.set_epilogue(first.epilogue);
            planned->plan.compile();
            return [planned](wg::GemmArguments const& a, h::Tuning const& t, cudaStream_t s) {
              if (!t.empty()) throw std::invalid_argument("tuning: this provider has no knobs");
              planned->run(a, s);
            };
          }};
}

// A launcher of a library object that takes no tuning.
template <class Library>
GemmLaunch untuned(std::shared_ptr<Library> library) {
  return [library](wg::GemmArguments const& a, h::Tuning const& t, cudaStream_t s) {
    if (!t.empty()) throw std::invalid_argument("tuning: this provider has no knobs");
    library->run(a, s);
  };
}

GemmContender cublas_contender() {
  return {"cublas",
          "cublasGemmEx, CUBLAS_COMPUTE_32F, default algorithm (16-bit inputs); with an epilogue, "
          "then a bias+activation kernel (the unfused chain)",
          [](wg::GemmArguments const& args) {
            if (std::string why = CublasGemm::unsupported(args); !why.empty())
              throw std::invalid_argument("cublas: " + why);
          },
          [](wg::GemmArguments const&) {
            return then_bias_activation(untuned(std::make_shared<CublasGemm>()));
          }};
}

GemmContender cublaslt_contender() {
  return {
      "cublaslt",
      "cublasLtMatmul, the heuristic's first candidate that runs, 32 MiB workspace (fp8: "
      "scale pointers, fast accumulation; a bias with ReLU or GELU: cuBLASLt's fused epilogue)",
      [](wg::GemmArguments const& args) {
        if (args.a.type == wg::ScalarType::E5M2)
          throw std::invalid_argument("cublaslt: dtype = e5m2: cuBLASLt has no e5m2 x e5m2 kernel");
        if (is_fp8(args.a.type) && (args.a.layout != wg::MatrixLayout::RowMajor ||
                                    args.b.layout != wg::MatrixLayout::ColMajor))
          throw std::invalid_argument("cublaslt: layout: cuBLASLt's fp8 kernels take tn only");
        if (std::string why = CublasLtGemm::unsupported_epilogue(args); !why.empty())
          throw std::invalid_argument("cublaslt: epilogue: " + why);
      },
      [](wg::GemmArguments const& first) {
        auto lt = std::make_shared<CublasLtGemm>();
        lt->plan(first);
        return untuned(lt);
      },
      nullptr,
      [](wg::GemmArguments const& a) { return CublasLtGemm::computed(a); }};
}

GemmContender cutlass_contender(std::string name, CutlassSchedule schedule) {
  return {std::move(name),
          "CUTLASS's sm90 CollectiveBuilder GEMM, " + std::string(to_string(schedule)),
          [schedule](wg::GemmArguments const& args) {
            require_no_epilogue("cutlass", args);
            if (std::string why = CutlassSm90Gemm(schedule).unsupported(args); !why.empty())
              throw std::invalid_argument(why);
          },
          [schedule](wg::GemmArguments const&) {
            return untuned(std::make_shared<CutlassSm90Gemm>(schedule));
          }};
}

// Every contender, in the order they run; they outlive the plans made from them.
std::vector<GemmContender> const& contenders() {
  static std::vector<GemmContender> const all = {
      warploom_contender("warploom",
                         "gemm(): the sm90 TS GEMM (Auto design), off its rules the SIMT TS GEMM",
                         wg::GemmKernel::Auto),
      warploom_contender("warploom_simt", "gemm() with GemmKernel::Simt: the SIMT TS GEMM",
                         wg::GemmKernel::Simt),
      warploom_plan_contender(),
      warploom_design_contender("warploom_coop", wg::ConsumerDesign::Cooperative),
      warploom_design_contender("warploom_pp", wg::ConsumerDesign::PingPong),
      warploom_design_contender("warploom_sk", wg::ConsumerDesign::Cooperative,
                                wg::TileScheduling::StreamK),
      warploom_plain_contender(),
      {"warploom_unfused",
       "gemm() without the epilogue, then a bias+activation kernel (the unfused chain on ours)",
       [](wg::GemmArguments const& args) {
         require_epilogue("warploom_unfused", args);
         wg::check_arguments(without_epilogue(args));
       },
       [](wg::GemmArguments const&) {
         return then_bias_activation([](wg::GemmArguments const& a, h::Tuning const& t,
                                        cudaStream_t s) { wg::gemm(a, s, gemm_tuning(t)); });
       }},
      cublas_contender(),
      cublaslt_contender(),
      cutlass_contender("cutlass", CutlassSchedule::Cooperative),
      cutlass_contender("cutlass_pp", CutlassSchedule::Pingpong),
  };
  return all;
}

GemmContender const& contender(std::string_view name) {
  auto const& all = contenders();
  return *std::find_if(all.begin(), all.end(),
                       [&](GemmContender const& c) { return c.name == name; });
}

std::unique_ptr<h::KernelPlan> make_plan(GemmContender const& c, GemmProblem const& problem) {
  c.require(placeholder_arguments(problem));
  return std::make_unique<GemmPlan>(problem, c);
}

// cuBLASLt's 8192^3 GEMM of the problem's input type; fp8 as e4m3 (cuBLASLt has no e5m2 x e5m2
// kernel, and the tensor cores run both fp8 types at one rate).
GemmProblem ceiling_problem(h::Problem const& p) {
  GemmProblem g{.m = 8192,
                .n = 8192,
                .k = 8192,
                .type = parse_input_type(p.parameters.at("dtype"), "--dtype")};
  if (g.type == wg::ScalarType::E5M2) g.type = wg::ScalarType::E4M3;
  return g;
}

}  // namespace

harness::PlanFamily gemm_plan_family() {
  h::PlanFamily family{
      .name = "gemm",
      .description = "D = A.B on M x N x K (batch 1, D row-major; fp8: D bf16, per-tensor scales)",
      .extent_names = {"m", "n", "k"},
      .providers = {},
      .parameters = {{"dtype",
                      "input type (D: the input type; bf16 for fp8)",
                      {"bf16", "fp16", "e4m3", "e5m2"}},
                     {"layout",
                      "BLAS layout letters of A and B (tn: A row-major, B column-major)",
                      {"tn", "nn", "nt", "tt"}},
                     {"epilogue",
                      "fused after the GEMM: a bias per column of D (D's type) and an activation",
                      epilogue_names()}},
      .compute_ceiling = h::ComputeCeiling{
          "cuBLASLt, 8192x8192x8192, layout tn; e4m3 for e5m2",
          [](h::Problem const& p) { return std::string(wg::to_string(ceiling_problem(p).type)); },
          [](h::Problem const& p) { return make_plan(contender("cublaslt"), ceiling_problem(p)); }},
      .report_flops = true};
  for (GemmContender const& c : contenders())
    family.providers.push_back(
        {c.name, c.description, [&c](h::Problem const& p) { return make_plan(c, gemm_problem(p)); },
         c.name != "warploom_simt" && c.name != "warploom_plan" && c.name != "warploom_coop" &&
             c.name != "warploom_pp" && c.name != "warploom_sk",
         /*peer=*/is_peer(c.name)});
  return family;
}

}  // namespace warploom::bench
