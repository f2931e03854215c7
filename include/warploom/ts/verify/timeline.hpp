// warploom/ts/verify/timeline.hpp
//
// A counterexample as a per-task timeline: one column per task (and one for TMA copies landing),
// one row per step of the interleaving that reaches the violation, and a last row with the op
// each unfinished task is at. Long paths keep their last rows.
//
//   step | load                          | store                      | tma
//      1 | smem.try_acquire() [stage 0]  |                            |
//      2 |                               | smem.try_wait() [stage 0]  |
//    ... |
//    now | smem.acquire() [stage 0]      | smem.wait() [stage 1]      |
#pragma once

#include <string>
#include <vector>

#include "warploom/ts/verify/model_check.hpp"

namespace warploom::ts::verify {

// `state` is where the offending transition started; `task` ran its steps [pc_begin, pc_end] in
// it, the last being the violation (task -1: the finding is about `state` itself, e.g. deadlock).
inline std::string render_timeline(ManagerModel const& m, ModelChecker const& mc, int state,
                                   int task = -1, int pc_begin = -1, int pc_end = -1,
                                   int max_rows = 40) {
  std::vector<detail::Edge> const path = mc.path_to(state);
  // One column per task of each CTA: "load", or in a cluster "cta0.load", "cta1.load", ...
  int const T = static_cast<int>(mc.programs().size());
  std::vector<std::string> header{"step"};
  for (int i = 0; i < T; ++i) {
    std::string const name(m.tasks[mc.task_of(i)].spec.name);
    header.push_back(mc.ctas() > 1 ? "cta" + to_str(mc.cta_of(i)) + "." + name : name);
  }
  header.push_back("tma");
  std::vector<std::vector<std::string>> rows;
  int const first =
      static_cast<int>(path.size()) > max_rows ? static_cast<int>(path.size()) - max_rows : 0;
  if (first > 0) rows.push_back(std::vector<std::string>(T + 2, "..."));
  int step = first;
  for (int i = first; i < static_cast<int>(path.size()); ++i) {
    detail::Edge const& e = path[i];
    if (e.task < 0) {
      std::vector<std::string> row(T + 2);
      row[0] = to_str(++step);
      row[T + 1] = (mc.ctas() > 1 ? "cta" + to_str(e.cta) + "." : std::string()) +
                   std::string(resource_name(m, e.resource)) + " stage " + to_str(e.stage) +
                   " landed";
      rows.push_back(row);
      continue;
    }
    int const end = e.pc_end < 0 ? e.pc + 1 : e.pc_end;
    for (int pc = e.pc; pc < end; ++pc) {
      std::vector<std::string> row(T + 2);
      row[0] = to_str(++step);
      row[1 + e.task] = mc.describe_in(e.task, mc.programs()[e.task].steps[pc]);
      rows.push_back(row);
    }
  }
  if (task >= 0 && pc_begin >= 0) {
    for (int pc = pc_begin; pc <= pc_end; ++pc) {
      std::vector<std::string> row(T + 2);
      row[0] = pc == pc_end ? std::string("VIOLATION") : to_str(++step);
      row[1 + task] = mc.describe_in(task, mc.programs()[task].steps[pc]);
      rows.push_back(row);
    }
  }
  std::vector<std::int16_t> const s = mc.state(state);
  std::vector<std::string> now(T + 2);
  now[0] = "now";
  for (int t = 0; t < T; ++t) {
    int const pc = s[mc.layout().pc(t)];
    auto const& steps = mc.programs()[t].steps;
    now[1 + t] =
        pc < static_cast<int>(steps.size()) ? mc.describe_in(t, steps[pc]) : std::string("(done)");
  }
  if (task >= 0 && pc_begin >= 0) now[1 + task] = "";  // shown above, up to the violation
  rows.push_back(now);
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (auto const& r : rows) width[c] = width[c] > r[c].size() ? width[c] : r[c].size();
  }
  auto line = [&](std::vector<std::string> const& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      std::string cell = cells[c];
      cell.resize(width[c], ' ');
      out += (c == 0 ? "  " : " | ") + cell;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header);
  for (auto const& r : rows) out += line(r);
  return out;
}

}  // namespace warploom::ts::verify
