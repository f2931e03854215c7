// tools/warploom/bench_command.cpp — `warploom bench`: a family's providers on each shape, timed by
// the harness's runner against ceilings measured in the same process.
#include "bench_command.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "arguments.hpp"
#include "exit_codes.hpp"
#include "ncu_profile.hpp"
#include "output_files.hpp"
#include "plans.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/device_info.hpp"
#include "warploom/harness/csv.hpp"
#include "warploom/harness/device_json.hpp"
#include "warploom/harness/extents.hpp"
#include "warploom/harness/peer_comparison.hpp"
#include "warploom/harness/progress.hpp"
#include "warploom/harness/run_facts.hpp"
#include "warploom/harness/svg_chart.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::cli {
namespace {

namespace h = warploom::harness;

constexpr char kWho[] = "warploom bench";

// The memory ceiling: device-to-device cudaMemcpy of 1 GiB, bytes read + written per second,
// median of 10 after 3 warm-up copies.
double copy_bandwidth(h::LaunchTimer& timer) {
  std::size_t const bytes = std::size_t{1} << 30;
  testing::DeviceBuffer a(bytes), b(bytes);
  std::vector<double> ms;
  for (int i = 0; i < 13; ++i) {
    double const t = timer.milliseconds(
        [&] { WL_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice)); });
    if (i >= 3) ms.push_back(t);
  }
  return 2.0 * static_cast<double>(bytes) / (h::summarize(ms).median * 1e-3);
}

template <class Named>
std::vector<std::string> names_of(std::vector<Named> const& items) {
  std::vector<std::string> names;
  for (auto const& i : items) names.push_back(i.name);
  return names;
}

std::string shape_name(std::vector<std::int64_t> const& extents) {
  std::string s;
  for (std::int64_t e : extents) s += (s.empty() ? "" : "x") + std::to_string(e);
  return s;
}

h::PlanFamily const* find_family(std::string const& name) {
  auto const& families = bench_families();
  auto const f = std::find_if(families.begin(), families.end(),
                              [&](h::PlanFamily const& f) { return f.name == name; });
  if (f == families.end()) {
    std::vector<std::string> const names = names_of(families);
    throw std::invalid_argument("no family `" + name + "` (families: " + comma_list(names) + ")" +
                                did_you_mean(name, names));
  }
  return &*f;
}

// Every parameter of `family` set: as given (checked against its values), else its default. A
// parameter the family does not have is refused, naming the option.
std::map<std::string, std::string> family_parameters(h::PlanFamily const& family,
                                                     BenchOptions const& o) {
  std::map<std::string, std::string> given;
  if (!o.dtype.empty()) given["dtype"] = o.dtype;
  if (!o.layout.empty()) given["layout"] = o.layout;
  if (!o.epilogue.empty()) given["epilogue"] = o.epilogue;
  if (!o.mix.empty()) given["mix"] = o.mix;
  if (!o.mask.empty()) given["mask"] = o.mask;
  if (!o.group.empty()) given["group"] = o.group;
  std::map<std::string, std::string> out;
  for (h::FamilyParameter const& p : family.parameters) {
    auto const g = given.find(p.name);
    std::string const value = g == given.end() ? p.values.front() : g->second;
    if (std::find(p.values.begin(), p.values.end(), value) == p.values.end())
      throw std::invalid_argument("--" + p.name + ": `" + value + "` is not one of " +
                                  comma_list(p.values) + did_you_mean(value, p.values));
    out[p.name] = value;
    if (g != given.end()) given.erase(g);
  }
  if (!given.empty())
    throw std::invalid_argument("--" + given.begin()->first + ": the " + family.name +
                                " family has no such parameter");
  return out;
}

