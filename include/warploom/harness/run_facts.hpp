// warploom/harness/run_facts.hpp
//
// What a result file records about its run besides the device (device_json.hpp): when it ran
// (UTC), the command, the commit, and the GPU's clocks, power and temperature as nvidia-smi
// reports them right then, so that a number can be traced to a build and judged against the
// clock it ran at (the H200 drops its clock under the 700 W cap).
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace warploom::harness {

// "2026-11-29T23:05:09Z".
std::string utc_timestamp(std::chrono::system_clock::time_point t);

// nvidia-smi's "sm clock, max sm clock, memory clock, power draw, power limit, temperature" of
// GPU 0, or nullopt when nvidia-smi is absent or fails.
std::optional<std::string> gpu_state();

// {"date", "command", "commit" ($WARPLOOM_COMMIT, else "unknown"), "gpu_state" (when known)}.
nlohmann::json run_facts(std::string const& command);

}  // namespace warploom::harness
