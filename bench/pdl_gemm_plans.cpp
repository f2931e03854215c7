// bench/pdl_gemm_plans.cpp
//
// pdl_gemm_chain: two dependent GEMMs back to back on one stream, D1 = A . B^T then
// D2 = D1 . C^T (bf16, "tn"), the gap between them with and without programmatic dependent
// launch (issue 17, tutorial 04/01). A problem MxNxK is A (M x K), B (N x K), C (N x N); both
// GEMMs have the shape M x N x K because the family asks K = N (the second GEMM's K is D1's N):
// one shape in the tables, two equal halves in the time.
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
#include "tutorial/clustered_gemm.hpp"
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

// One run of a contender: both GEMMs, `first` (D1 = A . B^T) then `second` (D2 = D1 . C^T), on
// `stream`.
using ChainLaunch = std::function<void(wg::GemmArguments const& first,
                                       wg::GemmArguments const& second, cudaStream_t stream)>;

// The chain on operand sets of the GEMM benchmarks (bench/gemm_operands.hpp: uniform [-1, 1)), C
// (N x N) beside each; D2 checked against float64 on its first and last 128 rows, computed from
// the D1 the GPU wrote (which is checked too): a second GEMM that read D1 before the first wrote
// it reads the poison.
class ChainPlan final : public harness::KernelPlan {
 public:
  ChainPlan(int m, int n, int k, ChainLaunch launch)
      : first_{.m = m, .n = n, .k = k},
        second_{.m = m, .n = n, .k = n},
        launch_(std::move(launch)) {}

  harness::Work work() const override {
    return {.flops = 2.0 * 2.0 * first_.m * first_.n * first_.k,
            .bytes = static_cast<double>(bytes_per_input_set())};
  }
  std::size_t bytes_per_input_set() const override {
    return wb::GemmOperands::bytes(first_) + c_bytes() + d2_bytes();
  }

  void prepare(int input_sets, std::uint64_t seed) override {
    sets_.clear();
    c_.clear();
    d2_.clear();
    seconds_.clear();
    for (int s = 0; s < input_sets; ++s) {
      sets_.emplace_back(first_, seed + s, nullptr);
      c_.emplace_back(c_bytes());
      d2_.emplace_back(d2_bytes());
      wt::fill_uniform(c_.back().as<Bf16>(), c_bytes() / sizeof(Bf16), 7 * (seed + s) + 5);
      seconds_.push_back(wb::gemm_arguments(second_, sets_.back().d(), c_.back().get(),
                                            d2_.back().get(), nullptr, nullptr));
    }
  }

  void run(int input_set, Tuning const&, cudaStream_t stream) override {
    launch_(sets_.at(input_set).args(), seconds_.at(input_set), stream);
  }

  CheckResult check(Tuning const& tuning) override {
    wt::poison(sets_.at(0).d(), sets_.at(0).d_bytes());
    wt::poison(d2_.at(0).get(), d2_bytes());
    run(0, tuning, nullptr);
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    int const rows = std::min(first_.m, 128);
    auto const error = [rows](wg::GemmArguments const& args) {
      return std::max(wb::max_relative_error(args, 0, rows),
                      wb::max_relative_error(args, args.m - rows, rows));
    };
    double const tolerance = wb::error_tolerance(first_.type);
    for (auto [name, args] :
         {std::pair{"D1", &sets_.at(0).args()}, std::pair{"D2", &std::as_const(seconds_[0])}}) {
      double const e = error(*args);
      if (!(e <= tolerance))
        return {false, std::string(name) + "'s max relative error " + std::to_string(e) +
                           " on its first and last " + std::to_string(rows) + " rows"};
    }
    return {true,
            "D1 and D2 (from the GPU's D1) within " + std::to_string(tolerance) + " of float64"};
  }

 private:
  std::size_t c_bytes() const { return std::size_t{1} * first_.n * first_.n * sizeof(Bf16); }
  std::size_t d2_bytes() const { return std::size_t{1} * first_.m * first_.n * sizeof(Bf16); }

  wb::GemmProblem first_, second_;
  ChainLaunch launch_;
  std::vector<wb::GemmOperands> sets_;  // A, B, D1
  std::vector<wt::DeviceBuffer> c_, d2_;
  std::vector<wg::GemmArguments> seconds_;  // D1 . C^T -> D2 of each set
};

