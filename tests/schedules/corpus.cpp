// tests/schedules/corpus.cpp — runs the schedule corpus (corpus.hpp) and writes its table.
//
//   schedule_corpus                                    verify every entry (a gtest per entry)
//   schedule_corpus --table docs/verification/corpus.md
//                                                      ... and write the generated table
//   schedule_corpus --findings <file>                  ... and every finding's text (one block
//                                                      per entry: ts::format and the timeline),
//                                                      which tools/gen_verification_docs.py pastes
//                                                      into docs/verification/rules.md
//
// WARPLOOM_CORPUS_TABLE=<path> and WARPLOOM_CORPUS_FINDINGS=<path> do the same as the flags. Both
// files are written after the tests ran, from the same verdicts the tests checked.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "corpus.hpp"
#include "warploom/ts/manager_traits.hpp"
#include "warploom/ts/verify/verify.hpp"

namespace corpus {
namespace {

// Compile-time rules: a C++ schedule that breaks one does not compile (tests/compile_fail), so
// they have no corpus entry; the table lists them for completeness.
constexpr std::string_view kCompileTimeRules[] = {"R-A2", "R-A5", "R-A6", "R-A12",
                                                  "R-B1", "R-B2", "R-B5"};

Corpus const& corpus() {
  static Corpus const c = [] {
    Corpus out;
    add_bundled_kernels(out);
    add_pipelines(out);
    add_loops(out);
    add_hangs(out);
    add_clusters(out);
    add_pipeline_groups(out);
    add_rules(out);
    add_work_queues(out);
    return out;
  }();
  return c;
}

struct Outcome {
  ts::Report report;
  ts::ModelCheckStats stats;
  std::vector<std::string> detected;  // sorted, unique rule ids
  double ms = 0;
};

Outcome verify(Entry const& e, ts::ModelCheckOptions const& options) {
  Outcome o;
  auto const start = std::chrono::steady_clock::now();
  ts::ManagerModel const m = e.model(e.name);
  o.report = ts::verify_manager(m, options, &o.stats);
  o.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::set<std::string> ids;
  for (auto const& v : o.report.violations) ids.emplace(v.id());
  o.detected.assign(ids.begin(), ids.end());
  return o;
}

// Verdicts of the entries the tests ran, by index; the table runs the others itself.
std::map<std::size_t, Outcome>& outcomes() {
  static std::map<std::size_t, Outcome> o;
  return o;
}

// Entry i verified with `options`, once per cache.
Outcome const& cached(std::map<std::size_t, Outcome>& cache, std::size_t i,
                      ts::ModelCheckOptions const& options) {
  auto it = cache.find(i);
  if (it == cache.end()) it = cache.emplace(i, verify(corpus()[i], options)).first;
  return it->second;
}

Outcome const& outcome(std::size_t i) {
  return cached(outcomes(), i, corpus()[i].options);
}

std::vector<std::string> expected_of(Entry const& e) {
  return {e.expected.begin(), e.expected.end()};
}

std::string findings_text(ts::Report const& r) {
  std::string s;
  for (auto const& v : r.violations) {
    s += ts::format(v) + "\n";
    if (!v.timeline.empty()) s += v.timeline;
  }
  return s;
}

bool is_rule_id(std::string_view id) {
  for (auto const& i : ts::kRules)
    if (i.id == id) return true;
  return false;
}

// ---- The corpus itself --------------------------------------------------------------------------

TEST(ScheduleCorpusShape, EntriesAreWellFormed) {
  std::set<std::string_view> names;
  for (Entry const& e : corpus()) {
    SCOPED_TRACE(std::string(e.name));
    EXPECT_TRUE(names.insert(e.name).second) << "duplicate entry name";
    EXPECT_TRUE(e.theme == kPipelines || e.theme == kLoops || e.theme == kHangs ||
                e.theme == kRules || e.theme == kWorkQueues || e.theme == kClusters ||
                e.theme == kPipelineGroups || e.theme == kBundled);
    EXPECT_FALSE(e.description.empty());
    EXPECT_TRUE(static_cast<bool>(e.model));
    EXPECT_TRUE(std::is_sorted(e.expected.begin(), e.expected.end()));
    EXPECT_EQ(std::adjacent_find(e.expected.begin(), e.expected.end()), e.expected.end());
    for (auto id : e.expected) EXPECT_TRUE(is_rule_id(id)) << id;
    for (auto id : e.controls) {
      EXPECT_TRUE(is_rule_id(id)) << id;
      EXPECT_EQ(std::find(e.expected.begin(), e.expected.end(), id), e.expected.end())
          << id << " is both expected and a passing control";
    }
    if (e.known_miss) {
      EXPECT_FALSE(e.note.empty()) << "a known miss says why in its note";
    }
    if (e.theme == kBundled) {
      EXPECT_TRUE(e.expected.empty()) << "bundled kernels must pass";
    }
  }
}

// Every rule of diagnostic.hpp has a violating entry and a passing control.
TEST(ScheduleCorpusShape, EveryRuleHasAViolatingAndAPassingEntry) {
  for (auto const& rule : ts::kRules) {
    bool violating = false, passing = false;
    for (Entry const& e : corpus()) {
      violating =
          violating || std::find(e.expected.begin(), e.expected.end(), rule.id) != e.expected.end();
      passing =
          passing || std::find(e.controls.begin(), e.controls.end(), rule.id) != e.controls.end();
    }
    EXPECT_TRUE(violating) << rule.id << " has no violating entry";
    EXPECT_TRUE(passing) << rule.id << " has no passing control";
  }
}

class ScheduleCorpus : public testing::TestWithParam<std::size_t> {};

// The reduced search (segments, local steps alone) must reach the verdict of the search over
// every interleaving of single steps on every entry: the check that the reduction hides nothing
// (docs/verification/README.md §3).
// The unreduced search explores every interleaving of single steps, 15 to 20 times the states of
// the search reduced without the grown sets: where that one needed more than this, the unreduced
// one ends undecided at its state budget (R-M7) after a minute or more (ping-pong with a finish
// task: 1.27 M states, over 16 M unreduced), so it is not run there. The reduction is checked on
// every smaller entry, the plain ping-pong GEMM included; the grown sets on the larger ones
// against the search without them (GrownSetsAgree).
constexpr long long kUnreducedUpTo = 500'000;

// The search without the grown sets (README §7), once per entry.
Outcome const& without_grown_sets(std::size_t i) {
  static std::map<std::size_t, Outcome> done;
  ts::ModelCheckOptions options = corpus()[i].options;
  options.grown_sets = false;
  return cached(done, i, options);
}

// The sets grown from one transition must reach the verdict of the search without them, on every
// entry: on the bundled ping-pong kernels, whose unreduced search is out of reach, this is their
// check.
TEST_P(ScheduleCorpus, GrownSetsAgree) {
  Outcome const& without = without_grown_sets(GetParam());
  Outcome const& with = outcome(GetParam());
  EXPECT_EQ(with.detected, without.detected)
      << "with the grown sets {" << join(with.detected) << "}, without {" << join(without.detected)
      << "} (" << with.stats.states << " against " << without.stats.states << " states)";
}

// The compile-time gate's search (loops of 0-2 trips, 2,000 states a scenario) decides every
// bundled schedule (README §7, "In the compile-time gate"). An undecided gate passes, so a change
// that makes it give up again would go unnoticed but for this.
TEST_P(ScheduleCorpus, CompileTimeGateDecides) {
  Entry const& e = corpus()[GetParam()];
  if (e.theme != kBundled) GTEST_SKIP() << "the gate runs on the bundled schedules' units";
  Outcome const o = verify(
      e, ts::compile_time_check_options(ts::ManagerOptions{}.compile_time_model_check_states));
  EXPECT_TRUE(o.report.ok()) << findings_text(o.report);
  EXPECT_TRUE(o.stats.decided) << e.name << ": the gate's search stops undecided ("
                               << o.stats.states << " states)";
}

TEST_P(ScheduleCorpus, UnreducedSearchAgrees) {
  Entry const& e = corpus()[GetParam()];
  long long const states = without_grown_sets(GetParam()).stats.states;
  if (states > kUnreducedUpTo)
    GTEST_SKIP() << e.name << ": " << states
                 << " states reduced without the grown sets; the unreduced search would exceed its "
                    "budget";
  ts::ModelCheckOptions unreduced = e.options;
  unreduced.reduce = false;
  Outcome const full = verify(e, unreduced);
  Outcome const& reduced = outcome(GetParam());
  EXPECT_EQ(full.detected, reduced.detected)
      << "unreduced {" << join(full.detected) << "}, reduced {" << join(reduced.detected) << "} ("
      << full.stats.states << " against " << reduced.stats.states << " states)";
}

TEST_P(ScheduleCorpus, Verdict) {
  Entry const& e = corpus()[GetParam()];
  Outcome const& o = outcome(GetParam());
  std::vector<std::string> const expected = expected_of(e);
  std::string const found = findings_text(o.report);
  if (e.known_miss) {
    EXPECT_NE(o.detected, expected)
        << "known miss fixed: `" << e.name << "` now gets its expected verdict {" << join(expected)
        << "}; set known_miss = false in its entry";
    std::printf("[ KNOWN MISS ] %s: expected {%s}, detected {%s}\n", std::string(e.name).c_str(),
                join(expected).c_str(), join(o.detected).c_str());
  } else {
    EXPECT_EQ(o.detected, expected)
        << "expected {" << join(expected) << "}, detected {" << join(o.detected) << "}\n"
        << found;
  }
  // Every finding names its rule and says what is wrong; model-checker findings come with a
  // counterexample (R-M7 is the absence of a verdict, which has none).
  for (auto const& v : o.report.violations) {
    SCOPED_TRACE(ts::format(v));
    EXPECT_TRUE(is_rule_id(v.id()));
    EXPECT_FALSE(v.message.empty());
    if (v.id().substr(0, 3) == "R-M" && v.rule != ts::Rule::M7_Undecided) {
      EXPECT_FALSE(v.timeline.empty()) << "a model-checker finding without a timeline";
      EXPECT_FALSE(v.task.empty() && v.resource.empty()) << "names neither task nor resource";
    }
  }
}

std::string test_name(testing::TestParamInfo<std::size_t> const& info) {
  return std::string(corpus()[info.param].name);
}

INSTANTIATE_TEST_SUITE_P(Entries, ScheduleCorpus, testing::Range<std::size_t>(0, corpus().size()),
                         test_name);

// ---- Generated files ----------------------------------------------------------------------------

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string md_escape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += "\\";
    out += ch;
  }
  return out;
}

