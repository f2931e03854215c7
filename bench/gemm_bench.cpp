// bench/gemm_bench.cpp
//
// The sm90 TS GEMM against cuBLAS (cublasGemmEx, default algorithm), cuBLASLt (its heuristic's
// first algorithm, 32 MiB workspace) and CUTLASS's own sm90 CollectiveBuilder kernel built from the
// same CUTLASS headers (cutlass_sm90_gemm.hpp: "cutlass" cooperative 128x256x64, "cutlass_pp"
// pingpong 128x128x64, both 2x1x1 clusters), interleaved in one process (ours, cuBLAS, cuBLASLt,
// CUTLASS, CUTLASS pingpong, ours, ...) so that clock and power drift hit all alike. Each
// contender is first checked on a poisoned D against the float64 reference; then timed with CUDA
// events, median over --reps runs, with input sets rotated so that the bytes touched between two
// runs of one set exceed 2x L2. Every contender but ours is also a baseline: the table, the JSON
// (speed_vs_<baseline>) and the geomeans of ours give speeds relative to each.
//
//   gemm_bench [--shapes 4096x4096x4096,...] [--dtype bf16|fp16|e4m3|e5m2] [--layout tn|nn|nt|tt]
//              [--contenders warploom,cublas,cublaslt,cutlass,cutlass_pp] [--json F] [--csv F]
//              [--regime burst|sustained] [--reps N] [--panel P] [--cluster MxN]
//              [--design auto|cooperative|pingpong] [--ablate-design] [--ablate-stages]
//
// fp8 (--dtype e4m3|e5m2): layout tn only (the layout fp8 wgmma and cuBLASLt's fp8 kernels read),
// D bf16, per-tensor scales 0.5 and 3 through device pointers; contenders warploom and cuBLASLt
// (scale pointers, CUBLAS_COMPUTE_32F, fast accumulation like ours: no periodic promotion of the
// tensor cores' partial sums). cublasGemmEx has no fp8 types, and cuBLASLt no e5m2 x e5m2 kernel
// (it then drops out with a note); ratios are reported against whoever ran.
//
// Layout letters follow BLAS on column-major storage, as cuBLAS users write them: "tn" is
// A row-major (K-major) and B column-major (K-major), the layout every GEMM library favours.
// The CUTLASS kernels run layout tn with K and N multiples of 8 only (their can_implement); on
// other problems they are skipped, with the reason in the table and under "skipped" in the JSON.
// Regimes: burst measures right after a short warm-up (boost clocks); sustained first runs the
// contenders back to back for --sustain-s seconds, so the GPU sits at its power-capped clock.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cutlass_sm90_gemm.hpp"
#include "gemm/gemm.hpp"
#include "gemm/reference.hpp"
#include "gemm_stage_variants.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/device_info.hpp"
#include "warploom/harness/csv.hpp"
#include "warploom/harness/device_json.hpp"
#include "warploom/harness/extents.hpp"
#include "warploom/harness/progress.hpp"
#include "warploom/harness/rotation.hpp"
#include "warploom/harness/runner.hpp"
#include "warploom/harness/statistics.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace wl = warploom;
namespace wg = warploom::gemm;
namespace wt = warploom::testing;
namespace wb = warploom::bench;
namespace harness = warploom::harness;

