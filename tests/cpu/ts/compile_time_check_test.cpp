// tests/cpu/ts/compile_time_check_test.cpp — the compile-time gate
// (warploom/ts/compile_time_check.hpp) and the compile-pass control of the compile-fail tests.
//
// tests/compile_fail/ts_rules.cpp without a CASE_ define is the good code every compile-fail case
// starts from; including it here compiles it with the project's flags (its own
// static_assert(ts::verified_at_compile_time<...>) included), so a compile-fail case fails
// because of its one violation, not because the harness or the shared code is broken. So does
// tests/compile_fail/ts_cluster_gate.cpp: a 2-CTA cluster's copy, its tiles per cluster, passing
// the gate with the cluster modelled CTA by CTA.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../compile_fail/ts_cluster_gate.cpp"
#include "../../compile_fail/ts_rules.cpp"
#include "fixtures.hpp"

namespace {

using namespace fixtures;
using ts::NodeKind;
using ts::OpKind;
using ts::Rule;
using Ids = std::vector<std::string>;

static_assert(ts::verified_at_compile_time<CopyManager::traits>());
static_assert(ts::verified_at_compile_time<cf::Manager::traits>());
static_assert(ts::verified_at_compile_time<cf_cluster::Manager::traits>());

// The rule the gate would name, found by the same checks in a constant expression.
template <class Manager>
constexpr bool constexpr_has(Rule rule) {
  return ts::verify_structure(ts::describe<typename Manager::traits>()).has(rule);
}
template <class Manager>
constexpr Rule constexpr_first_rule() {
  return ts::verify_structure(ts::describe<typename Manager::traits>()).violations.front().rule;
}

using T = Tiles<>;
// The store on warps 2-5 at 160 joins warpgroup 0, where the load sets 40.
using BadD2 = CopyOf<T, Load<T, 0, 1, 40>, Store<T, 2, 4, 160>>;
using BadD15 = CopyOf<Tiles<ts::tma_async(2, 256, ts::threads(1), ts::threads(64))>,
                      Load<Tiles<ts::tma_async(2, 256, ts::threads(1), ts::threads(64))>>,
                      Store<Tiles<ts::tma_async(2, 256, ts::threads(1), ts::threads(64))>>>;

TEST(CompileTimeCheck, ConstantEvaluationFindsTheSameRulesAsTheHost) {
  static_assert(constexpr_has<BadD2>(Rule::D2_WarpGroupRegisters));
  static_assert(constexpr_first_rule<BadD2>() == Rule::D2_WarpGroupRegisters);
  static_assert(constexpr_first_rule<BadD15>() == Rule::D15_ArrivalCounts);
  static_assert(!constexpr_has<CopyManager>(Rule::D2_WarpGroupRegisters));
  EXPECT_EQ(rule_ids(verify_manager<BadD2>()), Ids{"R-D2"});
  EXPECT_EQ(rule_ids(verify_manager<BadD15>()), Ids{"R-D15"});
}

TEST(CompileTimeCheck, MessagesAreLeftEmptyInConstantEvaluation) {
  constexpr bool empty = [] {
    ts::Report r = ts::verify_structure(ts::describe<BadD2::traits>());
    return r.violations.size() == 1 && r.violations[0].message.empty() &&
           r.violations[0].task == "store";
  }();
  static_assert(empty);
  ts::Report host = verify_manager<BadD2>();
  ASSERT_EQ(host.violations.size(), 1u);
  EXPECT_FALSE(host.violations[0].message.empty());
}

// The control's schedules hold every spot a compile-fail case edits: CF_IN_LOAD between the
// load task's acquire and commit, CF_IN_STORE between the store task's wait and release.
TEST(CompileTimeCheck, CompileFailControlIsAGoodManager) {
  ts::ManagerModel m = cf::Manager::model("cf");
  EXPECT_EQ(rule_ids(ts::verify_structure(m)), Ids{});
  ASSERT_EQ(m.tasks.size(), 3u);
  std::vector<OpKind> load_ops, store_ops;
  for (auto const& n : m.tasks[0].schedule.nodes)
    if (n.kind == NodeKind::Op) load_ops.push_back(n.op);
  for (auto const& n : m.tasks[1].schedule.nodes)
    if (n.kind == NodeKind::Op) store_ops.push_back(n.op);
  EXPECT_EQ(load_ops, (std::vector<OpKind>{OpKind::Work, OpKind::TryAcquire, OpKind::Acquire,
                                           OpKind::Work, OpKind::Commit}));
  EXPECT_EQ(store_ops, (std::vector<OpKind>{OpKind::TryWait, OpKind::Wait, OpKind::Work,
                                            OpKind::Release, OpKind::Work}));
  EXPECT_EQ(cf::Manager::num_warps, 8);
}

// The cluster control passes the gate as a 2-CTA cluster; modelled CTA by CTA, the whole verifier
// (every scenario, no state budget) decides it too.
TEST(CompileTimeCheck, ClusterControlPassesCtaByCta) {
  static_assert(cf_cluster::Manager::cluster_size == 2);
  ts::ModelCheckOptions opt;
  opt.model_clusters = true;
  ts::ModelCheckStats stats;
  ts::Report const r = ts::verify_manager(cf_cluster::Manager::model("cf_cluster"), opt, &stats);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.violations.front().message);
  EXPECT_TRUE(stats.decided);
}

}  // namespace
