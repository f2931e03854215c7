// tests/cpu/ts/verify/model_check_test.cpp — the exhaustive model checker (verify/model_check.hpp,
// check_model.hpp, timeline.hpp, program.hpp): verdicts, counterexamples, scenarios, budget.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "../fixtures.hpp"
#include "../gemm_shaped.hpp"
#include "warploom/ts/verify/verify.hpp"

namespace ts = warploom::ts;
using ts::Rule;

namespace {

std::vector<std::string> ids(ts::Report const& r) {
  std::vector<std::string> out;
  for (auto const& v : r.violations) out.emplace_back(v.id());
  return out;
}

TEST(ModelCheck, TutorialCopyIsDeadlockAndRaceFree) {
  ts::ModelCheckStats st;
  ts::Report r = ts::model_check(fixtures::CopyManager::model("copy"), {}, &st);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : ts::format(r.violations[0]));
  EXPECT_EQ(st.scenarios, 4);  // one run-time loop position: 0, 1, 2, stages+1 iterations
  EXPECT_TRUE(st.decided);
  EXPECT_GT(st.states, 10);
}

TEST(ModelCheck, GemmShapedManagerWithLaggedReleaseIsDecidedClean) {
  ts::ModelCheckStats st;
  ts::Report r = ts::verify_manager(gemm_shaped::Manager<>::model("gemm"), {}, &st);
  EXPECT_TRUE(r.ok()) << (r.ok() ? ""
                                 : ts::format(r.violations[0]) + "\n" + r.violations[0].timeline);
  EXPECT_TRUE(st.decided);
  EXPECT_EQ(st.scenarios, 16);  // two run-time loop positions (tiles, k) x {0, 1, 2, 9}
}

TEST(ModelCheck, ReleasingAStageWhoseWgmmaReadsAreInFlightIsRD13) {
  using M = gemm_shaped::Manager<gemm_shaped::MmaRelease::NoWgmmaWait>;
  ts::Report r = ts::verify_manager(M::model("gemm"));
  ASSERT_EQ(ids(r), std::vector<std::string>{"R-D13"});
  EXPECT_EQ(r.violations[0].task, "mma");
  EXPECT_EQ(r.violations[0].resource, "smem_ab");
  EXPECT_EQ(r.violations[0].op, "release");
  EXPECT_NE(r.violations[0].timeline.find("VIOLATION"), std::string::npos);
  EXPECT_NE(r.violations[0].timeline.find("smem_ab.mma() [stage 0]"), std::string::npos);
}

TEST(ModelCheck, WaitingForAllButOneThenReleasingTheNewestIsStillRD13) {
  using M = gemm_shaped::Manager<gemm_shaped::MmaRelease::WaitOneThenReleaseCurrent>;
  ts::Report r = ts::verify_manager(M::model("gemm"));
  ASSERT_EQ(ids(r), std::vector<std::string>{"R-D13"});
  EXPECT_NE(r.violations[0].timeline.find("wgmma_wait<1>()"), std::string::npos);
}

// A store task that consumes only in its loop's first iteration leaves the load task's producer
// tail waiting forever.
struct FirstIterationOnlyStore : fixtures::StoreTask {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(0, smem->rows, 1, [&](auto& loop) {
      loop.first_iter([&] {
        smem.wait();
        auto v = ts::work<&fixtures::SmemTiles::read_smem>(smem);
        smem.release();
        ts::work<&fixtures::OutputGmem::store>(out, v);
      });
    });
  }
};

