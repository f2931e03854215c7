// bench/tutorial_gemm_plans.cpp
#include "tutorial_gemm_plans.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cuda_bf16.h>

#include "blas_gemm.hpp"
#include "gemm_operands.hpp"
#include "half_add.hpp"
#include "half_relu.hpp"
#include "tutorial/fork_gemm_relu.hpp"
#include "tutorial/merge_gemm.hpp"
#include "tutorial/merge_gemm_residual.hpp"
#include "tutorial/split_k_gemm.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/gemm.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::tutorial {
namespace {

namespace wb = warploom::bench;
namespace wg = warploom::gemm;
namespace wt = warploom::testing;
using Bf16 = __nv_bfloat16;
using harness::CheckResult;
using harness::Tuning;

// One run of a contender on an operand set: D = A . B^T of `args` (bf16, "tn", packed), and R =
// max(A, 0) into `r` where the problem has R; or, for a GEMM + residual, D = A . B^T + R with R
// (M x N, packed) read from `r`; else `r` is null. With point `tuning` of its space.
using Launch = std::function<void(wg::GemmArguments const& args, Bf16* r, Tuning const& tuning,
                                  cudaStream_t stream)>;

// What a contender computes besides the bf16 "tn" GEMM D = A . B^T, and so what its plan prepares
// and checks. At most one of relu_output and residual_input: both use the launch's `r`.
struct TnGemmOptions {
  bool relu_output = false;     // R = max(A, 0) (m x k) into `r`, checked bitwise
  bool residual_input = false;  // D = A . B^T + R, a random R (m x n) read from `r`
  bool relu_d = false;          // D = max(A . B^T, 0)
};

// The bf16 "tn" GEMM (A row-major m x k, B stored n x k) and what `options` adds: operand sets
// from the GEMM benchmarks (bench/gemm_operands.hpp), D checked against float64 on its first and
// last 128 rows (with R, the reference's fused residual; with relu_d, the reference's ReLU), R =
// max(A, 0) bitwise.
class TnGemmPlan final : public harness::KernelPlan {
 public:
  TnGemmPlan(int m, int n, int k, TnGemmOptions options, Launch launch, std::vector<Tuning> space)
      : problem_{.m = m, .n = n, .k = k},
        options_(options),
        launch_(std::move(launch)),
        space_(std::move(space)) {}

  harness::Work work() const override {
    return {.flops = 2.0 * problem_.m * problem_.n * problem_.k,
            .bytes = static_cast<double>(bytes_per_input_set())};
  }
  std::size_t bytes_per_input_set() const override {
    return wb::GemmOperands::bytes(problem_) + (has_r() ? r_bytes() : 0);
  }
  std::vector<Tuning> tuning_space() const override { return space_; }

  void prepare(int input_sets, std::uint64_t seed) override {
    sets_.clear();
    r_.clear();
    for (int s = 0; s < input_sets; ++s) {
      sets_.emplace_back(problem_, seed + s, nullptr);
      if (has_r()) r_.emplace_back(r_bytes());
      if (options_.residual_input)
        wt::fill_uniform(r_.back().as<Bf16>(), elements_r(), 5 * (seed + s) + 3);
    }
  }

  void run(int input_set, Tuning const& tuning, cudaStream_t stream) override {
    launch_(sets_.at(input_set).args(), has_r() ? r_.at(input_set).as<Bf16>() : nullptr, tuning,
            stream);
  }

  CheckResult check(Tuning const& tuning) override {
    wb::GemmOperands const& set = sets_.at(0);
    wt::poison(set.d(), set.d_bytes());
    if (options_.relu_output) wt::poison(r_[0].get(), r_bytes());
    run(0, tuning, nullptr);
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    int const rows = std::min(problem_.m, 128);
    wg::GemmArguments reference = set.args();
    if (options_.residual_input)
      reference.epilogue.residual = {.data = r_[0].get(),
                                     .type = wg::ScalarType::BF16,
                                     .layout = wg::MatrixLayout::RowMajor,
                                     .ld = problem_.n};
    if (options_.relu_d) reference.epilogue.activation = wg::Activation::ReLU;
    double const error = std::max(wb::max_relative_error(reference, 0, rows),
                                  wb::max_relative_error(reference, problem_.m - rows, rows));
    if (!(error <= wb::error_tolerance(problem_.type)))
      return {false, "D's max relative error " + std::to_string(error) + " on its first and last " +
                         std::to_string(rows) + " rows"};
    if (options_.relu_output) {
      std::vector<Bf16> const a = download(set.args().a.data, elements_a());
      std::vector<Bf16> const r = download(r_[0].get(), elements_a());
      for (std::size_t e = 0; e < a.size(); ++e) {
        float const x = __bfloat162float(a[e]);
        if (__bfloat16_as_ushort(r[e]) !=
            __bfloat16_as_ushort(__float2bfloat16(x > 0.0f ? x : 0.0f)))
          return {false, "R differs at row " + std::to_string(e / problem_.k) + " col " +
                             std::to_string(e % problem_.k)};
      }
    }
    return {true, "D within " + std::to_string(wb::error_tolerance(problem_.type)) + " of float64" +
                      (options_.relu_output ? ", R bitwise" : "")};
  }