namespace {

struct Shape {
  int m, n, k;
};

// --shapes: a comma list of MxNxK (std::invalid_argument otherwise).
std::vector<Shape> parse_shapes(std::string const& s) {
  std::vector<Shape> out;
  for (std::vector<std::int64_t> const& e : harness::parse_extents_list(s, 3, "--shapes"))
    out.push_back({static_cast<int>(e[0]), static_cast<int>(e[1]), static_cast<int>(e[2])});
  return out;
}

// The contenders, in the order they run within a repetition. Every one but ours is a baseline too:
// `column` heads its ratio column in the table, `title` names it in the geomean line.
struct ContenderName {
  std::string_view name, column, title;
};
constexpr std::array<ContenderName, 5> kContenders{{
    {"warploom", "", "warploom"},
    {"cublas", "vs cuBLAS", "cuBLAS"},
    {"cublaslt", "vs Lt", "cuBLASLt"},
    {"cutlass", "vs CUTLASS", "CUTLASS"},
    {"cutlass_pp", "vs CUTL pp", "CUTLASS pingpong"},
}};

// --contenders: a comma list of names from kContenders, returned in kContenders' order
// (std::invalid_argument for an unknown name).
std::vector<ContenderName> parse_contenders(std::string const& s) {
  std::vector<std::string> const wanted = harness::split_list(s, "--contenders");
  for (std::string const& item : wanted) {
    bool const known = std::any_of(kContenders.begin(), kContenders.end(),
                                   [&](ContenderName const& c) { return c.name == item; });
    if (!known)
      throw std::invalid_argument("--contenders: `" + item +
                                  "` is not a contender (warploom, cublas, cublaslt, cutlass, "
                                  "cutlass_pp)");
  }
  std::vector<ContenderName> out;
  for (ContenderName const& c : kContenders)
    if (std::find(wanted.begin(), wanted.end(), c.name) != wanted.end()) out.push_back(c);
  return out;
}

// One set of operands: A, B (16-byte-aligned leading dimensions) and D.
struct OperandSet {
  wt::DeviceBuffer a, b, d;
  wg::GemmArguments args;
};

struct Contender {
  std::string name;
  std::function<void(wg::GemmArguments const&)> run;
  std::vector<double> ms;
};

cublasOperation_t blas_op(wg::MatrixLayout l) {
  return l == wg::MatrixLayout::RowMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
}
cudaDataType blas_type(wg::ScalarType t) {
  switch (t) {
    case wg::ScalarType::F16:
      return CUDA_R_16F;
    case wg::ScalarType::BF16:
      return CUDA_R_16BF;
    case wg::ScalarType::E4M3:
      return CUDA_R_8F_E4M3;
    case wg::ScalarType::E5M2:
      return CUDA_R_8F_E5M2;
    default:
      return CUDA_R_32F;
  }
}

bool is_fp8(wg::ScalarType t) {
  return t == wg::ScalarType::E4M3 || t == wg::ScalarType::E5M2;
}

// cuBLAS computing the same row-major D: column-major D^T = B^T A^T.
struct Cublas {
  cublasHandle_t handle{};
  Cublas() {
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate");
  }
  ~Cublas() { cublasDestroy(handle); }
  void run(wg::GemmArguments const& r) const {
    float const alpha = r.alpha, beta = r.beta;
    cublasStatus_t const s =
        cublasGemmEx(handle, blas_op(r.b.layout), blas_op(r.a.layout), r.n, r.m, r.k, &alpha,
                     r.b.data, blas_type(r.b.type), static_cast<int>(r.b.ld), r.a.data,
                     blas_type(r.a.type), static_cast<int>(r.a.ld), &beta, r.d, blas_type(r.d_type),
                     static_cast<int>(r.ldd), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasGemmEx failed");
  }
};

// cuBLASLt on the same D^T = B^T A^T, planned once per shape: the heuristic's first algorithm
// for these layouts with a 32 MiB workspace that runs (what a framework calling cuBLASLt gets).
class CublasLt {
 public:
  CublasLt() { check(cublasLtCreate(&handle_), "cublasLtCreate"); }
  ~CublasLt() {
    release();
    cublasLtDestroy(handle_);
  }
  CublasLt(CublasLt const&) = delete;
  CublasLt& operator=(CublasLt const&) = delete;