TEST(ModelCheck, DeadlockNamesTheBlockedTaskAndShowsTheTimeline) {
  using M =
      ts::TaskManager<ts::Tasks<fixtures::LoadTask, FirstIterationOnlyStore>, fixtures::CopyGraph>;
  ts::Report r = ts::verify_manager(M::model("copy"));
  // The hang, and its cause: the store takes one stage of the load's n (R-D1).
  ASSERT_EQ(ids(r), (std::vector<std::string>{"R-M1", "R-D1"}));
  ts::Violation const& v = r.violations[0];
  EXPECT_EQ(v.task, "load");
  EXPECT_NE(v.message.find("task `load` waits in smem.producer_tail() [stage 1]"),
            std::string::npos)
      << v.message;
  EXPECT_NE(v.message.find("run-time loops running 2 time(s)"), std::string::npos) << v.message;
  // One column per task and one for TMA copies landing; the last row is where each task is.
  EXPECT_EQ(v.timeline.rfind("  step", 0), 0u);
  EXPECT_NE(v.timeline.find("| load"), std::string::npos);
  EXPECT_NE(v.timeline.find("| tma"), std::string::npos);
  EXPECT_NE(v.timeline.find("smem stage 0 landed"), std::string::npos);
  EXPECT_NE(v.timeline.find("  now "), std::string::npos);
}

// Releasing before reading: the read happens on a stage the task no longer owns.
struct ReleaseThenRead : fixtures::StoreTask {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(0, smem->rows, 1, [&](auto&) {
      smem.wait();
      smem.release();
      auto v = ts::work<&fixtures::SmemTiles::read_smem>(smem);
      ts::work<&fixtures::OutputGmem::store>(out, v);
    });
  }
};

TEST(ModelCheck, ReadAfterReleaseIsRM3WithTheViolatingStep) {
  using M = ts::TaskManager<ts::Tasks<fixtures::LoadTask, ReleaseThenRead>, fixtures::CopyGraph>;
  // The bracketing rule sees it too; the model checker alone gives the interleaving.
  ts::Report r = ts::model_check(M::model("copy"));
  ASSERT_EQ(ids(r), std::vector<std::string>{"R-M3"});
  EXPECT_NE(r.violations[0].timeline.find("VIOLATION | "), std::string::npos);
  EXPECT_NE(r.violations[0].timeline.find("smem.read_smem() [stage 1]"), std::string::npos);
}

TEST(ModelCheck, StateBudgetIsAnErrorUnlessAllowed) {
  ts::ModelCheckOptions opt;
  opt.max_states = 50;
  ts::ModelCheckStats st;
  ts::Report r = ts::model_check(gemm_shaped::Manager<>::model("gemm"), opt, &st);
  EXPECT_FALSE(st.decided);
  EXPECT_EQ(ids(r), std::vector<std::string>{"R-M7"});
  opt.allow_undecided = true;
  EXPECT_TRUE(ts::model_check(gemm_shaped::Manager<>::model("gemm"), opt).ok());
}

TEST(ModelCheck, ScenariosCoverZeroOneTwoAndStagesPlusOne) {
  auto const sc = ts::verify::scenarios_of(gemm_shaped::Manager<>::model("gemm"));
  ASSERT_EQ(sc.size(), 16u);
  EXPECT_EQ(sc.front().runtime_trips, (std::vector<int>{0, 0}));
  EXPECT_EQ(sc.back().runtime_trips, (std::vector<int>{9, 9}));
  EXPECT_EQ(ts::verify::scenarios_of(gemm_shaped::Manager<>::model("gemm"), 2).size(), 9u);
}

// Two tasks over the even and the odd items of one run-time range, (c<0>, n, c<2>) and
// (c<1>, n, c<2>): their trip counts follow from one n, so the odd loop runs as often as the even
// one or once less, and both cases are tried.
TEST(ModelCheck, LoopsOverOneDomainWithOtherOffsetsShareTheExtent) {
  auto task_looping_from = [](long long start) {
    ts::TaskModel t;
    ts::Node loop;
    loop.kind = ts::NodeKind::Loop;
    loop.parent = 0;
    loop.start = {true, start};
    loop.end = {false, 0};
    loop.step = {true, 2};
    t.schedule.add(loop);
    return t;
  };
  ts::ManagerModel m;
  m.tasks = {task_looping_from(0), task_looping_from(1)};
  bool equal = false, one_less = false;
  for (auto const& sc : ts::verify::scenarios_of(m)) {
    ASSERT_EQ(sc.runtime_trips.size(), 2u);
    int const even = sc.runtime_trips[0], odd = sc.runtime_trips[1];
    EXPECT_TRUE(odd == even || odd == even - 1) << even << " even, " << odd << " odd trips";
    equal = equal || (odd == even && even > 0);
    one_less = one_less || odd == even - 1;
  }
  EXPECT_TRUE(equal);
  EXPECT_TRUE(one_less);
}