std::vector<h::PlanProvider const*> chosen_providers(h::PlanFamily const& family,
                                                     std::string const& list) {
  std::vector<h::PlanProvider const*> out;
  if (list.empty() || list == "all") {
    for (auto const& p : family.providers)
      if (p.by_default || list == "all") out.push_back(&p);
    return out;
  }
  for (std::string const& name : h::split_list(list, "--providers")) {
    auto const p = std::find_if(family.providers.begin(), family.providers.end(),
                                [&](h::PlanProvider const& q) { return q.name == name; });
    if (p == family.providers.end()) {
      std::vector<std::string> const names = names_of(family.providers);
      throw std::invalid_argument("--providers: `" + name + "` is not a provider of " +
                                  family.name + " (" + comma_list(names) + ")" +
                                  did_you_mean(name, names));
    }
    out.push_back(&*p);
  }
  return out;
}

// One shape: its contenders (every provider's plan, or under --autotune one per tuning point),
// and the providers that do not run it, with why.
struct ShapeRun {
  h::Problem problem;
  std::vector<h::Contender> contenders;
  std::vector<std::string> providers;  // contenders[i] is a point of providers[i]
  std::vector<bool> peers;             // whether providers[i] is a peer (PlanProvider::peer)
  nlohmann::json skipped = nlohmann::json::object();
};

// Plans allocate nothing until prepare(), so a problem a provider does not run is reported here,
// before the GPU is touched.
// `points` (under autotune): keep the default point and those whose printed form contains it.
ShapeRun plan_shape(h::Problem problem, std::vector<h::PlanProvider const*> const& providers,
                    bool autotune, std::string const& points_with) {
  ShapeRun sr{std::move(problem), {}, {}, {}};
  for (h::PlanProvider const* p : providers) {
    try {
      std::unique_ptr<h::KernelPlan> plan = p->make(sr.problem);
      std::vector<h::Tuning> points = plan->tuning_space();
      if (!autotune) points.resize(1);
      if (!points_with.empty())
        std::erase_if(points, [&](h::Tuning const& t) {
          return !t.empty() && h::to_string(t).find(points_with) == std::string::npos;
        });
      for (std::size_t i = 0; i < points.size(); ++i) {
        std::string const name =
            autotune ? p->name + " [" + h::to_string(points[i]) + "]" : p->name;
        sr.contenders.push_back({name, i == 0 ? std::move(plan) : p->make(sr.problem), points[i]});
        sr.providers.push_back(p->name);
        sr.peers.push_back(p->peer);
      }
    } catch (std::invalid_argument const& e) {
      std::printf("%-18s %-20s skipped: %s\n", shape_name(sr.problem.extents).c_str(),
                  p->name.c_str(), e.what());
      sr.skipped[p->name] = e.what();
    }
  }
  return sr;
}

// The family's compute ceiling for `problem` (flop/s), measured once per key; infinite for a
// family without one.
class ComputeCeilings {
 public:
  ComputeCeilings(h::PlanFamily const& family, h::RunOptions options)
      : family_(family), options_(std::move(options)) {
    options_.check = false;
    options_.reps = 10;
    options_.graph_replays = 0;  // one large GEMM: its host work is nothing beside it
    options_.ceilings.reset();
  }

  double flops_per_s(h::Problem const& problem, h::LaunchTimer& timer) {
    if (!family_.compute_ceiling) return std::numeric_limits<double>::infinity();
    std::string const key = family_.compute_ceiling->key(problem);
    auto const known = measured_.find(key);
    if (known != measured_.end()) return known->second;
    std::vector<h::Contender> one;
    one.push_back({"ceiling " + key, family_.compute_ceiling->make(problem), {}});
    double const seconds = h::run_contenders(one, options_, timer)[0].milliseconds.median * 1e-3;
    double const flops = one[0].plan->work().flops / seconds;
    std::printf("compute ceiling for %s: %.0f TFLOP/s (%s)\n", key.c_str(), flops / 1e12,
                family_.compute_ceiling->description.c_str());
    return measured_[key] = flops;
  }