 private:
  bool has_r() const { return options_.relu_output || options_.residual_input; }
  std::size_t elements_a() const { return static_cast<std::size_t>(problem_.m) * problem_.k; }
  // R: max(A, 0), m x k, or the residual, m x n.
  std::size_t elements_r() const {
    return options_.residual_input ? static_cast<std::size_t>(problem_.m) * problem_.n
                                   : elements_a();
  }
  std::size_t r_bytes() const { return elements_r() * sizeof(Bf16); }
  static std::vector<Bf16> download(void const* p, std::size_t count) {
    std::vector<Bf16> h(count);
    WL_CUDA_CHECK(cudaMemcpy(h.data(), p, count * sizeof(Bf16), cudaMemcpyDeviceToHost));
    return h;
  }

  wb::GemmProblem problem_;
  TnGemmOptions options_;
  Launch launch_;
  std::vector<Tuning> space_;
  std::vector<wb::GemmOperands> sets_;
  std::vector<wt::DeviceBuffer> r_;
};

struct Extents {
  int m, n, k;
};

Extents checked_extents(harness::Problem const& p) {
  if (p.extents.size() != 3) throw std::invalid_argument("a problem is three extents, MxNxK");
  for (std::int64_t e : p.extents)
    if (e <= 0 || e > (std::int64_t{1} << 31) - 1)
      throw std::invalid_argument("m, n and k must be in [1, 2^31), got " + std::to_string(e));
  return {static_cast<int>(p.extents[0]), static_cast<int>(p.extents[1]),
          static_cast<int>(p.extents[2])};
}

// A contender for the problem `options` describes (see TnGemmOptions); `make_space(extents)`: its
// tuning space for the problem ({{}} when it has none).
harness::PlanProvider provider(std::string name, std::string description, TnGemmOptions options,
                               Launch launch,
                               std::function<std::vector<Tuning>(Extents)> make_space = {}) {
  return {std::move(name), std::move(description), [=](harness::Problem const& p) {
            Extents const e = checked_extents(p);
            std::vector<Tuning> space = make_space ? make_space(e) : std::vector<Tuning>{{}};
            return std::make_unique<TnGemmPlan>(e.m, e.n, e.k, options, launch, std::move(space));
          }};
}

// The options of each tutorial's problem.
constexpr TnGemmOptions kForkRelu{.relu_output = true};     // fork_gemm_relu: D and R
constexpr TnGemmOptions kResidual{.residual_input = true};  // merge_gemm_residual: D + R
constexpr TnGemmOptions kReluD{.relu_d = true};             // merge_gemm: max(D, 0)
constexpr TnGemmOptions kPlainGemm{};                       // split_k_gemm: D alone

Bf16 const* a_of(wg::GemmArguments const& args) {
  return static_cast<Bf16 const*>(args.a.data);
}
Bf16 const* b_of(wg::GemmArguments const& args) {
  return static_cast<Bf16 const*>(args.b.data);
}
Bf16* d_of(wg::GemmArguments const& args) {
  return static_cast<Bf16*>(args.d);
}

// ---- split_k_gemm -------------------------------------------------------------------------------

// The default split: the largest that cuts K into whole 64-wide steps per CTA, at least four of
// them. Fewer steps leave each CTA too little to hide its fixed costs behind: at 1024 x 16 x 1024
// (ncu, H200, 2026-12-04) split 4 ran in 7.1 us and split 8, two steps a CTA, in 7.6; at K = 4096
// and 8192 split 8 is the fastest (bench/results/tutorial06_split_k_gemm_ncu_splits_*.json).
int default_split(int k) {
  constexpr int kMinStepsPerCta = 4;
  for (int split : {8, 4, 2})
    if (k % (split * kSplitKGemmTileK) == 0 && k / (split * kSplitKGemmTileK) >= kMinStepsPerCta)
      return split;
  return 1;
}

std::vector<Tuning> split_space(Extents e) {
  std::vector<Tuning> space = {Tuning{}};
  for (int split : {1, 2, 4, 8})
    if (e.k % (split * kSplitKGemmTileK) == 0)
      space.push_back({{"split_k", std::to_string(split)}});
  return space;
}

void run_split_k(wg::GemmArguments const& args, Bf16*, Tuning const& tuning, cudaStream_t stream) {
  auto const point = tuning.find("split_k");
  int const split = point == tuning.end() ? default_split(args.k) : std::stoi(point->second);
  split_k_gemm(a_of(args), b_of(args), d_of(args), args.m, args.n, args.k, split, stream);
}

// cuBLAS and cuBLASLt, one handle per provider, made at its first run (a check, never under
// capture); cuBLASLt planned again for each new shape.
Launch cublas() {
  auto handle = std::make_shared<std::optional<wb::CublasGemm>>();
  return [handle](wg::GemmArguments const& args, Bf16*, Tuning const&, cudaStream_t stream) {
    if (!*handle) handle->emplace();
    (*handle)->run(args, stream);
  };
}

Launch cublaslt() {
  struct Planned {
    std::optional<wb::CublasLtGemm> lt;
    int m = 0, n = 0, k = 0;
  };
  auto planned = std::make_shared<Planned>();
  return [planned](wg::GemmArguments const& args, Bf16*, Tuning const&, cudaStream_t stream) {
    Planned& p = *planned;
    if (!p.lt || p.m != args.m || p.n != args.n || p.k != args.k) {
      p.lt.emplace();
      p.lt->plan(args);
      p.m = args.m;
      p.n = args.n;
      p.k = args.k;
    }
    p.lt->run(args, stream);
  };
}

// Another library's kernel: a contender to beat (harness::PlanProvider::peer).
harness::PlanProvider peer(harness::PlanProvider p) {
  p.peer = true;
  return p;
}

}  // namespace

