// tools/warploom/main.cpp — the warploom command line.
//
//   warploom list                          the bundled kernels and bench families
//   warploom verify <kernel>... | --all    schedule tables and verdicts (no GPU needed)
//            [--round-robin] [--max-states N] [--allow-undecided] [--no-clusters]
//   warploom bench <family> --shapes S,...  time a family's providers side by side (GPU)
//            [--providers a,b] [--dtype T] [--layout L] [--reps N] [--regime burst|sustained]
//            [--no-check] [--autotune] [--prof none|nvtx|ncu] [--json F] [--csv F] [--svg PREFIX]
//
// `verify` runs every structural check and the exhaustive model checker; it exits 1 when any
// kernel has a finding, printing each with its rule, task, resource, op and counterexample. A
// clustered kernel is modelled CTA by CTA (one copy of its tasks per CTA, multicast copies and
// remote arrivals), as the build's compile-time check does; --no-clusters checks one CTA.
// Every subcommand uses the exit codes of exit_codes.hpp (docs/cli.md).
//
// This program links the schedules and the verifier only, so `list` and `verify` run anywhere, no
// CUDA library needed; `bench` is the program warploom-bench beside it (bench_main.cpp: the
// kernels, cuBLAS and CUTLASS), which `warploom bench ...` runs in its place, the way git runs its
// verbs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "arguments.hpp"
#include "exit_codes.hpp"
#include "sibling.hpp"
#include "warploom/ts/print.hpp"
#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/verifier.hpp"
#include "warploom/ts/verify/check_model.hpp"  // round_robin_table

namespace ts = warploom::ts;
namespace cli = warploom::cli;

namespace {

int list_kernels() {
  for (auto const& s : ts::registered_schedules())
    std::printf("%-30s %.*s\n", std::string(s.name).c_str(), static_cast<int>(s.description.size()),
                s.description.data());
  std::fflush(stdout);
  // The bench families, from the program that has them (absent from a verify-only install).
  if (cli::sibling_exists("warploom-bench")) return cli::run_sibling("warploom-bench", {"--list"});
  return cli::kSuccess;
}

// The registered schedule named `name`; nullptr, after saying so, when there is none.
ts::RegisteredSchedule const* find_kernel(std::string const& name) {
  auto const kernels = ts::registered_schedules();
  auto it =
      std::find_if(kernels.begin(), kernels.end(), [&](auto const& k) { return k.name == name; });
  if (it != kernels.end()) return &*it;
  std::vector<std::string> known;
  for (auto const& k : kernels) known.emplace_back(k.name);
  std::fprintf(stderr, "warploom verify: no kernel named `%s` (see `warploom list`)%s\n",
               name.c_str(), cli::did_you_mean(name, known).c_str());
  return nullptr;
}

int verify_kernels(std::vector<std::string> names, bool all, bool round_robin, long long max_states,
                   bool allow_undecided, bool clusters) {
  if (all)
    for (auto const& k : ts::registered_schedules()) names.emplace_back(k.name);
  if (names.empty()) {
    std::fprintf(stderr, "warploom verify: name a kernel (see `warploom list`) or pass --all\n");
    return cli::kUsageError;
  }
  // Every name is looked up before the first is verified: a usage error stops the command before
  // it runs, never half-way through.
  std::vector<ts::RegisteredSchedule const*> chosen;
  for (auto const& name : names) {
    chosen.push_back(find_kernel(name));
    if (chosen.back() == nullptr) return cli::kUsageError;
  }
  int failures = 0;
  for (ts::RegisteredSchedule const* kernel : chosen) {
    ts::ManagerModel const m = kernel->model();
    ts::ModelCheckOptions opt;
    opt.max_states = max_states;
    opt.allow_undecided = allow_undecided;
    opt.model_clusters = clusters;
    ts::ModelCheckStats stats;
    auto const t0 = std::chrono::steady_clock::now();
    ts::Report const r = ts::verify_model(m, opt, &stats);
    double const ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s\n", ts::schedule_table(m, &r).c_str());
    if (round_robin) std::printf("%s\n", ts::round_robin_table(m).c_str());
    std::printf("model check: %lld states in %d scenarios, %s, %.1f ms\n\n", stats.states,
                stats.scenarios, stats.decided ? "decided" : "UNDECIDED", ms);
    failures += r.ok() ? 0 : 1;
  }
  return failures == 0 ? cli::kSuccess : cli::kFailure;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"warploom: verified warp-specialized kernels"};
  // The project's version (CMakeLists.txt's project(), the one source of it for the build).
  app.set_version_flag("--version", std::string("warploom ") + WARPLOOM_VERSION,
                       "print warploom's version and exit");
  app.require_subcommand(1);
  CLI::App* list = app.add_subcommand("list", "list the bundled kernels");
  CLI::App* verify = app.add_subcommand("verify", "verify kernels' TaskManagers (no GPU needed)");
  std::vector<std::string> names;
  bool all = false, round_robin = false, allow_undecided = false, clusters = true;
  long long max_states = ts::ModelCheckOptions{}.max_states;
  verify->add_option("kernels", names, "kernel names (see `warploom list`)");
  verify->add_flag("--all", all, "verify every bundled kernel");
  verify->add_flag("--round-robin", round_robin, "also print the round-robin step table");
  verify->add_option("--max-states", max_states, "model-check state budget per scenario")
      ->transform(cli::whole_number(1));
  verify->add_flag("--allow-undecided", allow_undecided,
                   "report a check that hits the budget without failing");
  verify->add_flag("--clusters,!--no-clusters", clusters,
                   "model a cluster CTA by CTA: one copy of the tasks per CTA (the default, as "
                   "the build's compile-time check does; --no-clusters: one CTA; "
                   "docs/verification/README.md, section 7)");
  // Named here for --help and for suggestions; run by the programs warploom-<verb> (below).
  app.add_subcommand("bench", "time a family's providers side by side (needs an sm_90 GPU)")
      ->allow_extras();
  app.add_subcommand("precompile",
                     "compile GEMM configurations into the kernel cache ahead of time")
      ->allow_extras();
  for (CLI::App* a : {&app, list, verify}) a->footer(cli::kExitCodesHelp);

  for (std::string verb : {"bench", "precompile"})
    if (argc >= 2 && argv[1] == verb)
      return cli::exec_sibling("warploom-" + verb, argc - 2, argv + 2);
  if (std::optional<int> const done = cli::parse_command_line(app, argc, argv)) return *done;
  std::string const command = app.get_subcommands().front()->get_name();
  try {
    if (command == "list") return list_kernels();
    return verify_kernels(names, all, round_robin, max_states, allow_undecided, clusters);
  } catch (std::exception const& e) {  // a CUDA or library error mid-run: the work failed
    std::fprintf(stderr, "warploom %s: failed: %s\n", command.c_str(), e.what());
    return cli::kFailure;
  }
}
