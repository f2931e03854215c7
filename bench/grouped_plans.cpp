// bench/grouped_plans.cpp
#include "grouped_plans.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "blas_gemm.hpp"
#include "cutlass_sm90_grouped_gemm.hpp"
#include "gemm_operands.hpp"
#include "gemm_plans.hpp"
#include "gemm_stage_variants.hpp"
#include "seed_problems.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/harness/python_random.hpp"
#include "warploom/prepared_grouped_gemm.hpp"

namespace warploom::bench {
namespace {

namespace wg = warploom::gemm;
namespace h = warploom::harness;

// Every group of one problem, in order.
using Groups = std::vector<GemmProblem>;

// The operand sets of a plan: every group's arguments, per set.
using Sets = std::vector<std::vector<wg::GemmArguments>>;
// Enqueues every group of operand set `set` (warploom's contenders under `tuning`).
using GroupedLaunch = std::function<void(int set, wg::GemmTuning const& tuning, cudaStream_t)>;

struct GroupedContender {
  std::string name, description;
  // The launcher of `sets` (which outlive it), made once they exist.
  std::function<GroupedLaunch(Sets const& sets)> bind;
  // What --autotune tries (the default tuning alone when empty).
  std::vector<h::Tuning> space = {};
  // Why it cannot run these groups ("" when it can), asked before anything is allocated: the
  // provider is then skipped, naming the reason.
  std::function<std::string(Groups const&)> unsupported = nullptr;
};

// The grouped kernel's tunings: each consumer design, and the stage variants that trade ring
// stages for a second staging buffer (short-K groups spend their time in the epilogue), and the
// raster panel (tile rows walked down a column before the next: which A and B tiles the CTAs
// running at one time share in L2; an MoE layer's 4096-wide B is 32 MiB per expert), and the
// tile walk (Auto's default takes the dynamic scheduler for 16-bit plain groups: the static walk
// with its own design choice, and each design on it, beside it; ping-pong over the queue, pairs of
// tiles, at its two verified shapes).
std::vector<h::Tuning> grouped_space() {
  std::vector<h::Tuning> space = {{},
                                  {{"tiles", "static"}},
                                  {{"design", "cooperative"}, {"tiles", "static"}},
                                  {{"design", "pingpong"}},
                                  {{"tiles", "dynamic"}},
                                  {{"design", "pingpong"}, {"tiles", "dynamic"}}};
  for (StageVariant const& v : kStageVariants) space.push_back({{"variant", std::string(v.name)}});
  space.push_back({{"variant", "pp_s5b2"}, {"tiles", "dynamic"}});
  for (char const* panel : {"1", "2", "4", "16", "32"}) space.push_back({{"panel", panel}});
  return space;
}

std::vector<GroupedContender> const& contenders() {
  static std::vector<GroupedContender> const c = {
      {"warploom", "gemm::grouped_gemm: every group in one launch of the sm90 grouped kernel",
       [](Sets const& sets) {
         return [&sets](int set, wg::GemmTuning const& tuning, cudaStream_t s) {
           wg::grouped_gemm(sets[set].data(), sets[set].size(), s, tuning);
         };
       },
       grouped_space()},
      {"warploom_workspace",
       "gemm::grouped_gemm with a workspace the caller allocated once (cuBLASLt's way): a "
       "captured graph holds no allocation node",
       [](Sets const& sets) {
         std::size_t most = 0;
         for (auto const& set : sets) most = std::max(most, set.size());
         auto workspace =
             std::make_shared<testing::DeviceBuffer>(wg::grouped_gemm_workspace_bytes(most));
         return [&sets, workspace](int set, wg::GemmTuning const& tuning, cudaStream_t s) {
           wg::grouped_gemm(sets[set].data(), sets[set].size(), s, tuning, workspace->get(),
                            workspace->bytes());
         };
       },
       grouped_space()},
      {"warploom_prepared",
       "gemm::prepare_grouped_gemm once per operand set, then PreparedGroupedGemm::run: the "
       "grouped kernel alone per call (no setup kernel, no per-group host work); Auto's tuning",
       [](Sets const& sets) {
         auto prepared = std::make_shared<std::vector<wg::PreparedGroupedGemm>>();
         for (auto const& set : sets)
           prepared->push_back(wg::prepare_grouped_gemm(set.data(), set.size()));
         return [prepared](int set, wg::GemmTuning const&, cudaStream_t s) {
           (*prepared)[set].run(s);
         };
       }},
      {"warploom_loop", "gemm() per group, in order on the stream",
       [](Sets const& sets) {
         return [&sets](int set, wg::GemmTuning const& tuning, cudaStream_t s) {
           for (wg::GemmArguments const& a : sets[set]) wg::gemm(a, s, tuning);
         };
       }},
      {"cublas", "cublasGemmEx per group (CUBLAS_COMPUTE_32F): the loop a framework runs",
       [](Sets const& sets) {
         auto blas = std::make_shared<CublasGemm>();
         return [&sets, blas](int set, wg::GemmTuning const&, cudaStream_t s) {
           for (wg::GemmArguments const& a : sets[set]) blas->run(a, s);
         };
       }},
      {"cublas_grouped",
       "cublasGemmGroupedBatchedEx: every group in one cuBLAS call (pointer arrays uploaded once)",
       [](Sets const& sets) {
         auto blas = std::make_shared<CublasGroupedGemm>();
         blas->bind(sets);
         return [blas](int set, wg::GemmTuning const&, cudaStream_t s) { blas->run(set, s); };
       }},
      {"cutlass_grouped",
       "CUTLASS's sm90 pointer-array grouped GEMM (its example 57; ping-pong 128x128x64): every "
       "group in one launch, device arrays uploaded once",
       [](Sets const& sets) {
         auto cutlass = std::make_shared<CutlassSm90GroupedGemm>();
         cutlass->bind(sets);
         return [cutlass](int set, wg::GemmTuning const&, cudaStream_t s) { cutlass->run(set, s); };
       },
       {},
       [](Groups const& groups) {
         std::vector<wg::GemmArguments> args;
         for (GemmProblem const& g : groups) args.push_back(placeholder_arguments(g));
         return CutlassSm90GroupedGemm().unsupported(args);
       }},
  };
  return c;
}

// Rows of each group's D compared with the float64 reference at each end.
constexpr int kCheckedRows = 128;

class GroupedPlan final : public h::KernelPlan {
 public:
  GroupedPlan(Groups groups, GroupedContender const& contender)
      : groups_(std::move(groups)), contender_(contender) {}

