// tools/warploom/precompile_main.cpp — warploom-precompile, the program `warploom precompile ...`
// runs (main.cpp): compiles tensor-core GEMM configurations ahead of time into the kernel cache
// (docs/architecture.md), so a program's first call of one does not wait for the JIT.
//
//   warploom precompile <config>... [--jobs N]    e.g. bf16_fp32_nn_pingpong_s6_b1_2x1
//   warploom precompile --all [--jobs N]          every configuration gemm() can select
//
// Prebuilt configurations need nothing and are reported as such; the others are compiled (or
// found in the cache) with N compilations at a time. Exit codes as every warploom command's.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "arguments.hpp"
#include "exit_codes.hpp"
#include "jit/kernel_cache.hpp"
#include "sm90_instances.hpp"
#include "sm90_source.hpp"

namespace cli = warploom::cli;
namespace sm90 = warploom::gemm::sm90;

namespace {

bool prebuilt(sm90::KernelConfig const& c) {
  auto const all = sm90::prebuilt_instances();
  return std::any_of(all.begin(), all.end(), [&](auto const& i) { return i.config == c; });
}

// Compiles `configs` on `jobs` threads; returns the number that failed.
int precompile(std::vector<sm90::KernelConfig> const& configs, int jobs) {
  std::atomic<std::size_t> next{0};
  std::atomic<int> failures{0};
  std::mutex print;
  auto worker = [&] {
    for (std::size_t i; (i = next++) < configs.size();) {
      sm90::KernelConfig const& c = configs[i];
      std::string const name = sm90::name_of(c);
      auto const t0 = std::chrono::steady_clock::now();
      std::string what = "prebuilt";
      try {
        if (!prebuilt(c)) {
          if (c.grouped) {
            sm90::grouped_instance_for(c);
          } else {
            sm90::instance_for(c);
          }
          what = "ready";
        }
      } catch (std::exception const& e) {
        what = std::string("FAILED: ") + e.what();
        ++failures;
      }
      double const s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::lock_guard lock(print);
      std::printf("[%zu/%zu] %-44s %8.3f s  %s\n", i + 1, configs.size(), name.c_str(), s,
                  what.c_str());
      std::fflush(stdout);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < jobs; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  // Parsed as `warploom precompile ...`, so that messages and --help name the command typed.
  std::vector<char const*> args{"warploom", "precompile"};
  args.insert(args.end(), argv + 1, argv + argc);
  CLI::App app{"warploom: verified warp-specialized kernels", "warploom"};
  app.require_subcommand(1);
  CLI::App* sub = app.add_subcommand(
      "precompile", "compile GEMM configurations into the kernel cache ahead of time");
  std::vector<std::string> names;
  bool all = false;
  long long jobs = std::max(1u, std::thread::hardware_concurrency());
  sub->add_option("configs", names, "configuration names, e.g. bf16_fp32_nn_pingpong_s6_b1_2x1");
  sub->add_flag("--all", all, "every configuration gemm() can select");
  sub->add_option("--jobs,-j", jobs, "compilations at a time (default: one per core)")
      ->transform(cli::whole_number(1, 256));
  for (CLI::App* a : {&app, sub}) a->footer(cli::kExitCodesHelp);
  int const n = static_cast<int>(args.size());
  if (std::optional<int> const done = cli::parse_command_line(app, n, args.data())) return *done;

  std::vector<sm90::KernelConfig> configs;
  if (all) configs = sm90::selectable_configs();
  std::vector<std::string> known;
  for (auto const& c : sm90::selectable_configs()) known.push_back(sm90::name_of(c));
  for (std::string const& name : names) {
    std::optional<sm90::KernelConfig> const c = sm90::parse_config(name);
    if (!c) {
      std::fprintf(
          stderr,
          "warploom precompile: `%s` is not a configuration name "
          "(<in>_<out>_<tn|nn|nt|tt>_<cooperative|pingpong>_s<stages>_b<buffers>_<MxN>)%s\n",
          name.c_str(), cli::did_you_mean(name, known).c_str());
      return cli::kUsageError;
    }
    configs.push_back(*c);
  }
  if (configs.empty()) {
    std::fprintf(stderr, "warploom precompile: name configurations or pass --all\n");
    return cli::kUsageError;
  }
  std::printf("kernel cache: %s\n", warploom::jit::KernelCache::default_dir().string().c_str());
  return precompile(configs, static_cast<int>(jobs)) == 0 ? cli::kSuccess : cli::kFailure;
}