std::string rule_short(std::string_view id) {
  return std::string(id.substr(2));  // "R-D15" -> "D15"
}

std::string table() {
  Corpus const& c = corpus();
  std::ostringstream md;
  md << "<!-- Generated by tests/schedules (schedule_corpus); do not edit. Regenerate, from the "
        "repository root, with\n"
        "       cmake --build --preset release --target schedule_corpus &&\n"
        "       ./build/release/tests/schedules/schedule_corpus --table "
        "docs/verification/corpus.md\n"
        "     or with python3 tools/gen_verification_docs.py (which also refreshes the outputs "
        "in rules.md).\n-->\n";
  md << "# Schedule corpus\n\n";
  int misses = 0, violating = 0;
  long long states = 0;
  double ms = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    misses += c[i].known_miss;
    violating += !c[i].expected.empty();
    states += outcome(i).stats.states;
    ms += outcome(i).ms;
  }
  md << c.size() << " TaskManagers with their expected verdicts (" << violating << " violating, "
     << c.size() - violating << " passing), verified by `ts::verify_manager` (structural checks, "
     << "then the exhaustive model check); " << misses
     << (misses == 1 ? " known miss. " : " known misses. ") << states << " model-checker states in "
     << fixed(ms, 0)
     << " ms on the machine that generated this file. The entries live in `tests/schedules/` "
        "(one file per theme); how verification works is in [README.md](README.md), each rule in "
        "[rules.md](rules.md).\n\n";
  md << "Columns: *expected* is the verdict the entry pins (rule ids; `pass` when none), "
        "*detected* what the verifier reports, *states* the distinct model-checker states over "
        "all scenarios (0: the structural checks failed, so the model check did not run), *ms* "
        "the time to capture and verify, *result* `pass` when the two agree and `known miss` "
        "when the entry records a verifier gap (see its note).\n\n";

  std::vector<std::string_view> themes = {kBundled, kPipelines,  kLoops,    kHangs,
                                          kRules,   kWorkQueues, kClusters, kPipelineGroups};
  md << "## Entries\n\n";
  md << "| theme | entry | description | expected | detected | states | scenarios | ms | result "
        "|\n|---|---|---|---|---|---:|---:|---:|---|\n";
  for (auto theme : themes) {
    for (std::size_t i = 0; i < c.size(); ++i) {
      Entry const& e = c[i];
      if (e.theme != theme) continue;
      Outcome const& o = outcome(i);
      std::vector<std::string> const expected = expected_of(e);
      std::string result = o.detected == expected ? "pass" : "**FAIL**";
      if (e.known_miss)
        result = o.detected == expected ? "**fixed: clear known_miss**" : "known miss";
      md << "| " << e.theme << " | `" << e.name << "` | " << md_escape(e.description);
      if (!e.note.empty()) md << " *Note:* " << md_escape(e.note);
      md << " | " << join(expected) << " | " << join(o.detected) << " | " << o.stats.states << " | "
         << o.stats.scenarios << " | " << fixed(o.ms, 1) << " | " << result << " |\n";
    }
  }

  md << "\n## Rules\n\nFor each rule of `diagnostic.hpp`: the entries that must violate it and the "
        "passing controls (the fixed twin of a violating entry).\n\n";
  md << "| rule | title | violating entries | passing controls |\n|---|---|---|---|\n";
  for (auto const& r : ts::kRules) {
    std::string bad, good;
    for (Entry const& e : c) {
      if (std::find(e.expected.begin(), e.expected.end(), r.id) != e.expected.end())
        bad += (bad.empty() ? "" : ", ") + std::string("`") + std::string(e.name) + "`" +
               (e.known_miss ? " (known miss)" : "");
      if (std::find(e.controls.begin(), e.controls.end(), r.id) != e.controls.end())
        good += (good.empty() ? "" : ", ") + std::string("`") + std::string(e.name) + "`";
    }
    md << "| " << r.id << " | " << md_escape(r.title) << " | " << bad << " | " << good << " |\n";
  }
  md << "\nCompile-time rules (a C++ schedule breaking one does not compile, so no entry can hold "
        "it; `tests/compile_fail` checks each error): ";
  for (std::size_t i = 0; i < std::size(kCompileTimeRules); ++i)
    md << (i ? ", " : "") << kCompileTimeRules[i];
  md << ". R-B3, R-B6, R-D5, R-D20 and R-A11 are compile errors in C++ too (R-A13 in part); "
        "their violating entries are hand-built models, as a tool that builds models without C++ "
        "would produce them.\n";

  md << "\n## Rules × entries\n\n`✗` the entry must violate the rule; `✓` it is the rule's "
        "passing control; `miss` the verifier's verdict on that rule differs (a known miss). "
        "Entries that neither violate nor control any rule are left out.\n\n";
  md << "| entry |";
  for (auto const& r : ts::kRules) md << " " << rule_short(r.id) << " |";
  md << "\n|---|";
  for (std::size_t i = 0; i < std::size(ts::kRules); ++i) md << ":-:|";
  md << "\n";
  for (auto theme : themes) {
    for (std::size_t i = 0; i < c.size(); ++i) {
      Entry const& e = c[i];
      if (e.theme != theme || (e.expected.empty() && e.controls.empty() && !e.known_miss)) continue;
      Outcome const& o = outcome(i);
      md << "| `" << e.name << "` |";
      for (auto const& r : ts::kRules) {
        bool const want = std::find(e.expected.begin(), e.expected.end(), r.id) != e.expected.end();
        bool const got = std::find(o.detected.begin(), o.detected.end(), r.id) != o.detected.end();
        bool const control =
            std::find(e.controls.begin(), e.controls.end(), r.id) != e.controls.end();
        std::string cell = want ? "✗" : control ? "✓" : "";
        if (want != got) cell = "miss";
        md << " " << cell << " |";
      }
      md << "\n";
    }
  }
  return md.str();
}