  h::Work work() const override {
    h::Work w{.flops = 0.0, .bytes = 0.0};
    for (GemmProblem const& g : groups_) {
      double const m = g.m, n = g.n, k = g.k;
      double const in = wg::size_of(g.type), out = wg::size_of(output_type(g.type));
      w.flops += 2.0 * m * n * k;
      w.bytes += (m * k + k * n) * in + m * n * out;
    }
    return w;
  }
  std::size_t bytes_per_input_set() const override {
    std::size_t bytes = 0;
    for (GemmProblem const& g : groups_) bytes += GemmOperands::bytes(g);
    return bytes;
  }

  void prepare(int input_sets, std::uint64_t seed) override {
    sets_.clear();
    args_.clear();
    for (int i = 0; i < input_sets; ++i) {
      std::vector<GemmOperands> set;
      std::vector<wg::GemmArguments> args;
      set.reserve(groups_.size());
      for (std::size_t j = 0; j < groups_.size(); ++j) {
        set.emplace_back(groups_[j], (seed * 1000 + static_cast<std::uint64_t>(i)) * 4096 + j,
                         nullptr);
        args.push_back(set.back().args());
      }
      sets_.push_back(std::move(set));
      args_.push_back(std::move(args));
    }
    launch_ = contender_.bind(args_);
  }

  std::vector<h::Tuning> tuning_space() const override {
    return contender_.space.empty() ? std::vector<h::Tuning>{{}} : contender_.space;
  }

  void run(int input_set, h::Tuning const& tuning, cudaStream_t stream) override {
    launch_(input_set, gemm_tuning(tuning), stream);
  }