// A task of one loop from 0 to `end` by `step`, nothing in it: what the scenarios are made for.
ts::TaskModel one_loop_task(ts::Bound step, ts::Bound end) {
  ts::TaskModel t;
  ts::Node loop;
  loop.kind = ts::NodeKind::Loop;
  loop.parent = 0;
  loop.start = {true, 0};
  loop.end = end;
  loop.step = step;
  t.schedule.add(loop);
  return t;
}

// One task over the items one at a time, (0, n, 1), another two at a time, (0, n, 2): one domain.
// Any extent may be odd, where the second runs ceil(n / 2) times; a promise that the extent is even
// (ts::multiple_of<2>, here on the step-2 loop only) makes every scenario an even extent.
TEST(ModelCheck, LoopsOverOneDomainWithOtherStepsShareTheExtent) {
  auto task_looping_by = [](long long step, int multiple) {
    return one_loop_task({true, step}, {.is_static = false, .value = 0, .multiple = multiple});
  };
  for (int const multiple : {1, 2}) {
    ts::ManagerModel m;
    m.tasks = {task_looping_by(1, 1), task_looping_by(2, multiple)};
    bool odd = false;
    for (auto const& sc : ts::verify::scenarios_of(m)) {
      ASSERT_EQ(sc.runtime_trips.size(), 2u);
      int const ones = sc.runtime_trips[0], twos = sc.runtime_trips[1];
      EXPECT_EQ(twos, (ones + 1) / 2) << ones << " and " << twos << " trips";
      odd = odd || ones % 2 == 1;
    }
    EXPECT_EQ(odd, multiple == 1);
  }
}

// A bound promised at least one trip (ts::at_least<1>: a GEMM tile's K tiles) is never tried
// empty, alone or with another loop over its domain; without the promise both are.
TEST(ModelCheck, APromisedMinimumTripCountIsNeverUndercut) {
  auto loop_by = [](long long step, int at_least) {
    return one_loop_task({true, step}, {.is_static = false, .value = 0, .at_least = at_least});
  };
  for (int const at_least : {0, 1}) {
    for (bool const two_loops : {false, true}) {
      ts::ManagerModel m;
      m.tasks = {loop_by(1, at_least)};
      if (two_loops) m.tasks.push_back(loop_by(2, 0));
      int fewest = 1 << 30;
      bool one = false;
      for (auto const& sc : ts::verify::scenarios_of(m)) {
        for (int trips : sc.runtime_trips) fewest = std::min(fewest, trips);
        one = one || sc.runtime_trips[0] == 1;
      }
      EXPECT_EQ(fewest, at_least) << (two_loops ? "two loops" : "one loop");
      EXPECT_TRUE(one);
    }
  }
}

