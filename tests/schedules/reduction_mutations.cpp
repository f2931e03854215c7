// tests/schedules/reduction_mutations.cpp — the persistent-set reductions against the unreduced
// search on broken schedules made from correct ones.
//
// The persistent sets of docs/verification/README.md §7 (a CTA's local steps, a CTA ahead, sets
// grown from one transition) and the symmetry reduction cut the states of a 2-CTA GEMM by orders
// of magnitude, and the grown sets those of a one-CTA ping-pong; a set that is not really
// persistent would hide a hang or a race and still pass the corpus, whose correct kernels are
// few. So every clustered manager of the corpus and of the bundled kernels, every bundled
// one-CTA kernel, and every other entry of the corpus whose buffers share bytes or whose
// pipelines form groups (the steps that touch more than their own stage), is broken in every way
// below, one at a time, and each mutant is model-checked with the reductions and without: the
// rules found must be the same (on an entry already broken, both must reject it and the reduced
// search may report a subset: see the test).
//
//   - one op of one task dropped (a wait, release, acquire, commit, work or asynchronous wait);
//   - one op of one task done twice;
//   - a pipeline with one stage fewer, or one more;
//   - a multicast pipeline whose empty barrier counts one CTA's consumers.
//
// Only the model checker runs (the structural checks would stop most mutants before it), in
// scenarios of at most two trips per run-time loop, so that the unreduced search stays small.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "corpus.hpp"
#include "warploom/ts/verify/verify.hpp"

namespace corpus {
namespace {

struct Mutant {
  std::string what;
  ts::ManagerModel model;
};

// Every mutant of `m` (see the file comment).
std::vector<Mutant> mutants_of(ts::ManagerModel const& m) {
  std::vector<Mutant> out;
  for (std::size_t t = 0; t < m.tasks.size(); ++t) {
    auto const& nodes = m.tasks[t].schedule.nodes;
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      if (nodes[n].kind != ts::NodeKind::Op || nodes[n].parent < 0) continue;
      std::string const op = std::string(m.tasks[t].spec.name) + " op " + std::to_string(n) + " (" +
                             std::string(ts::to_string(nodes[n].op)) + ")";
      for (bool twice : {false, true}) {
        Mutant x{(twice ? "twice: " : "dropped: ") + op, m};
        auto& children = x.model.tasks[t].schedule.nodes[nodes[n].parent].children;
        auto const at = std::find(children.begin(), children.end(), static_cast<int>(n));
        if (twice)
          children.insert(at, static_cast<int>(n));
        else
          children.erase(at);
        out.push_back(std::move(x));
      }
    }
  }
  for (std::size_t r = 0; r < m.resources.size(); ++r) {
    auto const& p = m.resources[r].pipeline;
    // A group's members share its stage count (R-C2 refuses members that differ): a group and
    // its members change together, as the group's mutant.
    if (!p.enabled() || m.resources[r].group >= 0) continue;
    std::string const name(m.resources[r].name);
    for (int delta : {-1, 1}) {
      if (p.num_stages + delta < 1) continue;
      Mutant x{name + " stages " + std::to_string(p.num_stages + delta), m};
      for (auto& member : x.model.resources)
        if (&member == &x.model.resources[r] || member.group == static_cast<int>(r))
          member.pipeline.num_stages += delta;
      out.push_back(std::move(x));
    }
    if (p.multicast_ctas > 1) {
      Mutant x{name + " empty barrier counts one CTA", m};
      x.model.resources[r].pipeline.release_ctas_override = 1;
      out.push_back(std::move(x));
    }
  }
  return out;
}

struct Verdict {
  std::set<std::string> rules;
  bool decided = true;
  long long states = 0;
};

Verdict model_check(ts::ManagerModel const& m, bool reduce, int trips) {
  ts::ModelCheckOptions opt;
  opt.model_clusters = true;
  opt.reduce = reduce;
  opt.max_runtime_trips = trips;
  opt.max_states = 400'000;
  opt.allow_undecided = true;
  ts::ModelCheckStats stats;
  ts::Report const r = ts::model_check(m, opt, &stats);
  Verdict v;
  for (auto const& x : r.violations)
    if (x.id() != "R-M7") v.rules.emplace(x.id());
  v.decided = stats.decided;
  v.states = stats.states;
  return v;
}

// The entries the adders make whose models `keep` takes.
template <class Keep>
std::vector<Entry> entries_of(std::initializer_list<void (*)(Corpus&)> adders, Keep keep) {
  Corpus c;
  for (auto add : adders) add(c);
  std::vector<Entry> out;
  for (Entry const& e : c)
    if (keep(e.model(e.name))) out.push_back(e);
  return out;
}

bool one_cta(ts::ManagerModel const& m) {
  return ts::verify::ModelChecker::cluster_size(m) == 1;
}

// The clustered managers: the corpus' cluster entries and the bundled kernels with a cluster.
std::vector<Entry> clustered_entries() {
  return entries_of({add_clusters, add_bundled_kernels},
                    [](ts::ManagerModel const& m) { return !one_cta(m); });
}

// The bundled kernels of one CTA, where the grown sets run too (on the pipeline-group kernels,
// before they did, the segments alone: this run found the segments hiding a wgmma read of a stage
// its task never waited for, README §3).
std::vector<Entry> one_cta_bundled_entries() {
  return entries_of({add_bundled_kernels}, one_cta);
}

// The other one-CTA entries of the corpus whose buffers share bytes (ts::Aliases) or whose
// pipelines form groups (ts::Merge, ts::Fork): their steps check, or arrive on, more than their
// own stage, which the grown sets follow (README §7).
std::vector<Entry> aliased_or_grouped_entries() {
  return entries_of({add_pipelines, add_pipeline_groups}, [](ts::ManagerModel const& m) {
    bool const aliased = std::any_of(m.smem.begin(), m.smem.end(),
                                     [](ts::SmemRequest const& b) { return b.alias_group >= 0; });
    bool const grouped = std::any_of(m.resources.begin(), m.resources.end(), [](auto const& r) {
      return r.group >= 0 || r.kind == ts::ResourceKind::Group;
    });
    return (aliased || grouped) && one_cta(m);
  });
}

class ReductionMutations : public testing::TestWithParam<Entry> {};

}  // namespace

