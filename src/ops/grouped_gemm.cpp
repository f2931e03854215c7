// src/ops/grouped_gemm.cpp — ops::GroupedGemm (warploom/ops/grouped_gemm.hpp).
#include "warploom/ops/grouped_gemm.hpp"

#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace warploom::ops {
namespace {

bool computes_nothing(GemmGroup const& g) {
  return g.d.rows == 0 || g.d.cols == 0;
}

// Runs `check` for group `i`, a refusal rethrown with the group's index in front of ops::Gemm's
// message (its arguments `a`, `b` ... becoming `groups[i].a` ...), of the same exception type.
template <class Check>
auto for_group(std::size_t i, Check&& check) {
  auto const named = [i](char const* what) {
    std::string message = what;
    // ops::Gemm names an argument as `a`, `b`, `c`, `d`: name the group's.
    for (char const arg : {'a', 'b', 'c', 'd'}) {
      std::string const plain = fmt::format("`{}`", arg);
      std::string const grouped = fmt::format("`groups[{}].{}`", i, arg);
      for (std::size_t at = message.find(plain); at != std::string::npos;
           at = message.find(plain, at + grouped.size()))
        message.replace(at, plain.size(), grouped);
    }
    return fmt::format("GroupedGemm: groups[{}]: {}", i, message);
  };
  try {
    return check();
  } catch (DtypeError const& e) {
    throw DtypeError(named(e.what()));
  } catch (std::invalid_argument const& e) {
    throw std::invalid_argument(named(e.what()));
  }
}

}  // namespace

GroupedGemm::GroupedGemm(GemmOptions const& options) : plan_(options) {}

GroupedGemm::GroupedGemm(ScalarType element, MatrixLayout layout, std::optional<Arch> arch)
    : plan_(element, layout, arch) {}

std::string GroupedGemm::describe() const {
  return "GroupedGemm of " + plan_.describe();
}

GroupedGemm::Arguments GroupedGemm::arguments(std::span<GemmGroup const> groups, float alpha,
                                              float beta) const {
  Arguments out;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    GemmGroup const& g = groups[i];
    if (computes_nothing(g)) continue;
    out.args.push_back(
        for_group(i, [&] { return plan_.arguments(g.a, g.b, g.c, g.d, alpha, beta); }));
    out.index.push_back(i);
  }
  return out;
}

void GroupedGemm::run(std::span<GemmGroup const> groups, float alpha, float beta,
                      cudaStream_t stream) const {
  // Every group checked as the plan's run() checks one (the current device included), before any
  // is enqueued; then gemm::grouped_gemm launches them together. Without a device that can run the
  // plan, a bad group is still named first (it is the more specific error), then the device.
  try {
    plan_.check_run_device();
  } catch (std::invalid_argument const&) {
    (void)arguments(groups, alpha, beta);
    throw;
  }
  Arguments checked;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    GemmGroup const& g = groups[i];
    if (computes_nothing(g)) continue;
    checked.args.push_back(
        for_group(i, [&] { return plan_.run_arguments(g.a, g.b, g.c, g.d, alpha, beta); }));
    checked.index.push_back(i);
  }
  try {
    gemm::grouped_gemm(checked.args.data(), checked.args.size(), stream, plan_.run_tuning());
  } catch (std::invalid_argument const& e) {
    // Only the driver's verdicts are left (a host pointer): grouped_gemm names the group by its
    // place among the non-empty ones; name it by its place among `groups`.
    std::string message = e.what();
    std::size_t j = 0;
    std::string const prefix = "grouped_gemm: groups[";
    if (message.rfind(prefix, 0) == 0) {
      std::size_t const close = message.find("]: ", prefix.size());
      j = std::stoul(message.substr(prefix.size(), close - prefix.size()));
      message = message.substr(close + 3);
    }
    throw std::invalid_argument(fmt::format("GroupedGemm: groups[{}]: Gemm.run: {}",
                                            j < checked.index.size() ? checked.index[j] : j,
                                            message));
  }
}

}  // namespace warploom::ops