harness::PlanFamily fork_gemm_relu_plan_family() {
  harness::PlanFamily family{
      "fork_gemm_relu",
      "tutorial 07/04: D = A . B^T and R = max(A, 0), bf16, A's tiles loaded once by TMA and read "
      "by the wgmma warpgroup and a ReLU task (a ts::Fork)",
      {"m", "n", "k"},
      {
          provider("ts", "tutorial 07's fork GEMM (128x128x64 tiles, one CTA each)", kForkRelu,
                   [](wg::GemmArguments const& args, Bf16* r, Tuning const&, cudaStream_t stream) {
                     fork_gemm_relu(a_of(args), b_of(args), d_of(args), r, args.m, args.n, args.k,
                                    stream);
                   }),
          // The pair a framework runs: the GEMM, then a ReLU kernel that reads A again.
          provider("unfused", "gemm() (Auto), then a relu kernel reading A again", kForkRelu,
                   [](wg::GemmArguments const& args, Bf16* r, Tuning const&, cudaStream_t stream) {
                     wg::gemm(args, stream);
                     wb::half_relu(a_of(args), r, static_cast<std::int64_t>(args.m) * args.k,
                                   stream);
                   }),
      }};
  family.report_flops = true;
  return family;
}

harness::PlanFamily merge_gemm_residual_plan_family() {
  harness::PlanFamily family{
      "merge_gemm_residual",
      "tutorial 07/03: D = A . B^T + R, bf16, the wgmma warpgroup's fp32 accumulator handed to an "
      "epilogue warpgroup beside R's TMA tile (two ts::Merge groups)",
      {"m", "n", "k"},
      {
          provider("ts", "tutorial 07's GEMM + residual (128x128x64 tiles, one CTA each)",
                   kResidual,
                   [](wg::GemmArguments const& args, Bf16* r, Tuning const&, cudaStream_t stream) {
                     merge_gemm_residual(a_of(args), b_of(args), r, d_of(args), args.m, args.n,
                                         args.k, stream);
                   }),
          // The pair a framework runs without a residual epilogue: the GEMM, then D += R, which
          // reads D back and writes it again.
          provider("unfused", "gemm() (Auto), then an add kernel: D += R", kResidual,
                   [](wg::GemmArguments const& args, Bf16* r, Tuning const&, cudaStream_t stream) {
                     wg::gemm(args, stream);
                     wb::half_add_inplace(d_of(args), r, static_cast<std::int64_t>(args.m) * args.n,
                                          stream);
                   }),
          // The production GEMM's own fused residual (GemmEpilogue::residual): z rounded to bf16,
          // then R added and rounded again (include/warploom/gemm.hpp).
          provider("warploom_fused", "gemm() (Auto) with its fused epilogue's residual", kResidual,
                   [](wg::GemmArguments const& args, Bf16* r, Tuning const&, cudaStream_t stream) {
                     wg::GemmArguments with_r = args;
                     with_r.epilogue.residual = {.data = r,
                                                 .type = wg::ScalarType::BF16,
                                                 .layout = wg::MatrixLayout::RowMajor,
                                                 .ld = args.n};
                     wg::gemm(with_r, stream);
                   }),
      }};
  family.report_flops = true;
  return family;
}