// gtest prints a parameter by its name.
void PrintTo(Entry const& e, std::ostream* os) {
  *os << e.name;
}

namespace {

TEST_P(ReductionMutations, ReducedSearchFindsWhatTheUnreducedFinds) {
  Entry const& e = GetParam();
  ts::ManagerModel const m = e.model(e.name);
  // The bundled GEMMs' unreduced searches stay small with one tile of one K step only; a manager
  // whose own unreduced search passes the budget even so is out of reach (the ping-pong ones).
  int const trips = e.theme == kBundled ? 1 : 2;
  Verdict const own = model_check(m, false, trips);
  if (!own.decided)
    GTEST_SKIP() << e.name << ": the unreduced search passes its budget on the manager itself";
  int compared = 0, violating = 0, undecided = 0;
  for (Mutant const& x : mutants_of(m)) {
    Verdict const full = model_check(x.model, false, trips);
    if (!full.decided) {
      ++undecided;
      continue;
    }
    Verdict const reduced = model_check(x.model, true, trips);
    EXPECT_TRUE(reduced.decided) << x.what;
    if (own.rules.empty()) {
      // A correct manager broken once: the same findings.
      EXPECT_EQ(join(reduced.rules), join(full.rules))
          << x.what << " (" << reduced.states << " states reduced, " << full.states << " not)";
    } else {
      // A broken entry (the corpus' violating ones) broken once more: the reduced search stops
      // each run at its first finding, and a run it follows may meet one fault where the
      // unreduced search also follows a run to another — what it promises is a finding whenever
      // there is one, each of them real (README §7).
      EXPECT_EQ(reduced.rules.empty(), full.rules.empty())
          << x.what << ": reduced {" << join(reduced.rules) << "}, unreduced {" << join(full.rules)
          << "}";
      EXPECT_TRUE(std::includes(full.rules.begin(), full.rules.end(), reduced.rules.begin(),
                                reduced.rules.end()))
          << x.what << ": reduced {" << join(reduced.rules) << "}, unreduced {" << join(full.rules)
          << "}";
    }
    ++compared;
    violating += full.rules.empty() ? 0 : 1;
  }
  // Mutants were compared, and some were broken: the comparison is not vacuous. (A copy kernel
  // whose every mutant still passes the model check — its breakage is structural — has nothing
  // to compare.)
  if (violating == 0 && ts::verify::ModelChecker::cluster_size(m) == 1)
    GTEST_SKIP() << e.name << ": no mutant fails the model check, nothing to compare";
  EXPECT_GE(compared, 4) << e.name;
  EXPECT_GE(violating, 1) << e.name;
  std::printf("%-44s %3d mutants compared (%d violating), %d undecided unreduced\n",
              std::string(e.name).c_str(), compared, violating, undecided);
}

std::string entry_name(testing::TestParamInfo<Entry> const& info) {
  return std::string(info.param.name);
}

INSTANTIATE_TEST_SUITE_P(Clustered, ReductionMutations, testing::ValuesIn(clustered_entries()),
                         entry_name);
INSTANTIATE_TEST_SUITE_P(OneCta, ReductionMutations, testing::ValuesIn(one_cta_bundled_entries()),
                         entry_name);
INSTANTIATE_TEST_SUITE_P(AliasedOrGrouped, ReductionMutations,
                         testing::ValuesIn(aliased_or_grouped_entries()), entry_name);

}  // namespace
}  // namespace corpus
