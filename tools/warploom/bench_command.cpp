// tools/warploom/bench_command.cpp — `warploom bench`: a family's providers on each shape, timed by
// the harness's runner against ceilings measured in the same process.
#include "bench_command.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plans.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/device_info.hpp"
#include "warploom/harness/csv.hpp"
#include "warploom/harness/device_json.hpp"
#include "warploom/harness/extents.hpp"
#include "warploom/harness/progress.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::cli {
namespace {

namespace h = warploom::harness;

constexpr int kBadArguments = 2;
constexpr int kNoDevice = 77;  // ctest's SKIP_RETURN_CODE for GPU tests

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

std::string names_of(std::vector<h::PlanProvider> const& providers) {
  std::string s;
  for (auto const& p : providers) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

std::string shape_name(std::vector<std::int64_t> const& extents) {
  std::string s;
  for (std::int64_t e : extents) s += (s.empty() ? "" : "x") + std::to_string(e);
  return s;
}

}  // namespace

void add_bench_options(CLI::App& b, BenchOptions& o) {
  b.add_option("family", o.family, "what to benchmark (copy)")->required();
  b.add_option("--shapes", o.shapes,
               "comma list of shapes, each the family's extents joined by 'x' (copy: bytes)")
      ->required();
  b.add_option("--providers", o.providers, "comma list of providers (default: all of the family)");
  b.add_option("--reps", o.reps, "timed rounds (every provider once per round)")
      ->check(CLI::Range(5, 100000));
  b.add_option("--regime", o.regime, "burst, or sustained (after --sustain-s of back-to-back runs)")
      ->check(CLI::IsMember({"burst", "sustained"}));
  b.add_option("--sustain-s", o.sustain_seconds, "seconds of back-to-back runs before timing")
      ->check(CLI::PositiveNumber);
  b.add_flag("--no-check", o.no_check, "skip the check against the reference");
  b.add_option("--prof", o.prof,
               "none, or nvtx: ranges around every phase and timed launch for Nsight tools")
      ->check(CLI::IsMember({"none", "nvtx"}));
  b.add_flag("--autotune", o.autotune, "time every point of each provider's tuning space");
  b.add_option("--json", o.json_path, "write the results here");
  b.add_option("--csv", o.csv_path, "write one row per shape and contender here");
}

int run_bench(BenchOptions const& o) {
  auto const& families = bench_families();
  auto const family = std::find_if(families.begin(), families.end(),
                                   [&](h::PlanFamily const& f) { return f.name == o.family; });
  if (family == families.end()) {
    std::string known;
    for (auto const& f : families) known += (known.empty() ? "" : ", ") + f.name;
    std::fprintf(stderr, "warploom bench: no family `%s` (families: %s)\n", o.family.c_str(),
                 known.c_str());
    return kBadArguments;
  }
  std::vector<std::vector<std::int64_t>> shapes;
  std::vector<h::PlanProvider const*> providers;
  try {
    shapes = h::parse_extents_list(o.shapes, static_cast<int>(family->extent_names.size()),
                                   "--shapes", std::int64_t{1} << 40);
    if (o.providers.empty()) {
      for (auto const& p : family->providers) providers.push_back(&p);
    } else {
      for (std::string const& name : h::split_list(o.providers, "--providers")) {
        auto const p = std::find_if(family->providers.begin(), family->providers.end(),
                                    [&](h::PlanProvider const& q) { return q.name == name; });
        if (p == family->providers.end())
          throw std::invalid_argument("--providers: `" + name + "` is not a provider of " +
                                      family->name + " (" + names_of(family->providers) + ")");
        providers.push_back(&*p);
      }
    }
  } catch (std::invalid_argument const& e) {
    std::fprintf(stderr, "warploom bench: %s\n", e.what());
    return kBadArguments;
  }

  // Every provider's plan for every shape, before anything touches the GPU: a problem a
  // provider does not run is reported here (plans allocate nothing until prepare()).
  struct ShapeRun {
    std::vector<std::int64_t> extents;
    std::vector<h::Contender> contenders;
    nlohmann::json skipped = nlohmann::json::object();
  };
  std::vector<ShapeRun> runs;
  for (auto const& extents : shapes) {
    ShapeRun& sr = runs.emplace_back(ShapeRun{extents, {}});
    h::Problem const problem{extents};
    for (h::PlanProvider const* p : providers) {
      try {
        std::unique_ptr<h::KernelPlan> plan = p->make(problem);
        std::vector<h::Tuning> points = plan->tuning_space();
        if (!o.autotune) points.resize(1);
        for (std::size_t i = 0; i < points.size(); ++i) {
          std::string const name =
              o.autotune ? p->name + " [" + h::to_string(points[i]) + "]" : p->name;
          sr.contenders.push_back({name, i == 0 ? std::move(plan) : p->make(problem), points[i]});
        }
      } catch (std::invalid_argument const& e) {
        std::printf("%-16s %-34s skipped: %s\n", shape_name(extents).c_str(), p->name.c_str(),
                    e.what());
        sr.skipped[p->name] = e.what();
      }
    }
  }
  if (std::all_of(runs.begin(), runs.end(),
                  [](ShapeRun const& r) { return r.contenders.empty(); })) {
    std::fprintf(stderr, "warploom bench: no provider runs any of the shapes\n");
    return kBadArguments;
  }

  // Refuse another architecture before anything runs (the kernels are built for sm_90a only).
  DeviceInfo const device = query_device();
  if (std::string const why = architecture_mismatch(device); !why.empty()) {
    std::printf("warploom bench: not run: %s\n", why.c_str());
    return device.present ? 1 : kNoDevice;
  }

  h::CudaEventTimer timer;
  // No family has a compute ceiling yet (the copy family does no arithmetic): the compute side
  // of the roofline is left unbounded.
  h::Ceilings const ceilings{.flops_per_s = std::numeric_limits<double>::infinity(),
                             .bytes_per_s = copy_bandwidth(timer)};
  std::printf("device: %s, %d SMs, L2 %lld MiB; memory ceiling (cudaMemcpy, 1 GiB): %.0f GB/s\n",
              device.name.c_str(), device.sm_count, device.l2_bytes >> 20,
              ceilings.bytes_per_s / 1e9);
  h::RunOptions const run{
      .reps = o.reps,
      .warmup = 3,
      .regime = o.regime == "sustained" ? h::Regime::Sustained : h::Regime::Burst,
      .sustain_seconds = o.sustain_seconds,
      .check = !o.no_check,
      .nvtx = o.prof == "nvtx",
      .l2_bytes = static_cast<std::size_t>(device.l2_bytes),
      .ceilings = ceilings,
      .seed = 1};

  nlohmann::json out = {{"family", family->name},
                        {"device", h::device_json(device)},
                        {"regime", std::string(h::to_string(run.regime))},
                        {"reps", run.reps},
                        {"ceilings", {{"bytes_per_s", ceilings.bytes_per_s}}},
                        {"method",
                         "CUDA events around each launch; providers interleaved per round; input "
                         "sets rotated to exceed 2x L2; median, p10, p90"}};
  std::ofstream csv_file;
  std::optional<h::CsvWriter> csv;
  if (!o.csv_path.empty()) {
    csv_file.open(o.csv_path);
    if (!csv_file) {
      std::fprintf(stderr, "warploom bench: --csv %s: cannot open it for writing\n",
                   o.csv_path.c_str());
      return kBadArguments;
    }
    csv.emplace(csv_file,
                std::vector<std::string>{"family", "shape", "provider", "tuning", "runs",
                                         "median_ms", "p10_ms", "p90_ms", "min_ms", "max_ms",
                                         "gb_per_s", "bound", "fraction_of_bound", "check"});
  }

  bool all_ok = true;
  h::Progress progress(std::cerr, static_cast<int>(shapes.size()), "shapes");
  std::printf("%-16s %-34s %10s %10s %10s %9s %7s %s\n", "shape", "provider [tuning]", "median ms",
              "p10 ms", "p90 ms", "GB/s", "% roof", "check");
  for (ShapeRun& sr : runs) {
    std::string const shape = shape_name(sr.extents);
    nlohmann::json js = {{"shape", sr.extents}, {"skipped", sr.skipped}};
    if (sr.contenders.empty()) {
      progress.step(shape);
      continue;
    }
    for (h::ContenderResult const& r : h::run_contenders(sr.contenders, run, timer)) {
      h::Summary const& t = r.milliseconds;
      double const gbs = r.roofline->achieved_bytes_per_s / 1e9;
      std::string const check = !r.check ? "-" : r.check->ok ? "ok" : "WRONG: " + r.check->detail;
      all_ok = all_ok && (!r.check || r.check->ok);
      std::printf("%-16s %-34s %10.3f %10.3f %10.3f %9.0f %6.1f%% %s\n", shape.c_str(),
                  r.name.c_str(), t.median, t.p10, t.p90, gbs,
                  100.0 * r.roofline->fraction_of_bound, check.c_str());
      js["results"].push_back({{"provider", r.name},
                               {"tuning", r.tuning},
                               {"input_sets", r.input_sets},
                               {"runs", t.count},
                               {"median_ms", t.median},
                               {"p10_ms", t.p10},
                               {"p90_ms", t.p90},
                               {"min_ms", t.min},
                               {"max_ms", t.max},
                               {"gb_per_s", gbs},
                               {"bound", std::string(h::to_string(r.roofline->bound))},
                               {"fraction_of_bound", r.roofline->fraction_of_bound},
                               {"check", check}});
      if (csv)
        csv->row({family->name, shape, r.name, h::to_string(r.tuning), std::to_string(t.count),
                  std::to_string(t.median), std::to_string(t.p10), std::to_string(t.p90),
                  std::to_string(t.min), std::to_string(t.max), std::to_string(gbs),
                  std::string(h::to_string(r.roofline->bound)),
                  std::to_string(r.roofline->fraction_of_bound), check});
    }
    out["shapes"].push_back(js);
    std::fflush(stdout);
    progress.step(shape);
  }
  out["all_correct"] = all_ok;
  if (!o.json_path.empty()) std::ofstream(o.json_path) << out.dump(2) << "\n";
  return all_ok ? 0 : 1;
}

}  // namespace warploom::cli
