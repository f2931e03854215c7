// src/harness/run_facts.cpp
#include "warploom/harness/run_facts.hpp"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>

namespace warploom::harness {

std::string utc_timestamp(std::chrono::system_clock::time_point t) {
  std::time_t const seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::optional<std::string> gpu_state() {
  char const* const query =
      "nvidia-smi --id=0 --query-gpu=clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,"
      "temperature.gpu --format=csv,noheader 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(query, "r"), pclose);
  if (!pipe) return std::nullopt;
  std::string out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, pipe.get())) out += buf;
  if (pclose(pipe.release()) != 0 || out.empty()) return std::nullopt;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

nlohmann::json run_facts(std::string const& command) {
  char const* const commit = std::getenv("WARPLOOM_COMMIT");
  nlohmann::json facts = {{"date", utc_timestamp(std::chrono::system_clock::now())},
                          {"command", command},
                          {"commit", commit && *commit ? commit : "unknown"}};
  if (std::optional<std::string> const state = gpu_state()) facts["gpu_state"] = *state;
  return facts;
}

}  // namespace warploom::harness