// With a large step ratio, (0, n) against (0, n, 8), each trip count of the step-8 loop comes from
// 8 extents; the smallest two and the largest two of them are tried.
TEST(ModelCheck, LargeStepRatiosTryTheExtremeExtentsOfEachValue) {
  ts::ManagerModel m;
  for (long long step : {1, 8}) {
    ts::TaskModel t;
    ts::Node loop;
    loop.kind = ts::NodeKind::Loop;
    loop.parent = 0;
    loop.start = {true, 0};
    loop.end = {false, 0};
    loop.step = {true, step};
    t.schedule.add(loop);
    m.tasks.push_back(t);
  }
  std::vector<std::vector<int>> trips;
  for (auto const& sc : ts::verify::scenarios_of(m)) trips.push_back(sc.runtime_trips);
  // The step-8 loop runs 0, 1 and 2 times (no pipeline, so stages + 1 adds no value).
  EXPECT_EQ(trips, (std::vector<std::vector<int>>{
                       {0, 0}, {1, 1}, {2, 1}, {7, 1}, {8, 1}, {9, 2}, {10, 2}, {15, 2}, {16, 2}}));
}

// Three tasks over three different run-time sizes (the probes tell their bounds apart): three
// domains. Beyond every combination of two domains, the scenarios are those with every domain
// alike plus a pairwise cover: every two domains meet in every pair of trip counts.
TEST(ModelCheck, ThreeDomainsMeetPairwiseInEveryPairOfTripCounts) {
  ts::ManagerModel m;
  for (long long probe : {1000, 2000, 3000}) {
    ts::TaskModel t;
    ts::Node loop;
    loop.kind = ts::NodeKind::Loop;
    loop.parent = 0;
    loop.start = {true, 0};
    loop.end = {.is_static = false, .value = 0, .probed = true, .probes = {probe, probe + 1}};
    loop.step = {true, 1};
    t.schedule.add(loop);
    m.tasks.push_back(t);
  }
  auto const scenarios = ts::verify::scenarios_of(m);
  EXPECT_LT(scenarios.size(), 27u);  // fewer than every combination of {0, 1, 2}
  for (int a = 0; a < 3; ++a) {
    for (int b = a + 1; b < 3; ++b) {
      for (int x : {0, 1, 2}) {
        for (int y : {0, 1, 2}) {
          bool met = false;
          for (auto const& sc : scenarios)
            met = met || (sc.runtime_trips[a] == x && sc.runtime_trips[b] == y);
          EXPECT_TRUE(met) << "domains " << a << " and " << b << " never run " << x << " and " << y;
        }
      }
    }
  }
  bool alike = false;
  for (auto const& sc : scenarios) alike = alike || sc.runtime_trips == std::vector<int>{2, 2, 2};
  EXPECT_TRUE(alike);
}

// The reduced search reaches the unreduced verdict with fewer states (the corpus test checks
// every entry). The GEMM-shaped manager is out of reach unreduced: it passes 4M states in a
// scenario.
TEST(ModelCheck, UnreducedSearchReachesTheSameVerdictWithMoreStates) {
  ts::ModelCheckStats reduced, full;
  ts::ModelCheckOptions opt;
  ts::Report const a = ts::model_check(fixtures::CopyManager::model("copy"), opt, &reduced);
  opt.reduce = false;
  ts::Report const b = ts::model_check(fixtures::CopyManager::model("copy"), opt, &full);
  EXPECT_EQ(ids(a), ids(b));
  EXPECT_GT(full.states, reduced.states);
}

// ---- Clusters (README §7) ----------------------------------------------------------------------

// The fixtures' copy on a ring multicast to a 2-CTA cluster, modelled as one copy per CTA.
using McastTiles = fixtures::Tiles<fixtures::kCopyPipeline.with_multicast(2)>;
using McastCopy =
    fixtures::CopyOf<McastTiles, fixtures::Load<McastTiles>, fixtures::Store<McastTiles>>;

ts::ModelCheckOptions clusters(bool reduce = true) {
  ts::ModelCheckOptions opt;
  opt.model_clusters = true;
  opt.reduce = reduce;
  return opt;
}

// Its model with an empty barrier that counts (and releases that arrive in) its own CTA only: a
// peer refills a stage this CTA's store still reads.
ts::ManagerModel empty_barrier_counts_one_cta() {
  ts::ManagerModel m = McastCopy::model("copy");
  for (auto& r : m.resources)
    if (r.pipeline.multicast_ctas > 1) r.pipeline.release_ctas_override = 1;
  return m;
}