struct Extents {
  int m, n, k;
};

// MxNxK with K = N; `ts`: also the clustered GEMM's rules (M a multiple of 256, N of 128; K = N
// then a multiple of 64).
Extents checked_extents(harness::Problem const& p, bool ts) {
  if (p.extents.size() != 3) throw std::invalid_argument("a problem is three extents, MxNxK");
  for (std::int64_t e : p.extents)
    if (e <= 0 || e > (std::int64_t{1} << 31) - 1)
      throw std::invalid_argument("m, n and k must be in [1, 2^31), got " + std::to_string(e));
  Extents const e{static_cast<int>(p.extents[0]), static_cast<int>(p.extents[1]),
                  static_cast<int>(p.extents[2])};
  if (e.k != e.n)
    throw std::invalid_argument("pdl_gemm_chain: k = " + std::to_string(e.k) + " must equal n = " +
                                std::to_string(e.n) + " (D2 = D1 . C^T: the second GEMM's K is n)");
  constexpr int kClusterRows = kClusteredGemmClusterM * kClusteredGemmTileM;
  if (ts && e.m % kClusterRows != 0)
    throw std::invalid_argument("pdl_gemm_chain: m = " + std::to_string(e.m) +
                                " must be a multiple of " + std::to_string(kClusterRows) +
                                " (the clustered GEMM's cluster of two 128-row tiles)");
  if (ts && e.n % kClusteredGemmTileN != 0)
    throw std::invalid_argument("pdl_gemm_chain: n = " + std::to_string(e.n) +
                                " must be a multiple of " + std::to_string(kClusteredGemmTileN) +
                                " (the clustered GEMM's tile width)");
  return e;
}

harness::PlanProvider provider(std::string name, std::string description, ChainLaunch launch,
                               bool ts = false) {
  return {std::move(name), std::move(description),
          [launch = std::move(launch), ts](harness::Problem const& p) {
            Extents const e = checked_extents(p, ts);
            return std::make_unique<ChainPlan>(e.m, e.n, e.k, launch);
          }};
}

// Tutorial 04/01's GEMM twice; the first launched plainly, the second with `pdl` (as the copy
// chain does: what is measured is the gap between the two dependent GEMMs, not the one before the
// chain).
ChainLaunch clustered(bool pdl) {
  return [pdl](wg::GemmArguments const& first, wg::GemmArguments const& second,
               cudaStream_t stream) {
    for (auto [args, order] : {std::pair{&first, false}, std::pair{&second, pdl}})
      clustered_gemm(static_cast<Bf16 const*>(args->a.data), static_cast<Bf16 const*>(args->b.data),
                     static_cast<Bf16*>(args->d), args->m, args->n, args->k, order, stream);
  };
}

// cuBLAS, one handle made at its first run (a check, never under capture).
ChainLaunch cublas() {
  auto handle = std::make_shared<std::optional<wb::CublasGemm>>();
  return [handle](wg::GemmArguments const& first, wg::GemmArguments const& second,
                  cudaStream_t stream) {
    if (!*handle) handle->emplace();
    (*handle)->run(first, stream);
    (*handle)->run(second, stream);
  };
}

}  // namespace

harness::PlanFamily pdl_gemm_chain_plan_family() {
  harness::PlanProvider cublas_twice =
      provider("cublas", "cublasGemmEx twice, default algorithm", cublas());
  cublas_twice.peer = true;
  harness::PlanFamily family{
      "pdl_gemm_chain",
      "tutorial 04/01: D1 = A . B^T then D2 = D1 . C^T, bf16, back to back on one stream (K = N: "
      "both GEMMs M x N x K), with and without programmatic dependent launch",
      {"m", "n", "k"},
      {
          provider("ts_pdl",
                   "tutorial 04/01's clustered GEMM twice, the second a programmatic dependent "
                   "launch",
                   clustered(true), true),
          provider("ts_plain", "tutorial 04/01's clustered GEMM twice, plain launches",
                   clustered(false), true),
          provider("warploom", "gemm() (Auto) twice",
                   [](wg::GemmArguments const& first, wg::GemmArguments const& second,
                      cudaStream_t stream) {
                     wg::gemm(first, stream);
                     wg::gemm(second, stream);
                   }),
          std::move(cublas_twice),
      }};
  family.report_flops = true;
  return family;
}

}  // namespace warploom::tutorial