  nlohmann::json json() const {
    if (!family_.compute_ceiling) return nullptr;
    return {{"what", family_.compute_ceiling->description}, {"flops_per_s", measured_}};
  }

 private:
  h::PlanFamily const& family_;
  h::RunOptions options_;
  std::map<std::string, double> measured_;
};

// The command that profiles one contender of `sr` (default tuning) under ncu.
std::vector<std::string> profile_args(BenchOptions const& o, ShapeRun const& sr,
                                      std::string const& provider) {
  std::vector<std::string> args = {
      "bench",       o.family, "--shapes", shape_name(sr.problem.extents),
      "--providers", provider, "--reps",   "1",
      "--no-check",  "--prof", "nvtx"};
  for (auto const& [name, value] : sr.problem.parameters) {
    args.push_back("--" + name);
    args.push_back(value);
  }
  return args;
}

std::string providers_chart_path(std::string const& prefix) {
  return prefix + "_providers.svg";
}
std::string roofline_chart_path(std::string const& prefix) {
  return prefix + "_roofline.svg";
}

// Every file the run will write, with its option, so that each can be checked before anything runs:
// the results are lost if a path turns out unwritable only at the end.
std::vector<std::pair<std::string, std::string>> output_paths(BenchOptions const& o,
                                                              h::PlanFamily const& family) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!o.json_path.empty()) out.emplace_back("--json", o.json_path);
  if (!o.csv_path.empty()) out.emplace_back("--csv", o.csv_path);
  if (!o.svg_prefix.empty()) {
    out.emplace_back("--svg", providers_chart_path(o.svg_prefix));
    if (family.compute_ceiling) out.emplace_back("--svg", roofline_chart_path(o.svg_prefix));
  }
  return out;
}

void check_output_paths(BenchOptions const& o, h::PlanFamily const& family) {
  for (auto const& [option, path] : output_paths(o, family))
    if (std::string const why = unwritable_reason(path); !why.empty())
      throw std::invalid_argument(option + ": cannot write `" + path + "`: " + why);
}

// The SVG charts of --svg: every result as a bar (throughput) per shape, and for a family with a
// compute ceiling the roofline of every result. False when a chart could not be written.
bool write_charts(std::string const& prefix, h::PlanFamily const& family,
                  std::vector<h::BarGroup> const& groups,
                  std::vector<h::RooflineSample> const& samples, h::Ceilings const& ceilings,
                  std::string const& title) {
  std::string const unit = family.report_flops ? "TFLOP/s" : "GB/s";
  bool ok = write_output(kWho, "--svg", providers_chart_path(prefix),
                         h::bar_chart_svg(groups, unit, title));
  if (family.compute_ceiling && !samples.empty())
    ok = write_output(kWho, "--svg", roofline_chart_path(prefix),
                      h::roofline_svg(samples, ceilings, title)) &&
         ok;
  return ok;
}

}  // namespace

