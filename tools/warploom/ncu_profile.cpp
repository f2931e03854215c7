// tools/warploom/ncu_profile.cpp
#include "ncu_profile.hpp"

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace warploom::cli {
namespace {

// `s` as one word for /bin/sh.
std::string shell_quoted(std::string const& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::optional<harness::NcuSummary> profile_under_ncu(std::vector<std::string> const& bench_args,
                                                     std::string const& contender,
                                                     std::string& error) {
  if (std::system("command -v ncu > /dev/null 2>&1") != 0) {
    error = "ncu (Nsight Compute) is not on PATH";
    return std::nullopt;
  }
  std::string metrics;
  for (std::string const& m : harness::ncu_metrics()) metrics += (metrics.empty() ? "" : ",") + m;
  std::string const log = "/tmp/warploom_ncu_" + std::to_string(::getpid()) + ".csv";
  std::ostringstream cmd;
  cmd << "ncu --csv --page raw --print-units base --metrics " << metrics
      << " --nvtx --nvtx-include " << shell_quoted(contender + " round 0/") << " --log-file "
      << shell_quoted(log) << " /proc/" << ::getpid() << "/exe";
  for (std::string const& a : bench_args) cmd << ' ' << shell_quoted(a);
  cmd << " > /dev/null 2>&1";
  int const status = std::system(cmd.str().c_str());
  std::ifstream in(log);
  std::string const text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(log.c_str());
  if (status != 0) {
    error = "ncu exited with status " + std::to_string(status) + " (" + cmd.str() + ")";
    return std::nullopt;
  }
  try {
    std::optional<harness::NcuSummary> s = harness::summarize_ncu_csv(text);
    if (!s) error = "ncu profiled no kernel in the range `" + contender + " round 0`";
    return s;
  } catch (std::invalid_argument const& e) {
    error = e.what();
    return std::nullopt;
  }
}

}  // namespace warploom::cli