// The two CTAs run alike: the reduced search explores each state and its renumbering once, and
// lands all but the last copy into a stage at once, and reaches the unreduced verdict.
TEST(ModelCheck, ClusterReductionsKeepTheVerdictWithFewerStates) {
  for (auto const& m : {McastCopy::model("copy"), empty_barrier_counts_one_cta()}) {
    ts::ModelCheckStats reduced, full;
    ts::Report const a = ts::model_check(m, clusters(), &reduced);
    ts::Report const b = ts::model_check(m, clusters(false), &full);
    std::vector<std::string> sa = ids(a), sb = ids(b);
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
    EXPECT_EQ(sa, sb);
    EXPECT_TRUE(reduced.decided);
    EXPECT_LT(reduced.states * 10, full.states);
  }
  EXPECT_TRUE(ts::model_check(McastCopy::model("copy"), clusters()).ok());
}

// A counterexample found in states stored with their CTAs renumbered (sorted after every step) is
// told in one numbering: each load's column replays its program (try_acquire, acquire, tma_load of
// one stage in a row), the violating step is in the column of the CTA the sentence names, and the
// stage it writes is the peer's.
TEST(ModelCheck, ClusterCounterexampleIsToldInOneNumbering) {
  ts::Report const r = ts::model_check(empty_barrier_counts_one_cta(), clusters());
  auto const it = std::find_if(r.violations.begin(), r.violations.end(),
                               [](ts::Violation const& v) { return v.rule == Rule::M4_StageRace; });
  ASSERT_NE(it, r.violations.end());
  ASSERT_GE(it->cta, 0);
  std::string const& t = it->timeline;
  auto cells = [](std::string const& line) {
    std::vector<std::string> out;
    std::size_t from = 0;
    for (std::size_t bar = line.find('|'); bar != std::string::npos; bar = line.find('|', from)) {
      out.push_back(line.substr(from, bar - from));
      from = bar + 1;
    }
    out.push_back(line.substr(from));
    for (auto& c : out) {
      c.erase(0, c.find_first_not_of(' '));
      c.erase(c.find_last_not_of(' ') + 1);
    }
    return out;
  };
  std::vector<std::vector<std::string>> rows;
  for (std::size_t at = 0; at < t.size();) {
    std::size_t const eol = t.find('\n', at);
    rows.push_back(cells(t.substr(at, eol - at)));
    at = eol == std::string::npos ? t.size() : eol + 1;
  }
  std::vector<std::string> const& header = rows.front();
  std::string const offender = "cta" + std::to_string(it->cta) + ".load";
  bool offender_violates = false;
  for (std::size_t col = 1; col < header.size(); ++col) {
    if (header[col].find(".load") == std::string::npos) continue;
    std::vector<std::string> column;  // its steps, up to the violation
    for (std::size_t i = 1; i < rows.size(); ++i) {
      if (rows[i][0] == "now" || rows[i][0] == "..." || col >= rows[i].size()) continue;
      if (!rows[i][col].empty()) column.push_back(rows[i][col]);
      if (rows[i][0] == "VIOLATION" && !rows[i][col].empty())
        offender_violates = header[col] == offender;
    }
    for (std::size_t i = 1; i < column.size(); ++i) {
      std::size_t const bracket = column[i].find('[');
      if (bracket == std::string::npos) continue;
      std::string const stage = column[i].substr(bracket);
      if (column[i].rfind("smem.tma_load()", 0) == 0) {
        EXPECT_EQ(column[i - 1], "smem.acquire() " + stage) << header[col] << "\n" << t;
      }
      if (column[i].rfind("smem.acquire()", 0) == 0) {
        EXPECT_EQ(column[i - 1], "smem.try_acquire() " + stage) << header[col] << "\n" << t;
      }
    }
  }
  EXPECT_TRUE(offender_violates) << it->message << "\n" << t;
  EXPECT_NE(it->message.find("of CTA " + std::to_string(1 - it->cta) + " (multicast)"),
            std::string::npos)
      << it->message;
}

