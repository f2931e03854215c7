// tools/warploom/sibling.hpp — the programs installed beside `warploom` that run its heavier verbs
// (warploom-bench), found next to the running executable, not on PATH: a build tree and an install
// prefix each use their own.
#pragma once

#include <string>
#include <vector>

namespace warploom::cli {

bool sibling_exists(std::string const& name);

// Replaces this process with sibling `name` given `args` (never returns on success); on failure
// says why and returns kFailure.
int exec_sibling(std::string const& name, int argc, char** argv);

// Runs sibling `name` with `args`, sharing this process's output, and returns its exit code.
int run_sibling(std::string const& name, std::vector<std::string> const& args);

}  // namespace warploom::cli
