// tools/warploom/ncu_profile.hpp — `warploom bench --prof ncu`: one contender under Nsight Compute.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "warploom/harness/ncu.hpp"

namespace warploom::cli {

// Runs `warploom <bench_args>` (a bench of one provider on one shape, with --prof nvtx) under
// `ncu`, profiling the kernels launched in the NVTX range "<contender> round 0" with the curated
// metrics, and summarizes them. nullopt, with `error` saying why, when ncu is missing, fails, or
// profiled nothing.
std::optional<harness::NcuSummary> profile_under_ncu(std::vector<std::string> const& bench_args,
                                                     std::string const& contender,
                                                     std::string& error);

}  // namespace warploom::cli