TEST(ModelCheck, RoundRobinTablePrintsOneColumnPerTaskAndEveryRound) {
  std::string const t = ts::round_robin_table(fixtures::CopyManager::model("copy"));
  EXPECT_EQ(t.rfind("round robin (run-time loops running 2 time(s)", 0), 0u);
  EXPECT_NE(t.find("| load"), std::string::npos);
  EXPECT_NE(t.find("| store"), std::string::npos);
  EXPECT_NE(t.find("smem.producer_tail() [stage 1]"), std::string::npos);
  EXPECT_EQ(t.find("BLOCKED"), std::string::npos);
}

TEST(ModelCheck, ModelCheckRunsInConstantExpressions) {
  static_assert(ts::model_check(ts::describe<fixtures::CopyManager::traits>()).ok());
  SUCCEED();
}

}  // namespace

namespace {

namespace staging {

// An epilogue hand-off through shared memory stored by TMA: the math task writes a staging stage
// (threads), the store task issues the TMA store from it and may release it only once the store
// has read it (cp.async.bulk.wait_group.read).
struct Rows {
  static constexpr ts::ResourceSpec spec{.name = "rows"};
  int n = 0;
  int next(ts::Consume const& s) const { return s.loop_offset; }
};
struct Staging {
  static constexpr ts::ResourceSpec spec{
      .name = "staging", .pipeline = ts::async_tma(2, ts::threads(128), ts::threads(32))};
  ts::SmemBuffer<char, 2 * 8192> tiles;
  using smem_buffers = ts::buffers<&Staging::tiles>;
  void write(ts::Produce const&, int) {}
  void tma_store(ts::Consume const&) const {}
};
struct Math {
  static constexpr ts::TaskSpec spec{.name = "math", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<Rows>;
  using dst = ts::list<Staging>;
  static constexpr void schedule(auto& ctx, auto& rows, auto& staging) {
    ctx.domain_loop(rows->n, [&](auto&) {
      auto r = ts::work<&Rows::next>(rows);
      staging.acquire();
      ts::work<&Staging::write>(staging, r);
      staging.commit();
    });
  }
};
enum class Retire { BulkWaitRead, None, WrongUnit };
template <Retire kRetire>
struct Store {
  static constexpr ts::TaskSpec spec{.name = "store", .warp_idx = 4, .num_warps = 1};
  using src = ts::list<Rows, Staging>;
  using dst = ts::list<>;
  static constexpr void schedule(auto& ctx, auto& rows, auto& staging) {
    ctx.domain_loop(rows->n, [&](auto&) {
      ts::work<&Rows::next>(rows);
      staging.wait();
      ts::work<&Staging::tma_store>(staging);
      if constexpr (kRetire == Retire::BulkWaitRead) ts::bulk_wait_read<0>(ctx);
      if constexpr (kRetire == Retire::WrongUnit) ts::wgmma_wait<0>(ctx);
      staging.release();
    });
  }
};
template <Retire kRetire>
using Manager =
    ts::TaskManager<ts::Tasks<Math, Store<kRetire>>, ts::Graph<ts::DependsOn<Staging, Rows>>>;

}  // namespace staging

TEST(ModelCheck, TmaStoreStageReleasedAfterBulkWaitReadIsClean) {
  ts::Report r = ts::verify_manager(staging::Manager<staging::Retire::BulkWaitRead>::model("s"));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : ts::format(r.violations[0]));
}

TEST(ModelCheck, TmaStoreStageReleasedWhileTheStoreReadsIsRD13) {
  ts::Report r = ts::verify_manager(staging::Manager<staging::Retire::None>::model("s"));
  ASSERT_EQ(ids(r), std::vector<std::string>{"R-D13"});
  EXPECT_EQ(r.violations[0].task, "store");
  EXPECT_EQ(r.violations[0].op, "release");
}

TEST(ModelCheck, WgmmaWaitDoesNotRetireTmaStoreReads) {
  ts::Report r = ts::verify_manager(staging::Manager<staging::Retire::WrongUnit>::model("s"));
  ASSERT_EQ(ids(r), std::vector<std::string>{"R-D13"});
  EXPECT_NE(r.violations[0].timeline.find("wgmma_wait<0>()"), std::string::npos);
}

}  // namespace

