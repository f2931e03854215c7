// tools/warploom/arguments.hpp — checking the `warploom` command line and wording its errors.
//
// Every refusal names the subcommand and exits with kUsageError, CLI11's own parse errors
// included.
#pragma once

#include <optional>

#include <CLI/CLI.hpp>

namespace warploom::cli {

// Parses the command line into `app`. nullopt when the work should go on; otherwise the exit code
// to return at once: kSuccess after printing --help, kUsageError after printing what was wrong.
std::optional<int> parse_command_line(CLI::App& app, int argc, char const* const* argv);

}  // namespace warploom::cli
