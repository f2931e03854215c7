// tools/warploom/bench_main.cpp — warploom-bench: the program `warploom bench ...` runs (see
// main.cpp), with the same arguments and exit codes:
//
//   warploom bench <family> --shapes S,...  time a family's providers side by side (GPU)
//            [--providers a,b] [--dtype T] [--layout L] [--reps N] [--regime burst|sustained]
//            [--no-check] [--autotune] [--prof none|nvtx|ncu] [--json F] [--csv F] [--svg PREFIX]
//   warploom-bench --list                   the families and their providers (`warploom list`)
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "arguments.hpp"
#include "bench_command.hpp"
#include "exit_codes.hpp"
#include "plans.hpp"

namespace cli = warploom::cli;

namespace {

int list_families() {
  std::printf("\nbench families (warploom bench <family> --shapes ...):\n");
  for (auto const& f : warploom::bench_families()) {
    std::printf("%-26s %s\n", f.name.c_str(), f.description.c_str());
    for (auto const& p : f.providers)
      std::printf("  %-24s %s%s\n", p.name.c_str(), p.description.c_str(),
                  p.by_default ? "" : " [on request: --providers]");
  }
  return cli::kSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--list") return list_families();
  // Parsed as `warploom bench ...`, so that every message and --help names the command the user
  // typed.
  // (A leading `bench` is skipped: the --prof ncu child runs this program as `... bench <args>`.)
  std::vector<char const*> args{"warploom", "bench"};
  int const first = argc >= 2 && std::string(argv[1]) == "bench" ? 2 : 1;
  args.insert(args.end(), argv + first, argv + argc);
  CLI::App app{"warploom: verified warp-specialized kernels", "warploom"};
  app.require_subcommand(1);
  CLI::App* bench =
      app.add_subcommand("bench", "time a family's providers side by side (needs an sm_90 GPU)");
  cli::BenchOptions options;
  cli::add_bench_options(*bench, options);
  for (CLI::App* a : {&app, bench}) a->footer(cli::kExitCodesHelp);
  int const n = static_cast<int>(args.size());
  if (std::optional<int> const done = cli::parse_command_line(app, n, args.data())) return *done;
  for (int i = 0; i < n; ++i) options.command_line += (i ? " " : "") + std::string(args[i]);
  try {
    return cli::run_bench(options);
  } catch (std::exception const& e) {  // a CUDA or library error mid-run: the work failed
    std::fprintf(stderr, "warploom bench: failed: %s\n", e.what());
    return cli::kFailure;
  }
}