namespace {

namespace register_through {

// A ring that threads write and wgmma reads (async_wgmma, the seed's AsyncUmma; tutorial 07/02):
// the MMA task may release a stage only once wgmma_wait retired the batch that read it.
struct Steps {
  static constexpr ts::ResourceSpec spec{.name = "steps"};
  int n = 0;
  int next(ts::Consume const& s) const { return s.loop_offset; }
};
struct Tiles {
  static constexpr ts::ResourceSpec spec{
      .name = "tiles", .pipeline = ts::async_wgmma(2, ts::threads(32), ts::warps(4))};
  ts::SmemBuffer<char, 2 * 8192> tiles;
  using smem_buffers = ts::buffers<&Tiles::tiles>;
  void store(ts::Produce const&, int) {}
  void mma(ts::Consume const&) const {}
};
struct Load {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 4, .num_warps = 1};
  using src = ts::list<Steps>;
  using dst = ts::list<Tiles>;
  static constexpr void schedule(auto& ctx, auto& steps, auto& tiles) {
    ctx.domain_loop(steps->n, [&](auto&) {
      auto k = ts::work<&Steps::next>(steps);
      tiles.acquire();
      ts::work<&Tiles::store>(tiles, k);
      tiles.commit();
    });
  }
};
enum class Retire { WgmmaWait, None, WrongUnit };
template <Retire kRetire>
struct Mma {
  static constexpr ts::TaskSpec spec{.name = "mma", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<Steps, Tiles>;
  using dst = ts::list<>;
  static constexpr void schedule(auto& ctx, auto& steps, auto& tiles) {
    ctx.domain_loop(steps->n, [&](auto&) {
      ts::work<&Steps::next>(steps);
      tiles.wait();
      ts::work<&Tiles::mma>(tiles);
      if constexpr (kRetire == Retire::WgmmaWait) ts::wgmma_wait<0>(ctx);
      if constexpr (kRetire == Retire::WrongUnit) ts::bulk_wait_read<0>(ctx);
      tiles.release();
    });
  }
};
template <Retire kRetire>
using Manager =
    ts::TaskManager<ts::Tasks<Mma<kRetire>, Load>, ts::Graph<ts::DependsOn<Tiles, Steps>>>;

}  // namespace register_through

TEST(ModelCheck, ThreadWrittenWgmmaStageReleasedAfterWgmmaWaitIsClean) {
  using M = register_through::Manager<register_through::Retire::WgmmaWait>;
  ts::Report r = ts::verify_manager(M::model("r"));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : ts::format(r.violations[0]));
}

TEST(ModelCheck, ThreadWrittenWgmmaStageReleasedWhileWgmmaReadsIsRD13) {
  using M = register_through::Manager<register_through::Retire::None>;
  ts::Report r = ts::verify_manager(M::model("r"));
  ASSERT_EQ(ids(r), std::vector<std::string>{"R-D13"});
  EXPECT_EQ(r.violations[0].task, "mma");
  EXPECT_EQ(r.violations[0].op, "release");
}

TEST(ModelCheck, BulkWaitReadDoesNotRetireWgmmaReads) {
  using M = register_through::Manager<register_through::Retire::WrongUnit>;
  ts::Report r = ts::verify_manager(M::model("r"));
  ASSERT_EQ(ids(r), std::vector<std::string>{"R-D13"});
}

}  // namespace