  // Every operand set of one shape shares types, layouts and leading dimensions.
  void plan(wg::GemmArguments const& r) {
    release();
    cublasOperation_t const op_b = blas_op(r.b.layout), op_a = blas_op(r.a.layout);
    check(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "MatmulDescCreate");
    check(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &op_b, sizeof(op_b)),
          "TRANSA");
    check(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &op_a, sizeof(op_a)),
          "TRANSB");
    if (is_fp8(r.a.type)) {
      // cuBLASLt's A is our B and its B our A (D^T = B^T A^T), and so are their scales. Every
      // operand set of a shape shares one pair of scales. Fast accumulation: our fp8 kernel adds
      // every wgmma into one accumulator too (no periodic promotion).
      check(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &r.scale_b,
                                           sizeof(r.scale_b)),
            "A_SCALE_POINTER");
      check(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &r.scale_a,
                                           sizeof(r.scale_a)),
            "B_SCALE_POINTER");
      std::int8_t const fast_accum = 1;
      check(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum,
                                           sizeof(fast_accum)),
            "FAST_ACCUM");
    }
    // Column-major views: B^T as (N x K) or, transposed, (K x N); A^T as (K x M) or (M x K).
    bool const b_n = op_b == CUBLAS_OP_N, a_n = op_a == CUBLAS_OP_N;
    check(cublasLtMatrixLayoutCreate(&b_, blas_type(r.b.type), b_n ? r.n : r.k, b_n ? r.k : r.n,
                                     r.b.ld),
          "layout B");
    check(cublasLtMatrixLayoutCreate(&a_, blas_type(r.a.type), a_n ? r.k : r.m, a_n ? r.m : r.k,
                                     r.a.ld),
          "layout A");
    check(cublasLtMatrixLayoutCreate(&d_, blas_type(r.d_type), r.n, r.m, r.ldd), "layout D");
    cublasLtMatmulPreference_t pref{};
    check(cublasLtMatmulPreferenceCreate(&pref), "PreferenceCreate");
    std::size_t const workspace_bytes = workspace_.bytes();
    check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                               &workspace_bytes, sizeof(workspace_bytes)),
          "workspace preference");
    // The heuristic's candidates, best first; the first that runs on `r` is the plan (a candidate
    // can still be refused when it runs: cuBLASLt's fp8 kernels have rules the heuristic does not
    // check).
    constexpr int kCandidates = 8;
    cublasLtMatmulHeuristicResult_t results[kCandidates]{};
    int found = 0;
    cublasStatus_t const s = cublasLtMatmulAlgoGetHeuristic(handle_, op_, b_, a_, d_, d_, pref,
                                                            kCandidates, results, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    check(s, "AlgoGetHeuristic");
    if (found == 0) throw std::runtime_error("cuBLASLt: no algorithm for this problem");
    std::string refused;
    auto const first_that_runs = [&] {
      for (int i = 0; i < found; ++i) {
        if (results[i].state != CUBLAS_STATUS_SUCCESS) continue;
        algo_ = results[i].algo;
        cublasStatus_t const ran = matmul(r);
        if (ran == CUBLAS_STATUS_SUCCESS) return true;
        refused += (refused.empty() ? "" : ", ") + std::to_string(static_cast<int>(ran));
      }
      return false;
    };
    if (first_that_runs()) return;
    // In place (C = D) refused: with beta = 0, C is never read, so any buffer of D's shape will do.
    if (r.beta == 0.0f) {
      c_scratch_ = wt::DeviceBuffer(static_cast<std::size_t>(r.ldd) * r.m * 4);
      out_of_place_ = true;
      refused += "; out of place: ";
      if (first_that_runs()) return;
    }
    throw std::runtime_error("cuBLASLt: cublasLtMatmul refused all " + std::to_string(found) +
                             " candidate algorithms (status " + refused + ")");
  }

  void run(wg::GemmArguments const& r) const { check(matmul(r), "cublasLtMatmul"); }

 private:
  cublasStatus_t matmul(wg::GemmArguments const& r) const {
    float const alpha = r.alpha, beta = r.beta;
    void const* const c = out_of_place_ ? c_scratch_.get() : r.d;
    return cublasLtMatmul(handle_, op_, &alpha, r.b.data, b_, r.a.data, a_, &beta, c, d_, r.d, d_,
                          &algo_, workspace_.get(), workspace_.bytes(), nullptr);
  }
  static void check(cublasStatus_t s, char const* what) {
    if (s != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error(std::string("cuBLASLt: ") + what + " failed (status " +
                               std::to_string(static_cast<int>(s)) + ")");
  }
  void release() {
    if (op_) cublasLtMatmulDescDestroy(op_);
    for (cublasLtMatrixLayout_t l : {a_, b_, d_})
      if (l) cublasLtMatrixLayoutDestroy(l);
    op_ = nullptr;
    a_ = b_ = d_ = nullptr;
    out_of_place_ = false;
  }

  cublasLtHandle_t handle_{};
  wt::DeviceBuffer workspace_{std::size_t{32} << 20};
  cublasLtMatmulDesc_t op_{};
  cublasLtMatrixLayout_t a_{}, b_{}, d_{};
  cublasLtMatmulAlgo_t algo_{};
  bool out_of_place_ = false;  // C is c_scratch_ (beta = 0 only), not D
  wt::DeviceBuffer c_scratch_;
};