std::string findings_dump() {
  Corpus const& c = corpus();
  std::string out;
  for (std::size_t i = 0; i < c.size(); ++i) {
    out += "=== " + std::string(c[i].name) + "\n";
    out += findings_text(outcome(i).report);
  }
  return out;
}

bool write_file(char const* path, std::string const& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (!f) {
    std::fprintf(stderr, "schedule_corpus: cannot write %s\n", path);
    return false;
  }
  std::printf("schedule_corpus: wrote %s\n", path);
  return true;
}

}  // namespace
}  // namespace corpus

int main(int argc, char** argv) {
  char const* table_path = std::getenv("WARPLOOM_CORPUS_TABLE");
  char const* findings_path = std::getenv("WARPLOOM_CORPUS_FINDINGS");
  // Our flags come out of argv before GoogleTest sees it.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--table") == 0 && i + 1 < argc) {
      table_path = argv[++i];
    } else if (std::strcmp(argv[i], "--findings") == 0 && i + 1 < argc) {
      findings_path = argv[++i];
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  testing::InitGoogleTest(&argc, argv);
  int const rc = RUN_ALL_TESTS();
  bool ok = true;
  if (table_path != nullptr && *table_path != '\0')
    ok = corpus::write_file(table_path, corpus::table()) && ok;
  if (findings_path != nullptr && *findings_path != '\0')
    ok = corpus::write_file(findings_path, corpus::findings_dump()) && ok;
  return rc != 0 ? rc : ok ? 0 : 1;
}
