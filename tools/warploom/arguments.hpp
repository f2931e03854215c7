// tools/warploom/arguments.hpp — checking the `warploom` command line and wording its errors.
//
// Every refusal names the argument and the rule ("--reps: 0 must be at least 1"), suggests the
// closest valid word when one is close ("no command `verfy`; did you mean `verify`?"), and exits
// with kUsageError, CLI11's own parse errors included.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace warploom::cli {

// The edit distance of `a` and `b` (insertions, deletions, substitutions and swaps of adjacent
// letters, each costing 1), ignoring ASCII case.
std::size_t edit_distance(std::string_view a, std::string_view b);

// "; did you mean `X`?" for the candidate X closest to `word`, when it is close enough to be a
// likely typo (at most one edit per three letters); "" otherwise.
std::string did_you_mean(std::string_view word, std::vector<std::string> const& candidates);

// `items` joined by ", ".
std::string comma_list(std::vector<std::string> const& items);

// CLI11 checks. Each refuses the text with the rule, and CLI11 prefixes the option's name.
//
// A whole number in [min, max]: "`abc` is not a number", "`1.5` is not a whole number",
// "0 must be at least 1". Integral scientific notation (1e6) is accepted and rewritten in digits,
// since CLI11 converts integers from digits only; add it with Option::transform, as `check` hands
// validators a copy to read.
CLI::Validator whole_number(long long min, long long max = std::numeric_limits<long long>::max());
// A finite number greater than zero: "-1 must be greater than 0".
CLI::Validator positive_number();
// One of `values`: "`fast` is not one of burst, sustained".
CLI::Validator one_of(std::vector<std::string> values);

// Parses the command line into `app`. nullopt when the work should go on; otherwise the exit code
// to return at once: kSuccess after printing --help, kUsageError after printing what was wrong.
std::optional<int> parse_command_line(CLI::App& app, int argc, char const* const* argv);

}  // namespace warploom::cli