void add_bench_options(CLI::App& b, BenchOptions& o) {
  b.add_option("family", o.family, "what to benchmark (copy, gemm, grouped, attention)")
      ->required();
  b.add_option("--shapes", o.shapes,
               "comma list of shapes, each the family's extents joined by 'x' (copy: bytes; "
               "gemm: MxNxK; grouped: GROUPSxSIZE; attention: BATCHxHEADSxSEQLENxHEAD_DIM)")
      ->required();
  b.add_option("--providers", o.providers,
               "comma list of providers, or `all` (default: the family's, but for the slow ones "
               "`warploom list` marks)");
  b.add_option("--dtype", o.dtype,
               "gemm, grouped: input type, bf16 (default), fp16, e4m3 or e5m2 (gemm)");
  b.add_option("--layout", o.layout,
               "gemm, grouped: BLAS layout letters of A and B, tn (default), nn, nt, tt (gemm)");
  b.add_option("--mix", o.mix,
               "grouped: how the groups' extents are drawn, seed (default: M, N, K from "
               "{128 ... SIZE}) or moe (M_i from {256 ... 2048}, N = K = SIZE)");
  b.add_option("--mask", o.mask, "attention: none (default) or causal (bottom-right aligned)");
  b.add_option("--group", o.group,
               "attention: query heads per K/V head, 1 (default: multi-head), 2 ... 32 (GQA)");
  b.add_option("--epilogue", o.epilogue,
               "gemm: fused after the GEMM, none (default), bias, bias_relu, bias_gelu, "
               "bias_gelu_tanh, bias_silu (a bias per column of D, then the activation)");
  b.add_option("--reps", o.reps, "timed rounds (every provider once per round)")
      ->transform(whole_number(1, 100000));
  b.add_option("--regime", o.regime, "burst, or sustained (after --sustain-s of back-to-back runs)")
      ->check(one_of({"burst", "sustained"}));
  b.add_option("--sustain-s", o.sustain_seconds, "seconds of back-to-back runs before timing")
      ->check(positive_number());
  b.add_option("--graph", o.graph_replays,
               "N > 0: capture each provider's run on each input set as a CUDA graph once and time "
               "N replays back to back per sample (the GPU's time, host work hidden, as in a "
               "captured step); 0 (default): time each call with its host work")
      ->transform(whole_number(0, 10000));
  b.add_flag("--check,!--no-check", o.check,
             "check every contender against the reference on a poisoned output first (default)");
  b.add_option("--prof", o.prof,
               "none; nvtx: ranges around every phase and timed launch for Nsight tools; ncu: "
               "each provider re-run under Nsight Compute, its metrics in the table")
      ->check(one_of({"none", "nvtx", "ncu"}));
  b.add_flag("--autotune", o.autotune,
             "time every point of each provider's tuning space and report the best per shape");
  b.add_option("--points", o.points,
               "with --autotune: only the default point and those whose printed form contains "
               "this text (e.g. variant=pp_s5b2)");
  b.add_option("--json", o.json_path, "write the results here (checked before anything runs)");
  b.add_option("--csv", o.csv_path,
               "write one row per shape and contender here (checked before anything runs)");
  b.add_option("--svg", o.svg_prefix,
               "write PREFIX_providers.svg (throughput per shape) and PREFIX_roofline.svg "
               "(checked before anything runs)");
}

