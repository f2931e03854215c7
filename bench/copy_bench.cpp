// bench/copy_bench.cpp
//
// Tutorial copies against their hand-written baselines and cudaMemcpy, interleaved in one process
// (A B C A B C ...) so clock and power drift hit every contender alike. Each contender is checked
// byte-exact on random data with a poisoned output before it is timed.
//
//   copy_bench [--gib G] [--reps N] [--json FILE]
//
// Bandwidth counts bytes read plus bytes written. Buffers are >= 1 GiB, far beyond the 60 MiB L2,
// so every repetition streams from HBM.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "tutorial/grid_stride_copy.hpp"
#include "tutorial/tma_copy.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/device_info.hpp"
#include "warploom/harness/device_json.hpp"
#include "warploom/harness/runner.hpp"
#include "warploom/harness/statistics.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace wl = warploom;
namespace tut = warploom::tutorial;
namespace wt = warploom::testing;
namespace harness = warploom::harness;

namespace {

struct Contender {
  std::string name;
  std::function<void()> run;
  std::vector<double> ms;
};

struct Group {
  std::string name;
  std::size_t bytes;  // one direction
  std::vector<Contender> contenders;
  std::function<void()> poison_output;
  std::function<wt::Comparison()> check;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Tutorial copies vs baselines vs cudaMemcpy, interleaved"};
  double gib = 1.0;
  int reps = 30;
  std::string json_path;
  app.add_option("--gib", gib, "size of each buffer in GiB")->check(CLI::PositiveNumber);
  app.add_option("--reps", reps, "timed repetitions per contender")->check(CLI::Range(5, 10000));
  app.add_option("--json", json_path, "write results here");
  CLI11_PARSE(app, argc, argv);

  wl::DeviceInfo device = wl::query_device();
  if (std::string why = wl::architecture_mismatch(device); !why.empty()) {
    std::fprintf(stderr, "copy_bench: %s\n", why.c_str());
    return 1;
  }

  // One buffer pair serves every group: the 2-D copies use rows x 32768 fp16 (64 KiB rows).
  constexpr int kCols = 32768;
  std::size_t const target = static_cast<std::size_t>(gib * (1ull << 30));
  int const rows = static_cast<int>(target / (kCols * sizeof(__half)));
  std::size_t const bytes = static_cast<std::size_t>(rows) * kCols * sizeof(__half);
  std::int64_t const n16 = static_cast<std::int64_t>(bytes / sizeof(std::int16_t));
  wt::DeviceBuffer src(bytes), dst(bytes);
  wt::fill_random(src.get(), bytes, /*seed=*/7);