harness::PlanFamily merge_gemm_plan_family() {
  // cuBLAS's plain GEMM, then D = max(D, 0) in place: the pair without a fused activation.
  Launch const cublas_then_relu = [gemm = cublas()](wg::GemmArguments const& args, Bf16* r,
                                                    Tuning const& tuning, cudaStream_t stream) {
    gemm(args, r, tuning, stream);
    wb::half_relu(d_of(args), d_of(args), static_cast<std::int64_t>(args.m) * args.n, stream);
  };
  harness::PlanFamily family{
      "merge_gemm",
      "tutorial 07/02: D = max(A . B^T, 0), bf16, A's tiles through load warps' registers and "
      "B's by TMA, both read by wgmma and released at once (a ts::Merge)",
      {"m", "n", "k"},
      {
          // A packed (lda = k): the plan's operand sets; the kernel reads it through registers all
          // the same.
          provider("ts", "tutorial 07's merge GEMM (128x128x64 tiles, one CTA each)", kReluD,
                   [](wg::GemmArguments const& args, Bf16*, Tuning const&, cudaStream_t stream) {
                     merge_gemm(a_of(args), args.k, b_of(args), d_of(args), args.m, args.n, args.k,
                                stream);
                   }),
          // The pair a framework runs without a fused activation: the GEMM, then a ReLU kernel
          // that reads D back and writes it again.
          provider("warploom", "gemm() (Auto), then a relu kernel: D = max(D, 0)", kReluD,
                   [](wg::GemmArguments const& args, Bf16*, Tuning const&, cudaStream_t stream) {
                     wg::gemm(args, stream);
                     wb::half_relu(d_of(args), d_of(args),
                                   static_cast<std::int64_t>(args.m) * args.n, stream);
                   }),
          // The production GEMM's own fused ReLU (GemmEpilogue::activation).
          provider("warploom_fused", "gemm() (Auto) with its fused epilogue's ReLU", kReluD,
                   [](wg::GemmArguments const& args, Bf16*, Tuning const&, cudaStream_t stream) {
                     wg::GemmArguments with_relu = args;
                     with_relu.epilogue.activation = wg::Activation::ReLU;
                     wg::gemm(with_relu, stream);
                   }),
          peer(provider("cublas", "cublasGemmEx, default algorithm, then the relu kernel", kReluD,
                        cublas_then_relu)),
      }};
  family.report_flops = true;
  return family;
}

harness::PlanFamily split_k_gemm_plan_family() {
  harness::PlanFamily family{
      "split_k_gemm",
      "tutorial 06: D = A . B^T, bf16, each 128x16 tile of D computed by a (1,1,split_k) cluster "
      "along K whose partial tiles are summed through DSMEM",
      {"m", "n", "k"},
      {
          provider("ts",
                   "tutorial 06's split-K GEMM (split_k: the largest that divides K into "
                   "whole 64-wide steps; --autotune tries 1, 2, 4, 8)",
                   kPlainGemm, run_split_k, split_space),
          provider("warploom", "gemm() (Auto: its own split-K where it pays)", kPlainGemm,
                   [](wg::GemmArguments const& args, Bf16*, Tuning const&, cudaStream_t stream) {
                     wg::gemm(args, stream);
                   }),
          peer(provider("cublas", "cublasGemmEx, default algorithm", kPlainGemm, cublas())),
          peer(provider("cublaslt", "cublasLtMatmul, the heuristic's first candidate that runs",
                        kPlainGemm, cublaslt())),
      }};
  family.report_flops = true;
  return family;
}

}  // namespace warploom::tutorial