// D of `set` against the reference: max |d - ref| / max |ref| over D's first rows (the float64
// reference is too slow for the whole of a large problem; the tests check every element).
double max_relative_error(OperandSet const& set) {
  wg::GemmArguments r = set.args;
  r.m = std::min(r.m, 384);
  std::size_t const count = static_cast<std::size_t>(r.m) * r.n;
  wt::DeviceBuffer ref(count * sizeof(double));
  wg::reference_gemm(r, ref.as<double>());
  std::vector<double> want(count);
  std::vector<std::uint16_t> got(count);
  WL_CUDA_CHECK(cudaMemcpy(want.data(), ref.get(), count * sizeof(double), cudaMemcpyDeviceToHost));
  WL_CUDA_CHECK(
      cudaMemcpy2D(got.data(), r.n * 2, r.d, r.ldd * 2, r.n * 2, r.m, cudaMemcpyDeviceToHost));
  double err = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < count; ++i) {
    float v;
    if (r.d_type == wg::ScalarType::BF16) {
      std::uint32_t const bits = std::uint32_t{got[i]} << 16;
      std::memcpy(&v, &bits, 4);
    } else {
      __half_raw raw;
      raw.x = got[i];
      v = __half2float(__half(raw));
    }
    err = std::max(err, std::isnan(v) ? INFINITY : std::abs(v - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  return err / scale;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sm90 TS GEMM vs cuBLAS, cuBLASLt and CUTLASS, interleaved"};
  std::string shapes_arg =
      "4096x4096x4096,8192x8192x8192,8192x8192x1024,1024x8192x8192,16384x16384x4096,"
      "3000x5000x700,4097x4097x4097";
  std::string dtype = "bf16", layout = "tn", regime = "burst", json_path, csv_path;
  std::string contenders_arg = "warploom,cublas,cublaslt,cutlass,cutlass_pp";
  int reps = 30;
  double sustain_s = 10.0;
  wg::GemmTuning tuning;
  app.add_option("--shapes", shapes_arg, "comma-separated MxNxK");
  app.add_option("--dtype", dtype, "input type (and output type; fp8: D bf16)")
      ->check(CLI::IsMember({"bf16", "fp16", "e4m3", "e5m2"}));
  app.add_option("--layout", layout, "BLAS layout letters of A and B")
      ->check(CLI::IsMember({"tn", "nn", "nt", "tt"}));
  app.add_option("--contenders", contenders_arg,
                 "comma-separated, of warploom, cublas, cublaslt, cutlass, cutlass_pp");
  app.add_option("--regime", regime)->check(CLI::IsMember({"burst", "sustained"}));
  app.add_option("--sustain-s", sustain_s, "sustained regime: seconds of back-to-back runs first")
      ->check(CLI::PositiveNumber);
  app.add_option("--reps", reps, "timed runs per contender")->check(CLI::Range(5, 10000));
  app.add_option("--panel", tuning.raster_panel, "raster panel height in tiles")
      ->check(CLI::PositiveNumber);
  std::string cluster = "1x1";
  app.add_option("--cluster", cluster, "thread-block cluster MxN (CTAs sharing B x sharing A)")
      ->check(CLI::IsMember({"1x1", "2x1", "1x2"}));
  std::string design = "auto";
  app.add_option("--design", design, "consumer design of the `warploom` contender")
      ->check(CLI::IsMember({"auto", "cooperative", "pingpong"}));
  bool ablate_design = false;
  app.add_flag("--ablate-design", ablate_design,
               "also time both designs as contenders `wl_coop` and `wl_pingpong`");
  bool ablate_stages = false;
  app.add_flag("--ablate-stages", ablate_stages,
               "also time the stage-count variants (bf16 tn, 1x1 cluster only)");
  app.add_option("--json", json_path, "write results here");
  app.add_option("--csv", csv_path, "also write one CSV row per shape and contender here");
  CLI11_PARSE(app, argc, argv);
  tuning.design = design == "cooperative" ? wg::ConsumerDesign::Cooperative
                  : design == "pingpong"  ? wg::ConsumerDesign::PingPong
                                          : wg::ConsumerDesign::Auto;
  tuning.cluster_m = cluster[0] - '0';
  tuning.cluster_n = cluster[2] - '0';
  std::vector<Shape> shapes;
  std::vector<ContenderName> selected;
  try {
    shapes = parse_shapes(shapes_arg);
    selected = parse_contenders(contenders_arg);
  } catch (std::invalid_argument const& e) {
    std::fprintf(stderr, "gemm_bench: %s\n", e.what());
    return 1;
  }
  // The baselines among the selected contenders: one ratio column each.
  std::vector<ContenderName> baselines;
  for (ContenderName const& c : selected)
    if (c.name != "warploom") baselines.push_back(c);

  wg::ScalarType const t = dtype == "bf16"   ? wg::ScalarType::BF16
                           : dtype == "fp16" ? wg::ScalarType::F16
                           : dtype == "e4m3" ? wg::ScalarType::E4M3
                                             : wg::ScalarType::E5M2;
  bool const fp8 = is_fp8(t);
  wg::ScalarType const t_out = fp8 ? wg::ScalarType::BF16 : t;
  if (fp8 && layout != "tn") {
    std::fprintf(stderr,
                 "gemm_bench: --dtype %s runs --layout tn only (fp8 wgmma reads A and B "
                 "K-major)\n",
                 dtype.c_str());
    return 1;
  }

  wl::DeviceInfo const device = wl::query_device();
  if (std::string why = wl::architecture_mismatch(device); !why.empty()) {
    std::fprintf(stderr, "gemm_bench: %s\n", why.c_str());
    return 1;
  }

  // BLAS letters on column-major storage: "t" on A means A^T is stored column-major, i.e. A is
  // row-major.
  wg::MatrixLayout const la =
      layout[0] == 't' ? wg::MatrixLayout::RowMajor : wg::MatrixLayout::ColMajor;
  wg::MatrixLayout const lb =
      layout[1] == 't' ? wg::MatrixLayout::RowMajor : wg::MatrixLayout::ColMajor;

  Cublas cublas;
  CublasLt cublaslt;
  wb::CutlassSm90Gemm cutlass(wb::CutlassSchedule::Cooperative);
  wb::CutlassSm90Gemm cutlass_pp(wb::CutlassSchedule::Pingpong);
  harness::CudaEventTimer timer;
  nlohmann::json out;
  out["device"] = harness::device_json(device);
  out["dtype"] = dtype;
  out["d_type"] = std::string(wg::to_string(t_out));
  out["layout"] = layout;
  out["regime"] = regime;
  out["reps"] = reps;
  out["tuning"] = {{"raster_panel", tuning.raster_panel},
                   {"cluster", cluster},
                   {"max_ctas", tuning.max_ctas},
                   {"design", design}};
  for (ContenderName const& c : selected) out["contenders"].push_back(c.name);
  out["cutlass"] = {{"cutlass", wb::to_string(wb::CutlassSchedule::Cooperative)},
                    {"cutlass_pp", wb::to_string(wb::CutlassSchedule::Pingpong)}};
  out["method"] =
      "CUDA events around each launch; contenders interleaved per repetition; operand sets rotated "
      "to exceed 2x L2; median; TFLOP/s = 2MNK / median";
  // fp8 per-tensor scales, shared by every operand set, 16 bytes apart: cuBLASLt refuses scale
  // pointers that are not 16-byte aligned (status 15 from cublasLtMatmul, measured 2026-11-29).
  wt::DeviceBuffer scales(2 * 16);
  if (fp8) {
    float const host_scales[5] = {0.5f, 0.0f, 0.0f, 0.0f, 3.0f};
    WL_CUDA_CHECK(
        cudaMemcpy(scales.get(), host_scales, sizeof(host_scales), cudaMemcpyHostToDevice));
    out["scales"] = {host_scales[0], host_scales[4]};
  }
  // fp8 on the tensor cores accumulates with fewer bits than fp32 (docs/kernels/sm90_ts_gemm.md),
  // an error that grows with K; either way a wrong kernel is off by far more.
  double const max_error = fp8 ? 5e-2 : 1e-2;
  bool all_correct = true;
  // Speed of ours relative to each baseline, per shape where both ran.
  std::map<std::string_view, std::vector<double>> ratios;
  // CSV: one row per shape and contender, the ratio columns as in the table ("" where none).
  std::ofstream csv_file;
  std::optional<harness::CsvWriter> csv;
  if (!csv_path.empty()) {
    csv_file.open(csv_path);
    if (!csv_file) {
      std::fprintf(stderr, "gemm_bench: --csv %s: cannot open the file for writing\n",
                   csv_path.c_str());
      return 1;
    }
    std::vector<std::string> header = {"m",      "n",         "k",      "dtype",     "layout",
                                       "regime", "contender", "runs",   "median_ms", "p10_ms",
                                       "p90_ms", "min_ms",    "max_ms", "tflops"};
    for (ContenderName const& b : baselines) header.push_back("speed_vs_" + std::string(b.name));
    header.push_back("max_relative_error");
    csv.emplace(csv_file, std::move(header));
  }
  std::printf("%-18s %-10s %10s %10s %10s %9s", "shape", "contender", "median ms", "p10 ms",
              "p90 ms", "TFLOP/s");
  for (ContenderName const& b : baselines) std::printf(" %10s", std::string(b.column).c_str());
  std::printf(" %9s\n", "max err");
  harness::Progress progress(std::cerr, static_cast<int>(shapes.size()), "shapes");
  for (Shape const& s : shapes) {
    // Leading dimensions rounded up to 16 bytes (TMA); all contenders use the same storage.
    std::size_t const in_bytes = wg::size_of(t), out_bytes = wg::size_of(t_out);
    auto const ld_of = [](int contiguous, std::size_t bytes) {
      std::int64_t const per16 = static_cast<std::int64_t>(16 / bytes);
      return (contiguous + per16 - 1) / per16 * per16;
    };
    std::int64_t const lda = ld_of(la == wg::MatrixLayout::RowMajor ? s.k : s.m, in_bytes);
    std::int64_t const ldb = ld_of(lb == wg::MatrixLayout::RowMajor ? s.n : s.k, in_bytes);
    std::int64_t const ldd = ld_of(s.n, out_bytes);
    std::size_t const a_bytes =
        static_cast<std::size_t>(lda) * (la == wg::MatrixLayout::RowMajor ? s.m : s.k) * in_bytes;
    std::size_t const b_bytes =
        static_cast<std::size_t>(ldb) * (lb == wg::MatrixLayout::RowMajor ? s.k : s.n) * in_bytes;
    std::size_t const d_bytes = static_cast<std::size_t>(ldd) * s.m * out_bytes;
    std::size_t const set_bytes = a_bytes + b_bytes + d_bytes;
    int const sets =
        harness::plan_rotation(set_bytes, static_cast<std::size_t>(device.l2_bytes)).sets;
    std::vector<OperandSet> operand_sets(sets);
    for (int i = 0; i < sets; ++i) {
      OperandSet& o = operand_sets[i];
      o.a = wt::DeviceBuffer(a_bytes);
      o.b = wt::DeviceBuffer(b_bytes);
      o.d = wt::DeviceBuffer(d_bytes);
      auto fill = [&](wt::DeviceBuffer& buf, std::uint64_t seed) {
        if (t == wg::ScalarType::BF16)
          wt::fill_uniform(buf.as<__nv_bfloat16>(), buf.bytes() / 2, seed);
        else if (t == wg::ScalarType::F16)
          wt::fill_uniform(buf.as<__half>(), buf.bytes() / 2, seed);
        else if (t == wg::ScalarType::E4M3)
          wt::fill_uniform(buf.as<__nv_fp8_e4m3>(), buf.bytes(), seed);
        else
          wt::fill_uniform(buf.as<__nv_fp8_e5m2>(), buf.bytes(), seed);
      };
      fill(o.a, 10 + i);
      fill(o.b, 100 + i);
      o.args.m = s.m;
      o.args.n = s.n;
      o.args.k = s.k;
      o.args.a = {o.a.get(), t, la, lda, 0};
      o.args.b = {o.b.get(), t, lb, ldb, 0};
      o.args.d = o.d.get();
      o.args.d_type = t_out;
      o.args.ldd = ldd;
      if (fp8) {
        o.args.scale_a = scales.as<float>();
        o.args.scale_b = scales.as<float>() + 4;
      }
    }
    std::string const shape_name =
        std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    nlohmann::json js;
    js["shape"] = {s.m, s.n, s.k};
    js["operand_sets"] = sets;
    // Every operand set of a shape shares types, layouts and leading dimensions: what a
    // contender supports, and cuBLASLt's plan, hold for all.
    wg::GemmArguments const& first = operand_sets[0].args;
    std::vector<Contender> contenders;
    std::vector<std::pair<std::string_view, std::string>> skipped;
    for (ContenderName const& c : selected) {
      std::function<void(wg::GemmArguments const&)> run;
      if (c.name == "warploom") {
        run = [&](wg::GemmArguments const& a) { wg::gemm(a, nullptr, tuning); };
      } else if (c.name == "cublas") {
        if (fp8) {
          skipped.emplace_back(c.name, "cublasGemmEx has no fp8 types");
          continue;
        }
        run = [&](wg::GemmArguments const& a) { cublas.run(a); };
      } else if (c.name == "cublaslt") {
        try {
          cublaslt.plan(first);
        } catch (std::runtime_error const& e) {
          // cuBLASLt has no e5m2 x e5m2 kernel, and may refuse an fp8 plan: that drops it with
          // the reason.
          if (!fp8) throw;
          skipped.emplace_back(c.name, e.what());
          continue;
        }
        run = [&](wg::GemmArguments const& a) { cublaslt.run(a); };
      } else {
        wb::CutlassSm90Gemm& kernel = c.name == "cutlass" ? cutlass : cutlass_pp;
        if (std::string why = kernel.unsupported(first); !why.empty()) {
          skipped.emplace_back(c.name, std::move(why));
          continue;
        }
        run = [&kernel](wg::GemmArguments const& a) { kernel.run(a); };
      }
      contenders.push_back({std::string(c.name), std::move(run), {}});
    }
    // Ablations: both consumer designs, the stage-count variants (ours, not baselines).
    if (ablate_design) {
      for (auto [name, d] : {std::pair{"wl_coop", wg::ConsumerDesign::Cooperative},
                             std::pair{"wl_pingpong", wg::ConsumerDesign::PingPong}}) {
        wg::GemmTuning t = tuning;
        t.design = d;
        contenders.push_back(
            {name, [t](wg::GemmArguments const& a) { wg::gemm(a, nullptr, t); }, {}});
      }
    }
    if (ablate_stages) {
      for (wb::StageVariant const& v : wb::stage_variants())
        contenders.push_back({v.name,
                              [&v, &tuning](wg::GemmArguments const& a) {
                                wb::run_stage_variant(v, a, tuning, nullptr);
                              },
                              {}});
    }
    std::vector<double> errors;
    for (auto& c : contenders) {  // correctness first, on a poisoned D
      wt::poison(operand_sets[0].d.get(), d_bytes);
      c.run(operand_sets[0].args);
      WL_CUDA_CHECK(cudaDeviceSynchronize());
      double const err = max_relative_error(operand_sets[0]);
      errors.push_back(err);
      if (!(err <= max_error)) {
        std::fprintf(stderr, "%s / %s: WRONG RESULT (max relative error %g)\n", shape_name.c_str(),
                     c.name.c_str(), err);
        all_correct = false;
      }
    }
    int set = 0;
    auto const next_args = [&]() -> wg::GemmArguments const& {
      set = (set + 1) % sets;
      return operand_sets[set].args;
    };
    for (int w = 0; w < 3; ++w)
      for (auto& c : contenders) c.run(next_args());
    if (regime == "sustained" && !contenders.empty()) {
      auto const until =
          std::chrono::steady_clock::now() + std::chrono::duration<double>(sustain_s);
      while (std::chrono::steady_clock::now() < until) {
        for (auto& c : contenders) c.run(next_args());
        WL_CUDA_CHECK(cudaDeviceSynchronize());
      }
    }
    for (int r = 0; r < reps; ++r) {
      for (auto& c : contenders) {
        wg::GemmArguments const& a = next_args();
        c.ms.push_back(timer.milliseconds([&] { c.run(a); }));
      }
    }
    double const flops = 2.0 * s.m * s.n * s.k;
    std::vector<harness::Summary> summaries;
    for (Contender const& c : contenders) summaries.push_back(harness::summarize(c.ms));
    auto const median_of = [&](std::string_view name) -> std::optional<double> {
      for (std::size_t i = 0; i < contenders.size(); ++i)
        if (contenders[i].name == name) return summaries[i].median;
      return std::nullopt;
    };
    for (std::size_t i = 0; i < contenders.size(); ++i) {
      Contender const& c = contenders[i];
      harness::Summary const& t = summaries[i];
      double const med = t.median;
      double const tflops = flops / (med * 1e-3) / 1e12;
      std::printf("%-18s %-10s %10.3f %10.3f %10.3f %9.1f", shape_name.c_str(), c.name.c_str(), med,
                  t.p10, t.p90, tflops);
      nlohmann::json jc = {{"median_ms", med}, {"p10_ms", t.p10}, {"p90_ms", t.p90},
                           {"min_ms", t.min},  {"max_ms", t.max}, {"runs", t.count},
                           {"tflops", tflops}};
      std::vector<std::string> row = {std::to_string(s.m),
                                      std::to_string(s.n),
                                      std::to_string(s.k),
                                      dtype,
                                      layout,
                                      regime,
                                      c.name,
                                      std::to_string(t.count),
                                      std::to_string(med),
                                      std::to_string(t.p10),
                                      std::to_string(t.p90),
                                      std::to_string(t.min),
                                      std::to_string(t.max),
                                      std::to_string(tflops)};
      for (ContenderName const& b : baselines) {
        if (std::optional<double> const base = median_of(b.name)) {
          double const vs = *base / med;
          std::printf(" %10.3f", vs);
          jc["speed_vs_" + std::string(b.name)] = vs;
          row.push_back(std::to_string(vs));
          if (c.name == "warploom") ratios[b.name].push_back(vs);
        } else {
          std::printf(" %10s", "-");
          row.emplace_back();
        }
      }
      std::printf(" %9.2e\n", errors[i]);
      row.push_back(std::to_string(errors[i]));
      if (csv) csv->row(row);
      jc["max_relative_error"] = errors[i];
      js["contenders"][c.name] = jc;
    }
    for (auto const& [name, why] : skipped) {
      std::printf("%-18s %-10s skipped: %s\n", shape_name.c_str(), std::string(name).c_str(),
                  why.c_str());
      js["skipped"][std::string(name)] = why;
    }
    out["shapes"].push_back(js);
    std::fflush(stdout);  // the table's rows before the progress line on stderr
    progress.step(shape_name);
  }
  // Geomeans of our speed relative to each baseline, over the shapes where both ran.
  std::string line;
  for (ContenderName const& b : baselines) {
    std::vector<double> const& rs = ratios[b.name];
    if (rs.empty()) continue;
    double log_sum = 0.0;
    for (double r : rs) log_sum += std::log(r);
    double const geomean = std::exp(log_sum / static_cast<double>(rs.size()));
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s%s: %.3f (%zu of %zu shapes)", line.empty() ? "" : ", vs ",
                  std::string(b.title).c_str(), geomean, rs.size(), shapes.size());
    line += buf;
    out["geomean_speed_vs_" + std::string(b.name)] = geomean;
    out["geomean_shapes_vs_" + std::string(b.name)] = rs.size();
  }
  if (!line.empty()) std::printf("geomean speed vs %s\n", line.c_str());
  out["all_correct"] = all_correct;
  if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
  return all_correct ? 0 : 1;
}