int run_bench(BenchOptions const& o) {
  h::PlanFamily const* family = nullptr;
  std::vector<std::vector<std::int64_t>> shapes;
  std::vector<h::PlanProvider const*> providers;
  std::map<std::string, std::string> parameters;
  try {
    family = find_family(o.family);
    parameters = family_parameters(*family, o);
    shapes = h::parse_extents_list(o.shapes, static_cast<int>(family->extent_names.size()),
                                   "--shapes", std::int64_t{1} << 40);
    providers = chosen_providers(*family, o.providers);
    if (!o.points.empty() && !o.autotune)
      throw std::invalid_argument("--points selects among --autotune's points: add --autotune");
    if (o.prof == "ncu" && o.autotune)
      throw std::invalid_argument(
          "--prof ncu profiles each provider's default configuration: drop --autotune");
    check_output_paths(o, *family);
  } catch (std::invalid_argument const& e) {
    std::fprintf(stderr, "%s: %s\n", kWho, e.what());
    return kUsageError;
  }

  std::size_t name_width = 20;
  std::vector<ShapeRun> runs;
  for (auto const& extents : shapes) {
    runs.push_back(plan_shape({extents, parameters}, providers, o.autotune, o.points));
    for (auto const& c : runs.back().contenders) name_width = std::max(name_width, c.name.size());
  }
  if (std::all_of(runs.begin(), runs.end(),
                  [](ShapeRun const& r) { return r.contenders.empty(); })) {
    std::fprintf(stderr, "%s: no provider runs any of the shapes\n", kWho);
    return kUsageError;
  }

  // Refuse another architecture before anything runs (the kernels are built for sm_90a only): like
  // a missing device, nothing ran, so it is not a failure of the work.
  DeviceInfo const device = query_device();
  if (std::string const why = architecture_mismatch(device); !why.empty()) {
    std::printf("%s: not run: %s\n", kWho, why.c_str());
    return kNoSuitableGpu;
  }
  // The CSV is kept in memory and written at the end with the JSON, so that a failed write is
  // caught and reported the same way for both.
  std::ostringstream csv_text;
  std::optional<h::CsvWriter> csv;
  if (!o.csv_path.empty())
    csv.emplace(csv_text, std::vector<std::string>{
                              "family", "shape", "parameters", "provider", "tuning", "runs",
                              "median_ms", "p10_ms", "p90_ms", "min_ms", "max_ms", "tflop_per_s",
                              "gb_per_s", "bound", "fraction_of_bound", "check"});

  h::CudaEventTimer timer;
  double const bytes_per_s = copy_bandwidth(timer);
  std::printf("device: %s, %d SMs, L2 %lld MiB; memory ceiling (cudaMemcpy, 1 GiB): %.0f GB/s\n",
              device.name.c_str(), device.sm_count, device.l2_bytes >> 20, bytes_per_s / 1e9);
  h::RunOptions run{.reps = o.reps,
                    .warmup = 3,
                    .regime = o.regime == "sustained" ? h::Regime::Sustained : h::Regime::Burst,
                    .sustain_seconds = o.sustain_seconds,
                    .check = o.check,
                    .graph_replays = o.graph_replays,
                    .nvtx = o.prof == "nvtx",
                    .l2_bytes = static_cast<std::size_t>(device.l2_bytes),
                    .ceilings = std::nullopt,
                    .seed = 1};
  ComputeCeilings compute(*family, run);

  nlohmann::json out = h::run_facts(o.command_line);
  out["family"] = family->name;
  out["parameters"] = parameters;
  out["device"] = h::device_json(device);
  out["regime"] = std::string(h::to_string(run.regime));
  out["reps"] = run.reps;
  out["graph_replays"] = run.graph_replays;
  out["method"] =
      std::string(run.graph_replays > 0
                      ? "CUDA events around graph_replays replays of each provider's run, "
                        "captured once per input set, per replay; "
                      : "CUDA events around each launch; ") +
      "providers interleaved per round; input sets rotated to exceed 2x L2; median, p10, p90; % "
      "of the roofline bound from ceilings measured in the run";

  bool const flops = family->report_flops;
  char const* const unit = flops ? "TFLOP/s" : "GB/s";
  // A result's throughput in `unit`.
  auto const throughput = [flops](h::ContenderResult const& r) {
    return flops ? r.roofline->achieved_flops_per_s / 1e12 : r.roofline->achieved_bytes_per_s / 1e9;
  };
  std::string profile_header;
  if (o.prof == "ncu")
    profile_header = "   ncu: us   Mcycles    MHz  tensor%  dram%  occup%  regs  smem KiB";
  bool all_ok = true;
  h::Ceilings last_ceilings{};
  std::vector<h::BarGroup> bars;
  std::vector<h::RooflineSample> samples;
  h::Progress progress(std::cerr, static_cast<int>(shapes.size()), "shapes");
  std::printf("%-18s %-*s %10s %10s %10s %9s %7s %s%s\n", "shape", static_cast<int>(name_width),
              "provider [tuning]", "median ms", "p10 ms", "p90 ms", unit, "% roof", "check",
              profile_header.c_str());
  for (ShapeRun& sr : runs) {
    std::string const shape = shape_name(sr.problem.extents);
    nlohmann::json js = {{"shape", sr.problem.extents}, {"skipped", sr.skipped}};
    if (sr.contenders.empty()) {
      out["shapes"].push_back(js);
      progress.step(shape);
      continue;
    }
    std::vector<h::ContenderResult> results;
    try {
      run.ceilings = h::Ceilings{.flops_per_s = compute.flops_per_s(sr.problem, timer),
                                 .bytes_per_s = bytes_per_s};
      last_ceilings = *run.ceilings;
      results = h::run_contenders(sr.contenders, run, timer);
    } catch (std::exception const& e) {  // a library that refuses the problem, a launch error
      std::printf("%-18s failed: %s\n", shape.c_str(), e.what());
      js["error"] = e.what();
      out["shapes"].push_back(js);
      all_ok = false;
      progress.step(shape);
      continue;
    }
    h::BarGroup group{shape, {}};
    // provider -> index of its fastest point, in the providers' order
    std::vector<std::pair<std::string, std::size_t>> best;
    std::vector<double> kilocycles(results.size(), 0.0);  // under --prof ncu; 0: not profiled
    for (std::size_t i = 0; i < results.size(); ++i) {
      h::ContenderResult const& r = results[i];
      h::Summary const& t = r.milliseconds;
      double const tflops = r.roofline->achieved_flops_per_s / 1e12;
      double const gbs = r.roofline->achieved_bytes_per_s / 1e9;
      std::string const check = !r.check ? "-" : r.check->ok ? "ok" : "WRONG: " + r.check->detail;
      all_ok = all_ok && (!r.check || r.check->ok);
      std::printf("%-18s %-*s %10.3f %10.3f %10.3f %9.*f %6.1f%% %s", shape.c_str(),
                  static_cast<int>(name_width), r.name.c_str(), t.median, t.p10, t.p90,
                  flops ? 1 : 0, throughput(r), 100.0 * r.roofline->fraction_of_bound,
                  check.c_str());
      nlohmann::json jr = {{"provider", sr.providers[i]},
                           {"contender", r.name},
                           {"tuning", r.tuning},
                           {"input_sets", r.input_sets},
                           {"runs", t.count},
                           {"median_ms", t.median},
                           {"p10_ms", t.p10},
                           {"p90_ms", t.p90},
                           {"min_ms", t.min},
                           {"max_ms", t.max},
                           {"tflop_per_s", tflops},
                           {"gb_per_s", gbs},
                           {"intensity", r.roofline->intensity},
                           {"bound", std::string(h::to_string(r.roofline->bound))},
                           {"fraction_of_bound", r.roofline->fraction_of_bound},
                           {"check", check}};
      if (r.check) jr["check_detail"] = r.check->detail;
      if (o.prof == "ncu") {
        std::string error;
        std::optional<h::NcuSummary> const p =
            profile_under_ncu(profile_args(o, sr, sr.providers[i]), r.name, error);
        if (p) {
          kilocycles[i] = p->cycles / 1e3;
          std::printf(" %9.1f %9.4f %6.0f %8.1f %6.1f %7.1f %5d %9.1f", p->duration_us,
                      p->cycles / 1e6, p->sm_clock_mhz(), p->tensor_pipe_pct,
                      p->dram_throughput_pct, p->achieved_occupancy_pct, p->registers_per_thread,
                      static_cast<double>(p->shared_bytes_per_block) / 1024.0);
          jr["ncu"] = {{"kernels", p->kernels},
                       {"longest_kernel", p->longest_kernel},
                       {"duration_us", p->duration_us},
                       {"cycles", p->cycles},
                       {"sm_clock_mhz", p->sm_clock_mhz()},
                       {"tensor_pipe_pct", p->tensor_pipe_pct},
                       {"dram_throughput_pct", p->dram_throughput_pct},
                       {"achieved_occupancy_pct", p->achieved_occupancy_pct},
                       {"registers_per_thread", p->registers_per_thread},
                       {"shared_bytes_per_block", p->shared_bytes_per_block}};
        } else {
          std::printf("   ncu: %s", error.c_str());
          jr["ncu_error"] = error;
        }
      }
      std::printf("\n");
      js["results"].push_back(jr);
      if (csv)
        csv->row({family->name, shape, nlohmann::json(sr.problem.parameters).dump(), r.name,
                  h::to_string(r.tuning), std::to_string(t.count), std::to_string(t.median),
                  std::to_string(t.p10), std::to_string(t.p90), std::to_string(t.min),
                  std::to_string(t.max), std::to_string(tflops), std::to_string(gbs),
                  std::string(h::to_string(r.roofline->bound)),
                  std::to_string(r.roofline->fraction_of_bound), check});
      auto const b = std::find_if(best.begin(), best.end(),
                                  [&](auto const& e) { return e.first == sr.providers[i]; });
      if (b == best.end())
        best.emplace_back(sr.providers[i], i);
      else if (t.median < results[b->second].milliseconds.median)
        b->second = i;
    }
    // The fastest point of each provider: under --autotune what to pick for this shape; the bars
    // and the roofline show it.
    for (auto const& [provider, i] : best) {
      h::ContenderResult const& r = results[i];
      if (o.autotune) {
        std::printf("%-18s best of %s: [%s] %.3f ms\n", shape.c_str(), provider.c_str(),
                    h::to_string(r.tuning).c_str(), r.milliseconds.median);
        js["best"][provider] = {{"tuning", r.tuning}, {"median_ms", r.milliseconds.median}};
      }
      group.bars.emplace_back(provider, throughput(r));
      if (flops)
        samples.push_back(
            {provider + " " + shape, r.roofline->intensity, r.roofline->achieved_flops_per_s});
    }
    // Ours against the best peer: the fastest point of each provider, then (ncu) its cycles.
    auto const compare = [&](auto const& value_of, char const* unit, char const* key) {
      std::vector<h::Measured> measured;
      for (auto const& [provider, i] : best)
        measured.push_back({provider, sr.peers[i], value_of(i)});
      std::optional<h::PeerComparison> const c = h::compare_with_best_peer(measured);
      if (!c) return;
      std::printf("%-18s %s\n", shape.c_str(), c->describe(unit).c_str());
      nlohmann::json ratios = nlohmann::json::object();
      for (auto const& [name, ratio] : c->ratios) ratios[name] = ratio;
      js["vs_best_peer"][key] = {
          {"best_peer", c->best_peer}, {"best_peer_value", c->best_peer_value}, {"ratios", ratios}};
    };
    compare([&](std::size_t i) { return results[i].milliseconds.median; }, "ms", "median_ms");
    if (o.prof == "ncu")
      compare([&](std::size_t i) { return kilocycles[i]; }, "Kcycles", "kilocycles");
    bars.push_back(std::move(group));
    out["shapes"].push_back(js);
    std::fflush(stdout);
    progress.step(shape);
  }
  out["ceilings"] = {{"bytes_per_s", bytes_per_s}, {"compute", compute.json()}};
  out["all_correct"] = all_ok;
  // The clocks the timings left (the H200 drops its clock under the power cap).
  if (std::optional<std::string> const state = h::gpu_state()) out["gpu_state_after"] = *state;
  // A failed write loses results, so it fails the run; the other files are still written.
  bool written = true;
  if (!o.json_path.empty())
    written = write_output(kWho, "--json", o.json_path, out.dump(2) + "\n") && written;
  if (csv) written = write_output(kWho, "--csv", o.csv_path, csv_text.str()) && written;
  if (!o.svg_prefix.empty() && !bars.empty()) {
    std::string title = family->name;
    for (auto const& [name, value] : parameters) title += " " + value;
    title += ", " + device.name + ", " + std::string(h::to_string(run.regime));
    written = write_charts(o.svg_prefix, *family, bars, samples, last_ceilings, title) && written;
  }
  return all_ok && written ? kSuccess : kFailure;
}

}  // namespace warploom::cli
