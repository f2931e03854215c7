// python/src/verify.cpp
//
// warploom.verify: the verifier over the build's registered schedules, as `warploom verify`
// (tools/warploom/main.cpp) runs it — every structural rule, then the exhaustive model check —
// with its verdict as a value: a Verdict per schedule, holding the schedule table (with the
// findings), each violation in its one-line form, and the model check's statistics.
#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "warploom/ts/print.hpp"
#include "warploom/ts/schedule_unit.hpp"
#include "warploom/ts/verifier.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace warploom::python {
namespace {

struct Verdict {
  std::string name, description;
  bool ok = false;
  std::vector<std::string> violations;  // "<rule id> task `t` resource `r` op `o`: message"
  std::string table;                    // the schedule table, findings included
  long long states = 0;
  int scenarios = 0;
  bool decided = true;
  double milliseconds = 0;

  std::string summary() const {
    return fmt::format("{}: {} (model check: {} states in {} scenarios, {}, {:.1f} ms)", name,
                       ok ? "verified" : fmt::format("{} violation(s)", violations.size()), states,
                       scenarios, decided ? "decided" : "UNDECIDED", milliseconds);
  }
};

Verdict verify_one(ts::RegisteredSchedule const& s, long long max_states, bool clusters) {
  ts::ManagerModel const model = s.model();
  ts::ModelCheckOptions options;
  options.max_states = max_states;
  options.model_clusters = clusters;
  ts::ModelCheckStats stats;
  auto const start = std::chrono::steady_clock::now();
  ts::Report const report = ts::verify_model(model, options, &stats);
  Verdict v;
  v.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  v.name = std::string(s.name);
  v.description = std::string(s.description);
  v.ok = report.ok();
  for (ts::Violation const& violation : report.violations)
    v.violations.push_back(ts::format(violation));
  v.table = ts::schedule_table(model, &report);
  v.states = stats.states;
  v.scenarios = stats.scenarios;
  v.decided = stats.decided;
  return v;
}

std::vector<Verdict> verify(std::optional<std::string> const& name, long long max_states,
                            bool clusters) {
  auto const schedules = ts::registered_schedules();
  std::vector<ts::RegisteredSchedule const*> chosen;
  for (ts::RegisteredSchedule const& s : schedules)
    if (!name || s.name == *name) chosen.push_back(&s);
  if (chosen.empty()) {
    std::string known;
    for (ts::RegisteredSchedule const& s : schedules)
      known += fmt::format("{}{}", known.empty() ? "" : ", ", s.name);
    throw std::invalid_argument(
        fmt::format("verify: no schedule named `{}`: this build has {}", name.value_or(""), known));
  }
  std::vector<Verdict> verdicts;
  nb::gil_scoped_release unlocked;  // the model check of every schedule takes seconds
  for (ts::RegisteredSchedule const* s : chosen)
    verdicts.push_back(verify_one(*s, max_states, clusters));
  return verdicts;
}

}  // namespace

void bind_verify(nb::module_& m) {
  nb::class_<Verdict>(m, "Verdict", "The verifier's verdict on one registered schedule.")
      .def_ro("name", &Verdict::name)
      .def_ro("description", &Verdict::description)
      .def_ro("ok", &Verdict::ok)
      .def_ro("violations", &Verdict::violations)
      .def_ro("table", &Verdict::table, "the schedule table, with the verifier's findings")
      .def_ro("states", &Verdict::states)
      .def_ro("scenarios", &Verdict::scenarios)
      .def_ro("decided", &Verdict::decided)
      .def_ro("milliseconds", &Verdict::milliseconds)
      .def("__bool__", [](Verdict const& v) { return v.ok; })
      .def("__str__", [](Verdict const& v) { return v.table + "\n" + v.summary(); })
      .def("__repr__", [](Verdict const& v) { return "Verdict(" + v.summary() + ")"; });
  m.def(
      "schedules",
      [] {
        std::vector<std::pair<std::string, std::string>> all;
        for (ts::RegisteredSchedule const& s : ts::registered_schedules())
          all.emplace_back(std::string(s.name), std::string(s.description));
        return all;
      },
      "(name, description) of every schedule this build verified (`warploom list`).");
  m.def("verify", &verify, "name"_a = nb::none(), "max_states"_a = 4'000'000, "clusters"_a = true,
        "Verifies the registered schedule `name` (every one when None) as `warploom verify` "
        "does, a cluster CTA by CTA as the build's compile-time check does (clusters=False: one "
        "CTA); returns a Verdict per schedule.");
}

}  // namespace warploom::python