  auto memcpy_d2d = [&] {
    WL_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice));
  };
  auto poison = [&] { wt::poison(dst.get(), bytes); };
  auto check = [&] { return wt::compare_bytes(src.get(), dst.get(), bytes); };
  auto s16 = src.as<std::int16_t>();
  auto d16 = dst.as<std::int16_t>();
  auto sh = src.as<__half>();
  auto dh = dst.as<__half>();

  auto gs = [&](tut::GridStrideVariant v, tut::Implementation impl) {
    return [&, v, impl] { tut::grid_stride_copy(v, impl, s16, d16, n16); };
  };
  auto tma = [&](tut::TmaCopyVariant v, tut::Implementation impl, int rows_per_cta = 0) {
    return [&, v, impl, rows_per_cta] {
      tut::tma_copy(v, impl, sh, dh, rows, kCols, nullptr, rows_per_cta);
    };
  };
  constexpr auto TS = tut::Implementation::TaskScheduled;
  constexpr auto Base = tut::Implementation::Baseline;
  std::vector<Group> groups;
  groups.push_back({"grid_stride_copy scalar",
                    bytes,
                    {{"ts", gs(tut::GridStrideVariant::Scalar, TS), {}},
                     {"baseline", gs(tut::GridStrideVariant::Scalar, Base), {}},
                     {"cudaMemcpy", memcpy_d2d, {}}},
                    poison,
                    check});
  groups.push_back({"grid_stride_copy vector",
                    bytes,
                    {{"ts", gs(tut::GridStrideVariant::Vector, TS), {}},
                     {"baseline", gs(tut::GridStrideVariant::Vector, Base), {}},
                     {"cudaMemcpy", memcpy_d2d, {}}},
                    poison,
                    check});
  // A kernel's tuning space (TS kernels), beside cudaMemcpy.
  auto tunings = [&](std::string name, std::vector<std::string> const& points, auto launch) {
    Group g{std::move(name), bytes, {{"cudaMemcpy", memcpy_d2d, {}}}, poison, check};
    for (int t = 0; t < static_cast<int>(points.size()); ++t)
      g.contenders.push_back({points[t], [launch, t] { launch(t); }, {}});
    groups.push_back(std::move(g));
  };
  tunings("grid_stride tunings", tut::grid_stride_copy_tunings(),
          [&](int t) { tut::grid_stride_copy_tuned(t, s16, d16, n16); });
  // The multi-stage copy at its chosen band height, and a sweep of band heights (TS).
  groups.push_back({"tma_copy multistage",
                    bytes,
                    {{"ts", tma(tut::TmaCopyVariant::MultiStage, TS), {}},
                     {"baseline", tma(tut::TmaCopyVariant::MultiStage, Base), {}},
                     {"cudaMemcpy", memcpy_d2d, {}},
                     {"ts rows128", tma(tut::TmaCopyVariant::MultiStage, TS, 128), {}},
                     {"ts rows256", tma(tut::TmaCopyVariant::MultiStage, TS, 256), {}},
                     {"ts rows512", tma(tut::TmaCopyVariant::MultiStage, TS, 512), {}},
                     {"ts rows1024", tma(tut::TmaCopyVariant::MultiStage, TS, 1024), {}}},
                    poison,
                    check});
  tunings("tma_copy tunings", tut::tma_copy_tunings(),
          [&](int t) { tut::tma_copy_tuned(t, sh, dh, rows, kCols); });
  groups.push_back({"tma_copy seed",
                    bytes,
                    {{"ts", tma(tut::TmaCopyVariant::Seed, TS), {}},
                     {"baseline", tma(tut::TmaCopyVariant::Seed, Base), {}}},
                    poison,
                    check});

  harness::CudaEventTimer timer;
  nlohmann::json out;
  out["device"] = harness::device_json(device);
  out["bytes_per_buffer"] = bytes;
  out["reps"] = reps;
  out["method"] =
      "CUDA events around each launch; contenders interleaved per repetition; 3 warm-up runs each; "
      "bandwidth = (bytes read + bytes written) / median time";
  bool all_correct = true;
  std::printf("%-24s %-18s %10s %10s %10s %9s %10s\n", "group", "contender", "median ms", "p10 ms",
              "p90 ms", "GB/s", "vs memcpy");
  for (auto& g : groups) {
    for (auto& c : g.contenders) {  // correctness first, on a poisoned output
      g.poison_output();
      c.run();
      wt::Comparison r = g.check();
      if (!r.equal()) {
        std::fprintf(stderr, "%s / %s: WRONG RESULT (%zu bytes differ, first at %zu)\n",
                     g.name.c_str(), c.name.c_str(), r.mismatched_bytes, r.first_mismatch);
        all_correct = false;
      }
      for (int w = 0; w < 3; ++w) c.run();
    }
    for (int r = 0; r < reps; ++r) {
      for (auto& c : g.contenders) {
        c.ms.push_back(timer.milliseconds(c.run));
      }
    }
    std::vector<harness::Summary> summaries;
    for (auto& c : g.contenders) summaries.push_back(harness::summarize(c.ms));
    double memcpy_gbs = 0;
    double baseline_ms = 0;
    for (std::size_t i = 0; i < g.contenders.size(); ++i) {
      if (g.contenders[i].name == "cudaMemcpy")
        memcpy_gbs = 2.0 * g.bytes / (summaries[i].median * 1e-3) / 1e9;
      if (g.contenders[i].name == "baseline") baseline_ms = summaries[i].median;
    }
    nlohmann::json jg;
    jg["name"] = g.name;
    for (std::size_t i = 0; i < g.contenders.size(); ++i) {
      Contender const& c = g.contenders[i];
      harness::Summary const& t = summaries[i];
      double const med = t.median;
      double const gbs = 2.0 * g.bytes / (med * 1e-3) / 1e9;
      std::string vs = memcpy_gbs > 0 ? std::to_string(gbs / memcpy_gbs).substr(0, 5) : "-";
      std::printf("%-24s %-18s %10.3f %10.3f %10.3f %9.0f %10s\n", g.name.c_str(), c.name.c_str(),
                  med, t.p10, t.p90, gbs, vs.c_str());
      nlohmann::json jc = {{"median_ms", med}, {"p10_ms", t.p10}, {"p90_ms", t.p90},
                           {"min_ms", t.min},  {"max_ms", t.max}, {"runs", t.count},
                           {"gb_per_s", gbs}};
      if (memcpy_gbs > 0) jc["fraction_of_memcpy"] = gbs / memcpy_gbs;
      if (baseline_ms > 0) jc["time_vs_baseline"] = med / baseline_ms;
      jg["contenders"][c.name] = jc;
    }
    out["groups"].push_back(jg);
  }
  out["all_correct"] = all_correct;
  if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
  return all_correct ? 0 : 1;
}
