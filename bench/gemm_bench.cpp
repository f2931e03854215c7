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
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "blas_gemm.hpp"
#include "cutlass_sm90_gemm.hpp"
#include "gemm_operands.hpp"
#include "gemm_stage_variants.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/device_info.hpp"
#include "warploom/gemm.hpp"
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

struct Contender {
  std::string name;
  std::function<void(wg::GemmArguments const&)> run;
  std::vector<double> ms;
};

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

  wb::GemmProblem problem{.type = wb::parse_input_type(dtype, "--dtype")};
  wb::parse_layout(layout, "--layout", problem);
  bool const fp8 = wb::is_fp8(problem.type);
  wg::ScalarType const t_out = wb::output_type(problem.type);
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

  wb::CublasGemm cublas;
  wb::CublasLtGemm cublaslt;
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
  // fp8 per-tensor scales, shared by every operand set.
  wb::Fp8Scales const scales;
  if (fp8) out["scales"] = {wb::Fp8Scales::kA, wb::Fp8Scales::kB};
  double const max_error = wb::error_tolerance(problem.type);
  bool all_correct = true;
  // Speed of ours relative to each baseline, per shape where both ran.
  std::map<std::string_view, std::vector<double>> ratios;
  // CSV: one row per shape and contender, the ratio columns as in the table ("" where none).
  std::optional<harness::CsvFile> csv;
  if (!csv_path.empty()) {
    std::vector<std::string> header = {"m",      "n",         "k",      "dtype",     "layout",
                                       "regime", "contender", "runs",   "median_ms", "p10_ms",
                                       "p90_ms", "min_ms",    "max_ms", "tflops"};
    for (ContenderName const& b : baselines) header.push_back("speed_vs_" + std::string(b.name));
    header.push_back("max_relative_error");
    try {
      csv.emplace(csv_path, std::move(header));
    } catch (std::runtime_error const& e) {
      std::fprintf(stderr, "gemm_bench: %s\n", e.what());
      return 1;
    }
  }
  std::printf("%-18s %-10s %10s %10s %10s %9s", "shape", "contender", "median ms", "p10 ms",
              "p90 ms", "TFLOP/s");
  for (ContenderName const& b : baselines) std::printf(" %10s", std::string(b.column).c_str());
  std::printf(" %9s\n", "max err");
  harness::Progress progress(std::cerr, static_cast<int>(shapes.size()), "shapes");
  for (Shape const& s : shapes) {
    // Leading dimensions rounded up to 16 bytes (TMA); all contenders use the same storage.
    problem.m = s.m;
    problem.n = s.n;
    problem.k = s.k;
    int const sets = harness::plan_rotation(wb::GemmOperands::bytes(problem),
                                            static_cast<std::size_t>(device.l2_bytes))
                         .sets;
    std::vector<wb::GemmOperands> operand_sets;
    for (int i = 0; i < sets; ++i) operand_sets.emplace_back(problem, 5 + i, &scales);
    std::string const shape_name =
        std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    nlohmann::json js;
    js["shape"] = {s.m, s.n, s.k};
    js["operand_sets"] = sets;
    // Every operand set of a shape shares types, layouts and leading dimensions: what a
    // contender supports, and cuBLASLt's plan, hold for all.
    wg::GemmArguments const& first = operand_sets[0].args();
    std::vector<Contender> contenders;
    std::vector<std::pair<std::string_view, std::string>> skipped;
    for (ContenderName const& c : selected) {
      std::function<void(wg::GemmArguments const&)> run;
      if (c.name == "warploom") {
        run = [&](wg::GemmArguments const& a) { wg::gemm(a, nullptr, tuning); };
      } else if (c.name == "cublas") {
        if (std::string why = wb::CublasGemm::unsupported(first); !why.empty()) {
          skipped.emplace_back(c.name, std::move(why));
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
      for (wb::StageVariant const& v : wb::kStageVariants)
        contenders.push_back(
            {std::string(v.name),
             [t = v.applied_to(tuning)](wg::GemmArguments const& a) { wg::gemm(a, nullptr, t); },
             {}});
    }
    std::vector<double> errors;
    for (auto& c : contenders) {  // correctness first, on a poisoned D
      wt::poison(operand_sets[0].d(), operand_sets[0].d_bytes());
      c.run(first);
      WL_CUDA_CHECK(cudaDeviceSynchronize());
      double const err = wb::max_relative_error(first, 0, std::min(s.m, 384));
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
      return operand_sets[set].args();
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
