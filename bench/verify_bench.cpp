// bench/verify_bench.cpp
//
// How long the verifier takes (structural checks + exhaustive model check), per TaskManager, on one
// CPU core: the GEMM-shaped manager of tests/cpu/ts/gemm_shaped.hpp (5 tasks, 4 pipelined or
// coordinate resources, 8 stages, persistent tile loop) and the bundled kernels. Medians of
// --reps runs. --compile-time runs the compile-time gate's search instead (loops 0-2 times, 2000
// states a scenario; "undecided" where it stops there), --no-grown-sets the search without the
// persistent sets grown per state, --only NAME the managers whose name contains NAME.
//
//   verify_bench [--reps N] [--json FILE] [--compile-time] [--no-grown-sets] [--only NAME]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ts/gemm_shaped.hpp"
#include "warploom/ts/manager_traits.hpp"
#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/verifier.hpp"

namespace ts = warploom::ts;

int main(int argc, char** argv) {
  CLI::App app{"verifier time per TaskManager"};
  int reps = 15;
  std::string json_path;
  app.add_option("--reps", reps, "runs per manager (median reported)")->check(CLI::Range(1, 1000));
  app.add_option("--json", json_path, "write results here");
  std::string only;
  app.add_option("--only", only, "managers whose name contains this");
  bool compile_time = false, no_grown_sets = false;
  app.add_flag("--compile-time", compile_time,
               "the compile-time gate's search: loops run 0-2 times, 2000 states a scenario, "
               "undecided allowed");
  app.add_flag("--no-grown-sets", no_grown_sets,
               "without the persistent sets grown per state (README §7)");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::pair<std::string, std::function<ts::ManagerModel()>>> managers{
      {"gemm_shaped (5 tasks, 8 stages, persistent)",
       [] { return gemm_shaped::Manager<>::model("gemm_shaped"); }}};
  for (auto const& s : ts::registered_schedules())
    managers.push_back({std::string(s.name), s.model});

  nlohmann::json out;
  out["machine"] = {{"hardware_concurrency", std::thread::hardware_concurrency()},
                    {"threads_used", 1}};
  std::printf("%-46s %10s %10s %9s %s\n", "manager", "median ms", "max ms", "states", "verdict");
  for (auto const& [name, make] : managers) {
    if (name.find(only) == std::string::npos) continue;
    ts::ManagerModel const m = make();
    std::vector<double> ms;
    ts::ModelCheckStats st;
    bool ok = true;
    ts::ModelCheckOptions opt =
        compile_time
            ? ts::compile_time_check_options(ts::ManagerOptions{}.compile_time_model_check_states)
            : ts::ModelCheckOptions{};
    opt.grown_sets = !no_grown_sets;
    for (int i = 0; i < reps; ++i) {
      auto const t0 = std::chrono::steady_clock::now();
      ts::Report const r = ts::verify_model(m, opt, &st);
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      ok = r.ok();
    }
    std::sort(ms.begin(), ms.end());
    double const median = ms[ms.size() / 2];
    std::printf("%-46s %10.2f %10.2f %9lld %s%s\n", name.c_str(), median, ms.back(), st.states,
                ok ? "ok" : "VIOLATIONS", st.decided ? "" : " (undecided)");
    out["managers"].push_back({{"name", name},
                               {"median_ms", median},
                               {"max_ms", ms.back()},
                               {"states", st.states},
                               {"scenarios", st.scenarios},
                               {"decided", st.decided},
                               {"ok", ok}});
  }
  if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
  return 0;
}
