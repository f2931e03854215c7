// tools/warploom/exit_codes.hpp — the exit codes of every `warploom` subcommand (docs/cli.md).
//
// One set for all of them, so that a script or ctest can tell "the tool was misused" from "the
// work found a problem" from "this machine cannot run it" without knowing the subcommand.
#pragma once

namespace warploom::cli {

inline constexpr int kSuccess = 0;
// The work ran and found a failure: a verification finding, a check mismatch, a failed write.
inline constexpr int kFailure = 1;
// An argument or option was refused (CLI11's own parse errors included), before any work ran.
inline constexpr int kUsageError = 2;
// No suitable GPU (bench): ctest's SKIP_RETURN_CODE, so GPU tests skip on a machine without one.
inline constexpr int kNoSuitableGpu = 77;

// The set as the `--help` footers print it.
inline constexpr char kExitCodesHelp[] =
    "Exit codes: 0 success; 1 the work ran and found a failure (a verification finding, a check\n"
    "mismatch, a failed write); 2 usage error (an argument or option refused, nothing run);\n"
    "77 no suitable GPU (bench; ctest's skip code).";

}  // namespace warploom::cli
