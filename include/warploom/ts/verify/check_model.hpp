// warploom/ts/verify/check_model.hpp
//
// ts::model_check: runs the model checker over every scenario of a TaskManager (each run-time
// loop with 0, 1, 2 and stages+1 iterations; loops over one domain run alike) and returns
// its findings as a ts::Report, each with a counterexample timeline.
#pragma once

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "warploom/ts/model.hpp"
#include "warploom/ts/verify/model_check.hpp"
#include "warploom/ts/verify/program.hpp"
#include "warploom/ts/verify/timeline.hpp"

namespace warploom::ts {

namespace verify {

// "1 stage", "0 stages", "3 stages".
constexpr std::string count_of(long long n, std::string_view noun) {
  return to_str(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

// Loops over one run-time domain: the same depth and the same run-time end (the same quantity,
// same_quantity), positive steps, and starts and steps that may differ — the even and the odd
// items, (0, n, 2) and (1, n, 2), or the items one at a time and two at a time, (0, n) and
// (0, n, 2). Their trip counts are not independent — all follow from the one extent n
// (ceil((n - start) / step) each) — so they share a scenario value. Starts and steps are taken as
// captured, whether written ts::c<k> or as plain integers: the capture cannot tell a literal from
// a run-time value that happens to equal it; but a start or step read from a resource field or
// the data is compared as a quantity. Steps above kMaxStridedStep keep their loops apart (the
// extents to try grow with the step).
inline constexpr long long kMaxStridedStep = 64;
inline constexpr std::size_t kMaxExtentsPerValue = 4;
constexpr bool same_strided_domain(LoopKey const& a, LoopKey const& b) {
  auto strided = [](LoopKey const& k) {
    return !k.end.is_static && k.step.value > 0 && k.step.value <= kMaxStridedStep;
  };
  // A start or step read from a resource field or the data is an offset the capture does not know:
  // loops with different ones are not one domain.
  auto comparable = [](Bound const& x, Bound const& y) {
    auto plain = [](Bound const& b) {
      return b.source < 0 && b.in_probe(0) == b.value && b.in_probe(1) == b.value;
    };
    return same_quantity(x, y) || (plain(x) && plain(y));
  };
  return a.depth == b.depth && strided(a) && strided(b) && same_quantity(a.end, b.end) &&
         comparable(a.start, b.start) && comparable(a.step, b.step);
}

// A domain's choices: for each value of `values` (the trip count of its reference loop: the
// largest step, then the lowest start), the distinct vectors of trip counts, one per loop of the
// domain, that some extent n gives. A loop end declared ts::multiple_of<K> restricts n to
// multiples of K (of every K declared in the domain); one declared ts::at_least<N> gives no loop
// of the domain fewer than N trips.
struct DomainChoices {
  std::vector<int> keys;
  std::vector<std::vector<std::vector<int>>> by_value;  // [value index][variant][loop]
};

constexpr std::vector<DomainChoices> domain_choices(std::vector<LoopKey> const& keys,
                                                    std::vector<int> const& values) {
  std::vector<DomainChoices> out;
  for (int k = 0; k < static_cast<int>(keys.size()); ++k) {
    bool placed = false;
    for (auto& d : out) {
      if (same_strided_domain(keys[d.keys.front()], keys[k])) {
        d.keys.push_back(k);
        placed = true;
        break;
      }
    }
    if (!placed) out.push_back({{k}, {}});
  }
  for (auto& d : out) {
    long long multiple = 1;
    int at_least = 0;  // the fewest trips any loop over the domain is promised (ts::at_least)
    for (int k : d.keys) {
      multiple = std::lcm(multiple, static_cast<long long>(keys[k].end.multiple));
      at_least = std::max(at_least, keys[k].end.at_least);
    }
    if (d.keys.size() == 1 && multiple == 1) {  // a lone loop: its trip count is the value itself
      for (int v : values) d.by_value.push_back({{std::max(v, at_least)}});
      continue;
    }
    LoopKey ref = keys[d.keys.front()];
    long long lo = ref.start.value;
    for (int k : d.keys) {
      LoopKey const& x = keys[k];
      lo = std::min(lo, x.start.value);
      if (x.step.value > ref.step.value ||
          (x.step.value == ref.step.value && x.start.value < ref.start.value))
        ref = x;
    }
    long long const step = ref.step.value, base = ref.start.value;
    auto trips_at = [&](long long n) {
      std::vector<int> trips;
      for (int k : d.keys) {
        long long const rest = n - keys[k].start.value, st = keys[k].step.value;
        trips.push_back(std::max(rest > 0 ? static_cast<int>((rest + st - 1) / st) : 0, at_least));
      }
      return trips;
    };
    auto is_multiple = [&](long long n) { return (n % multiple + multiple) % multiple == 0; };
    for (int v : values) {
      // The extents n that give the reference loop v trips: (base + (v-1)·step, base + v·step]
      // (v = 0: from the lowest start up to base), those a declared multiple allows; when none
      // does, the next one that does.
      long long const first = v == 0 ? lo : base + (v - 1) * step + 1, last = base + v * step;
      std::vector<std::vector<int>> variants;
      long long n = first;
      for (; n <= last; ++n) {
        if (!is_multiple(n)) continue;
        std::vector<int> const trips = trips_at(n);
        if (std::find(variants.begin(), variants.end(), trips) == variants.end())
          variants.push_back(trips);
      }
      if (variants.empty()) {
        while (!is_multiple(n)) ++n;
        variants.push_back(trips_at(n));
      }
      // Large step ratios give many extents per value; the smallest and the largest two keep
      // the cases where the other loops run fewest and most times (and the scenario count low).
      if (variants.size() > kMaxExtentsPerValue)
        variants.erase(variants.begin() + kMaxExtentsPerValue / 2,
                       variants.end() - kMaxExtentsPerValue / 2);
      d.by_value.push_back(variants);
    }
  }
  return out;
}

// Each scenario once more with every tile skipped, when some task's tile loop has a skip_if
// predicate (its skippable sections omitted): every task on the queue sees the same tiles and
// applies the queue's one predicate, so tiles are skipped by all of them or none; the skipped
// scenario checks that what remains balances (the seed's second, skipped-tile run).
constexpr std::vector<Scenario> with_skipped_tiles(ManagerModel const& m,
                                                   std::vector<Scenario> scenarios) {
  bool skips = false;
  for (auto const& t : m.tasks)
    for (auto const& n : t.schedule.nodes) skips = skips || (is_tile_loop(n) && n.skip_if >= 0);
  if (!skips) return scenarios;
  std::size_t const kept = scenarios.size();
  for (std::size_t i = 0; i < kept; ++i) {
    Scenario sc = scenarios[i];
    sc.skipped_tiles = true;
    scenarios.push_back(sc);
  }
  return scenarios;
}

// In a cluster, loops whose bounds are ts::per_cta may run different trip counts in different
// CTAs: each scenario once more with the last CTA, and once with every CTA but the first, running
// one iteration fewer of those loops (a persistent loop dealing tiles to the CTAs one by one gives
// each CTA the same count or one fewer).
constexpr std::vector<Scenario> with_per_cta_trips(ManagerModel const& m,
                                                   std::vector<Scenario> scenarios,
                                                   bool model_clusters) {
  int const ctas = model_clusters ? ModelChecker::cluster_size(m) : 1;
  std::vector<LoopKey> const keys = loop_keys(m).keys;
  std::vector<int> per_cta;
  for (int k = 0; k < static_cast<int>(keys.size()); ++k)
    if (keys[k].start.per_cta || keys[k].end.per_cta || keys[k].step.per_cta) per_cta.push_back(k);
  if (ctas == 1 || per_cta.empty()) return scenarios;
  std::size_t const kept = scenarios.size();
  for (std::size_t i = 0; i < kept; ++i) {
    for (int first_fewer : {ctas - 1, 1}) {
      Scenario sc = scenarios[i];
      std::vector<int> fewer = sc.runtime_trips;
      bool differs = false;
      for (int k : per_cta) {
        if (k >= static_cast<int>(fewer.size()) || fewer[k] == 0) continue;
        --fewer[k];
        differs = true;
      }
      if (!differs) continue;
      for (int c = 0; c < ctas; ++c)
        sc.cta_trips.push_back(c < first_fewer ? sc.runtime_trips : fewer);
      bool seen = false;
      for (Scenario const& o : scenarios) seen = seen || o.cta_trips == sc.cta_trips;
      if (!seen) scenarios.push_back(sc);
    }
  }
  return scenarios;
}

// The scenarios to explore. Values {0, 1, 2, stages+1} per run-time loop domain (see LoopKeys;
// loops of one strided domain together, see same_strided_domain): every combination of the
// domains' choices when there are at most two domains. With more, the scenarios in which every
// domain runs alike, and a pairwise cover: every two domains meet in every pair of their choices
// in some scenario (rows (a, b) of Z_p x Z_p, domain d < p taking choice a + d·b mod p, domain p
// choice b, folded onto fewer choices modulo their count: an orthogonal array of strength 2, p the
// smallest prime covering the choices and the domains). Ping-pong's pair loop and the K loops of
// its two tiles are three domains: 23 scenarios where every combination would be 64.
constexpr std::vector<Scenario> scenarios_of(ManagerModel const& m, int max_trips = 1 << 30,
                                             bool model_clusters = false) {
  std::vector<LoopKey> const keys = loop_keys(m).keys;
  int stages = 0;
  for (auto const& r : m.resources)
    stages = std::max(stages, r.pipeline.enabled() ? r.pipeline.num_stages : 0);
  std::vector<int> values;
  for (int v : {0, 1, 2, stages + 1})
    if (v <= max_trips && (values.empty() || values.back() < v)) values.push_back(v);
  std::vector<Scenario> out;
  if (keys.empty()) {
    out.push_back({});
    return with_per_cta_trips(m, with_skipped_tiles(m, out), model_clusters);
  }
  std::vector<DomainChoices> const domains = domain_choices(keys, values);
  int const D = static_cast<int>(domains.size());
  // One domain's choices flattened: (value index, variant) pairs.
  auto options = [&](int d) {
    std::vector<std::pair<int, int>> o;
    for (int vi = 0; vi < static_cast<int>(values.size()); ++vi)
      for (int j = 0; j < static_cast<int>(domains[d].by_value[vi].size()); ++j)
        o.push_back({vi, j});
    return o;
  };
  std::vector<std::vector<std::pair<int, int>>> opts;
  for (int d = 0; d < D; ++d) opts.push_back(options(d));
  auto add = [&](std::vector<std::pair<int, int>> const& pick) {
    Scenario sc;
    sc.runtime_trips.assign(keys.size(), 0);
    for (int d = 0; d < D; ++d) {
      std::vector<int> const& trips = domains[d].by_value[pick[d].first][pick[d].second];
      for (std::size_t i = 0; i < trips.size(); ++i)
        sc.runtime_trips[domains[d].keys[i]] = trips[i];
    }
    for (Scenario const& o : out)
      if (o.runtime_trips == sc.runtime_trips) return;
    out.push_back(sc);
  };
  if (D <= 2) {
    std::vector<int> idx(D, 0);
    while (true) {
      std::vector<std::pair<int, int>> pick;
      for (int d = 0; d < D; ++d) pick.push_back(opts[d][idx[d]]);
      add(pick);
      int d = 0;
      while (d < D && ++idx[d] == static_cast<int>(opts[d].size())) idx[d++] = 0;
      if (d == D) break;
    }
    return with_per_cta_trips(m, with_skipped_tiles(m, out), model_clusters);
  }
  for (int vi = 0; vi < static_cast<int>(values.size()); ++vi) {
    int variants = 1;
    for (auto const& d : domains)
      variants = std::max(variants, static_cast<int>(d.by_value[vi].size()));
    for (int j = 0; j < variants; ++j) {
      std::vector<std::pair<int, int>> pick;
      for (auto const& d : domains)
        pick.push_back({vi, std::min(j, static_cast<int>(d.by_value[vi].size()) - 1)});
      add(pick);
    }
  }
  int p = D - 1;
  for (auto const& o : opts) p = std::max(p, static_cast<int>(o.size()));
  auto prime = [](int n) {
    for (int q = 2; q * q <= n; ++q)
      if (n % q == 0) return false;
    return n >= 2;
  };
  while (!prime(p)) ++p;
  for (int a = 0; a < p; ++a) {
    for (int b = 0; b < p; ++b) {
      std::vector<std::pair<int, int>> pick;
      for (int d = 0; d < D; ++d) {
        int const x = d < p ? (a + d * b) % p : b;
        pick.push_back(opts[d][x % static_cast<int>(opts[d].size())]);
      }
      add(pick);
    }
  }
  return with_per_cta_trips(m, with_skipped_tiles(m, out), model_clusters);
}

// R-D1 in one scenario: every task producing a ring fills (commits) the same number of stages,
// and every task that releases it takes (waits on or skips) exactly that many. A monitor (waits,
// never releases) and the consumer of an ordering token may take fewer — a signal may go unwaited
// — never more. An imbalance is reported as this count, besides the hang or the lost tile it
// leads to, so the finding says what to fix rather than only where a task got stuck.
struct Imbalance {
  int task = -1;  // the task whose count differs (-1: none)
  int resource = -1;
  int count = 0;  // its fills (a producer) or takes (a consumer)
  int filled = 0;
  int producer = -1;  // the producer whose fills it is compared with
  bool fills = false;
  int cta = -1;  // in a cluster: the task's CTA, and the CTA of the task it is compared with
  int other_cta = -1;
};

// `programs`: one CTA's, from `first` on (a cluster's are [cta * tasks + task]).
constexpr Imbalance find_imbalance(ManagerModel const& m, std::vector<Program> const& programs,
                                   int first = 0) {
  int const R = static_cast<int>(m.resources.size()), T = static_cast<int>(m.tasks.size());
  for (int r = 0; r < R; ++r) {
    // A group's fills and takes are its members' (a Fork member is filled by commit(group)).
    if (!m.resources[r].pipeline.enabled() || m.resources[r].kind == ResourceKind::Group) continue;
    int const filler = full_owner(m, r);
    std::vector<int> commits(T, 0), takes(T, 0);
    for (int t = 0; t < T; ++t) {
      for (Step const& st : programs[first + t].steps) {
        if (st.resource == filler && filler != r) commits[t] += st.kind == StepKind::Commit;
        if (st.resource != r) continue;
        bool const skip = st.kind == StepKind::Local && st.node >= 0 &&
                          m.tasks[t].schedule.nodes[st.node].op == OpKind::Skip;
        commits[t] += st.kind == StepKind::Commit;
        takes[t] += st.kind == StepKind::Wait || skip;
      }
    }
    int producer = -1;
    for (int t = 0; t < T; ++t) {
      if (!contains(m.tasks[t].dst, r)) continue;
      if (producer < 0)
        producer = t;
      else if (commits[t] != commits[producer])
        return {t, r, commits[t], commits[producer], producer, true};
    }
    if (producer < 0) continue;
    int const filled = commits[producer];
    for (int t = 0; t < T; ++t) {
      if (!contains(m.tasks[t].src, r)) continue;
      bool const may_take_fewer =
          !task_releases(m, m.tasks[t], r) || m.resources[r].kind == ResourceKind::Barrier;
      if (takes[t] > filled || (!may_take_fewer && takes[t] < filled))
        return {t, r, takes[t], filled, producer, false};
    }
  }
  return {};
}

// R-D1 across the CTAs of a cluster: on a multicast ring every CTA's full barrier waits for each
// peer's slice and every CTA's empty barrier for each peer's releases, so the tasks producing or
// releasing it fill and take alike in every CTA (a CTA running fewer iterations leaves its peers
// waiting, DeepGEMM #429).
constexpr Imbalance find_cluster_imbalance(ManagerModel const& m,
                                           std::vector<Program> const& programs) {
  int const T = static_cast<int>(m.tasks.size());
  int const C = static_cast<int>(programs.size()) / (T > 0 ? T : 1);
  for (int r = 0; r < static_cast<int>(m.resources.size()); ++r) {
    auto const& p = m.resources[r].pipeline;
    if (!p.enabled() || (p.multicast_ctas == 1 && p.release_ctas() == 1)) continue;
    for (int t = 0; t < T; ++t) {
      bool const producer = contains(m.tasks[t].dst, r);
      if (!producer && !task_releases(m, m.tasks[t], r)) continue;
      auto count = [&](int c) {
        int n = 0;
        for (Step const& st : programs[c * T + t].steps)
          n += st.resource == r && st.kind == (producer ? StepKind::Commit : StepKind::Release);
        return n;
      };
      for (int c = 1; c < C; ++c)
        if (count(c) != count(0)) return {t, r, count(c), count(0), t, producer, c, 0};
    }
  }
  return {};
}

constexpr std::string scenario_text(Scenario const& sc) {
  std::string const skipped = sc.skipped_tiles ? " (every tile skipped)" : "";
  if (sc.runtime_trips.empty()) return skipped;
  auto list = [](std::vector<int> const& trips) {
    std::string s;
    for (std::size_t i = 0; i < trips.size(); ++i) s += (i ? ", " : "") + to_str(trips[i]);
    return s;
  };
  std::string s = " (run-time loops running " + list(sc.runtime_trips) + " time(s)";
  for (std::size_t c = 0; c < sc.cta_trips.size(); ++c)
    if (sc.cta_trips[c] != sc.runtime_trips)
      s += "; in CTA " + to_str(c) + ": " + list(sc.cta_trips[c]);
  return s + ")" + skipped;
}

}  // namespace verify

// Model-checks `m`; findings are added to a new Report, statistics to `stats`.
constexpr Report model_check(ManagerModel const& m, ModelCheckOptions const& opt = {},
                             ModelCheckStats* stats = nullptr) {
  Report report;
  report.checks_run += 8;
  ModelCheckStats st;
  for (verify::Scenario const& sc :
       verify::scenarios_of(m, opt.max_runtime_trips, opt.model_clusters)) {
    verify::ModelChecker mc(m, sc, opt);
    mc.run();
    ++st.scenarios;
    st.states += mc.states();
    for (auto const& f : mc.findings()) {
      if (report.has(f.rule)) continue;
      int const task = f.task >= 0 ? mc.task_of(f.task) : -1;
      Violation v{f.rule,
                  task >= 0 ? m.tasks[task].spec.name : std::string_view{},
                  f.resource >= 0 ? m.resources[f.resource].name : std::string_view{},
                  f.node >= 0 && task >= 0 ? verify::op_name(m.tasks[task].schedule.nodes[f.node])
                                           : std::string_view{},
                  {},
                  {},
                  f.cta};
      if (!std::is_constant_evaluated()) {
        v.message = f.what + verify::scenario_text(sc);
        v.timeline = verify::render_timeline(m, mc, f.state, f.task, f.pc_begin, f.pc_end);
      }
      report.violations.push_back(std::move(v));
    }
    verify::Imbalance b{};
    int const T = static_cast<int>(m.tasks.size());
    for (int c = 0; c < mc.ctas() && b.task < 0; ++c) {
      b = verify::find_imbalance(m, mc.programs(), c * T);
      if (b.task >= 0 && mc.ctas() > 1) b.cta = c;
    }
    if (b.task < 0) b = verify::find_cluster_imbalance(m, mc.programs());
    if (b.task >= 0 && !report.has(Rule::D1_FillsTaken)) {
      Violation v{Rule::D1_FillsTaken,
                  m.tasks[b.task].spec.name,
                  m.resources[b.resource].name,
                  b.fills ? std::string_view("commit") : std::string_view("wait"),
                  {},
                  {},
                  b.cta};
      if (!std::is_constant_evaluated()) {
        if (b.other_cta >= 0) {
          v.message = (b.fills ? "fills " : "releases ") + verify::count_of(b.count, "stage") +
                      " in CTA " + to_str(b.cta) + " while the same task of CTA " +
                      to_str(b.other_cta) + " " + (b.fills ? "fills " : "releases ") +
                      to_str(b.filled) +
                      ": on a multicast ring every CTA's full barrier waits for each peer's "
                      "slice and every empty barrier for each peer's releases, so every CTA of "
                      "the cluster must fill and release alike (give each cluster, not each "
                      "CTA, its tiles, or drain the extra fill in every CTA)" +
                      verify::scenario_text(sc);
        } else {
          v.message = (b.fills ? "fills " : "takes ") + verify::count_of(b.count, "stage") +
                      " while task `" + std::string(m.tasks[b.producer].spec.name) + "` fills " +
                      to_str(b.filled) +
                      (b.fills ? ": the producers of a ring arrive for the same phases, so they "
                                 "fill alike"
                               : ": each task that releases a ring takes every fill exactly once "
                                 "(a monitor or an ordering token's consumer: at most every "
                                 "fill)") +
                      verify::scenario_text(sc);
        }
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
  for (int i = 0; i < static_cast<int>(mc.programs().size()); ++i)
    header.push_back((mc.ctas() > 1 ? "cta" + to_str(mc.cta_of(i)) + "." : std::string()) +
                     std::string(m.tasks[mc.task_of(i)].spec.name));
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
