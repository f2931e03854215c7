// warploom/ts/verify/check_model.hpp
//
// ts::model_check: runs the model checker over every scenario of a TaskManager (each run-time
// loop with 0, 1, 2 and stages+1 iterations; loops over one domain run alike) and returns
// its findings as a ts::Report, each with a counterexample timeline.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "warploom/ts/model.hpp"
#include "warploom/ts/verify/model_check.hpp"
#include "warploom/ts/verify/program.hpp"
#include "warploom/ts/verify/timeline.hpp"

namespace warploom::ts {

namespace verify {

// The scenarios to explore: with k run-time loop domains (see LoopKeys), every combination of
// {0, 1, 2, stages+1} when k <= 2, else the four with every loop alike.
constexpr std::vector<Scenario> scenarios_of(ManagerModel const& m, int max_trips = 1 << 30) {
  int const keys = static_cast<int>(loop_keys(m).keys.size());
  int stages = 0;
  for (auto const& r : m.resources)
    stages = std::max(stages, r.pipeline.enabled() ? r.pipeline.num_stages : 0);
  std::vector<int> values;
  for (int v : {0, 1, 2, stages + 1})
    if (v <= max_trips && (values.empty() || values.back() < v)) values.push_back(v);
  std::vector<Scenario> out;
  if (keys == 0) {
    out.push_back({});
  } else if (keys <= 2) {
    std::vector<int> idx(keys, 0);
    while (true) {
      Scenario sc;
      for (int k = 0; k < keys; ++k) sc.runtime_trips.push_back(values[idx[k]]);
      out.push_back(sc);
      int k = 0;
      while (k < keys && ++idx[k] == static_cast<int>(values.size())) idx[k++] = 0;
      if (k == keys) break;
    }
  } else {
    for (int v : values) out.push_back({std::vector<int>(keys, v)});
  }
  return out;
}

constexpr std::string scenario_text(Scenario const& sc) {
  if (sc.runtime_trips.empty()) return "";
  std::string s = " (run-time loops running ";
  for (std::size_t i = 0; i < sc.runtime_trips.size(); ++i)
    s += (i ? ", " : "") + to_str(sc.runtime_trips[i]);
  return s + " time(s))";
}

}  // namespace verify

// Model-checks `m`; findings are added to a new Report, statistics to `stats`.
constexpr Report model_check(ManagerModel const& m, ModelCheckOptions const& opt = {},
                             ModelCheckStats* stats = nullptr) {
  Report report;
  report.checks_run += 7;
  ModelCheckStats st;
  for (verify::Scenario const& sc : verify::scenarios_of(m, opt.max_runtime_trips)) {
    verify::ModelChecker mc(m, sc, opt);
    mc.run();
    ++st.scenarios;
    st.states += mc.states();
    for (auto const& f : mc.findings()) {
      if (report.has(f.rule)) continue;
      Violation v{f.rule,
                  f.task >= 0 ? m.tasks[f.task].spec.name : std::string_view{},
                  f.resource >= 0 ? m.resources[f.resource].name : std::string_view{},
                  f.node >= 0 && f.task >= 0
                      ? verify::op_name(m.tasks[f.task].schedule.nodes[f.node])
                      : std::string_view{},
                  {},
                  {}};
      if (!std::is_constant_evaluated()) {
        v.message = f.what + verify::scenario_text(sc);
        v.timeline = verify::render_timeline(m, mc, f.state, f.task, f.pc_begin, f.pc_end);
      }
      report.violations.push_back(std::move(v));
    }
    if (!mc.decided()) {
      st.decided = false;
      if (!opt.allow_undecided && !report.has(Rule::M7_Undecided)) {
        Violation v{Rule::M7_Undecided, {}, {}, {}, {}, {}};
        if (!std::is_constant_evaluated())
          v.message = "the model check stopped at " + to_str(opt.max_states) + " states" +
                      verify::scenario_text(sc) +
                      " without a verdict; raise ModelCheckOptions::max_states or allow undecided "
                      "checks explicitly";
        report.violations.push_back(std::move(v));
      }
    }
  }
  if (stats) *stats = st;
  return report;
}

// The round-robin step table (the seed's quick reading of a schedule): one interleaving of the
// tasks with every run-time loop running `runtime_trips` times. Text, one column per task.
inline std::string round_robin_table(ManagerModel const& m, int runtime_trips = 2) {
  int const keys = static_cast<int>(verify::loop_keys(m).keys.size());
  verify::Scenario sc{std::vector<int>(static_cast<std::size_t>(std::max(keys, 1)), runtime_trips)};
  verify::ModelChecker mc(m, sc, {});
  std::vector<std::vector<std::string>> rows = mc.round_robin();
  std::vector<std::string> header{"step"};
  for (auto const& t : m.tasks) header.push_back(std::string(t.spec.name));
  rows.insert(rows.begin(), header);
  std::vector<std::size_t> width(header.size(), 0);
  for (auto const& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  std::string out = "round robin" + verify::scenario_text(sc) + "\n";
  for (auto const& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) {
      std::string cell = r[c];
      cell.resize(width[c], ' ');
      line += (c == 0 ? "  " : " | ") + cell;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace warploom::ts