  h::CheckResult check(h::Tuning const& tuning) override {
    for (GemmOperands const& g : sets_.at(0)) testing::poison(g.d(), g.d_bytes());
    run(0, tuning, nullptr);
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    double worst = 0.0;
    std::size_t worst_group = 0;
    for (std::size_t j = 0; j < groups_.size(); ++j) {
      wg::GemmArguments const& a = args_.at(0)[j];
      int const rows = std::min(a.m, kCheckedRows);
      double const e =
          std::max(max_relative_error(a, 0, rows), max_relative_error(a, a.m - rows, rows));
      if (j == 0 || e > worst) {
        worst = e;
        worst_group = j;
      }
    }
    double const tolerance = error_tolerance(groups_.front().type);
    char detail[200];
    std::snprintf(detail, sizeof detail,
                  "max relative error %.2e (group %zu of %zu) on each group's first and last %d "
                  "rows (tolerance %.0e)",
                  worst, worst_group, groups_.size(), kCheckedRows, tolerance);
    return {worst <= tolerance, detail};
  }

 private:
  Groups groups_;
  GroupedContender const& contender_;
  std::vector<std::vector<GemmOperands>> sets_;
  Sets args_;
  GroupedLaunch launch_;
};

// The groups of a `groups x size` problem under --mix, --dtype and --layout.
Groups groups_of(h::Problem const& p) {
  if (p.extents.size() != 2) throw std::invalid_argument("grouped: a problem is groups x size");
  std::int64_t const count = p.extents[0], size = p.extents[1];
  if (count < 1 || count > 4096)
    throw std::invalid_argument("grouped: groups = " + std::to_string(count) +
                                " must be in [1, 4096]");
  if (size < 128 || size > 16384)
    throw std::invalid_argument("grouped: size = " + std::to_string(size) +
                                " must be in [128, 16384]");
  GemmProblem base{.type = parse_input_type(p.parameters.at("dtype"), "--dtype")};
  if (is_fp8(base.type))
    throw std::invalid_argument("grouped: --dtype " + p.parameters.at("dtype") +
                                ": the grouped family runs fp16 and bf16");
  parse_layout(p.parameters.at("layout"), "--layout", base);
  Groups groups;
  if (p.parameters.at("mix") == "seed") {
    for (auto const [m, n, k] : seed_problem_extents(count, static_cast<int>(size))) {
      GemmProblem g = base;
      g.m = m;
      g.n = n;
      g.k = k;
      groups.push_back(g);
    }
  } else {
    // random.seed(0); [256 * random.randint(1, 8) for _ in range(count)] (bench/python/grouped.py)
    h::PythonRandom random(0);
    for (std::int64_t i = 0; i < count; ++i) {
      GemmProblem g = base;
      g.m = 256 * static_cast<int>(1 + random.below(8));
      g.n = g.k = static_cast<int>(size);
      groups.push_back(g);
    }
  }
  return groups;
}

}  // namespace

harness::PlanFamily grouped_plan_family() {
  h::PlanFamily family{
      .name = "grouped",
      .description =
          "many GEMMs of their own M, N, K in one call: groups x size (--mix seed: "
          "M, N, K from {128 ... size}; moe: M_i from {256 ... 2048}, N = K = size)",
      .extent_names = {"groups", "size"},
      .providers = {},
      .parameters = {{"dtype", "input and output type", {"fp16", "bf16"}},
                     {"layout",
                      "BLAS layout letters of A and B (tt: every operand row-major, the seed's)",
                      {"tt", "tn"}},
                     {"mix", "how the groups' extents are drawn", {"seed", "moe"}}},
      // The gemm family's: cuBLASLt's 8192^3 GEMM of the input type.
      .compute_ceiling = gemm_plan_family().compute_ceiling,
      .report_flops = true};
  for (GroupedContender const& c : contenders())
    family.providers.push_back({c.name, c.description,
                                [&c](h::Problem const& p) {
                                  Groups groups = groups_of(p);
                                  if (c.unsupported)
                                    if (std::string const why = c.unsupported(groups); !why.empty())
                                      throw std::invalid_argument(why);
                                  return std::make_unique<GroupedPlan>(std::move(groups), c);
                                },
                                /*by_default=*/true,
                                /*peer=*/is_peer(c.name)});
  return family;
}

}  // namespace warploom::bench
