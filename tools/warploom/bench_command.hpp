// tools/warploom/bench_command.hpp — `warploom bench`: options and the command.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "warploom/harness/runner.hpp"

namespace warploom::cli {

struct BenchOptions {
  std::string family;
  std::string shapes;     // comma list of the family's extents joined by 'x'
  std::string providers;  // comma list; empty: all of the family's
  // The family's parameters; empty: its default.
  std::string dtype, layout, epilogue, mix, mask, group;
  int reps = 30;
  std::string regime = "burst";
  double sustain_seconds = 5.0;
  int graph_replays = 0;  // > 0: time captured CUDA graphs, this many replays per sample
  bool check = true;
  std::string prof = "none";  // none | nvtx | ncu
  bool autotune = false;      // every provider's whole tuning space, one contender per point
  std::string points;         // under autotune: only the points whose printed form has this
  std::string json_path, csv_path;
  std::string svg_prefix;    // PREFIX_roofline.svg, PREFIX_providers.svg
  std::string command_line;  // recorded in the JSON
};

// Adds the `bench` subcommand's options to `bench`, writing into `o`.
void add_bench_options(CLI::App& bench, BenchOptions& o);

// Runs it, with the exit codes of exit_codes.hpp: kSuccess (every check passed and every file
// written), kFailure (a check failed, a shape failed to run or a result file could not be
// written), kUsageError (an argument refused, an output path not writable: nothing ran),
// kNoSuitableGpu (no CUDA device, or one of another architecture: nothing ran).
int run_bench(BenchOptions const& o);

}  // namespace warploom::cli
