// tests/cpu/ts/verify/structural_test.cpp — the verifier as a whole
// (warploom/ts/verify/structural.hpp, diagnostic.hpp): the tutorial passes every check, one run
// reports every violation in check order, and the report's one-line form.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../fixtures.hpp"

namespace {

using namespace fixtures;
using ts::Rule;
using Ids = std::vector<std::string>;
using T = Tiles<>;

TEST(Verify, TutorialCopyPassesEveryCheck) {
  ts::Report r = verify_manager<CopyManager>();
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.violations.empty());
  EXPECT_EQ(r.checks_run, 26);
  EXPECT_TRUE(CopyManager::verify().ok());
}

TEST(Verify, OneRunReportsEveryViolationInCheckOrder) {
  // load on warp 3 overlaps store (R-W1), store has 42 registers (R-B7), output_gmem is not in
  // the graph (R-D8).
  using M = ts::TaskManager<ts::Tasks<Load<T, 3>, Store<T, 0, 4, 42>>,
                            ts::Graph<ts::DependsOn<T, InputGmem>>>;
  ts::Report r = verify_manager<M>();
  ASSERT_EQ(rule_ids(r), (Ids{"R-W1", "R-B7", "R-D8"}));
  EXPECT_TRUE(r.has(Rule::W1_WarpOverlap));
  EXPECT_TRUE(r.has(Rule::B7_RegisterValue));
  EXPECT_TRUE(r.has(Rule::D8_GraphCoverage));
  EXPECT_FALSE(r.has(Rule::D2_WarpGroupRegisters));
  EXPECT_FALSE(r.ok());
}

// Work before acquire, then a commit without acquire.
struct TwoBracketErrors : Load<T> {
  static constexpr void schedule(auto&, auto& in, auto& smem) {
    ts::work<&T::tma_load>(smem, ts::work<&InputGmem::compute_coords>(in));
    smem.commit();
  }
};

TEST(Verify, OneBracketingFindingPerTask) {
  // Only the first is reported: the rest of an execution after a broken bracket says little.
  ts::Report r = verify_manager<CopyOf<T, TwoBracketErrors, Store<T>>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D10"});
  EXPECT_EQ(r.violations[0].op, "tma_load");
}

TEST(Diagnostic, EveryRuleHasAUniqueId) {
  std::set<std::string_view> ids;
  for (auto const& i : ts::kRules) {
    EXPECT_EQ(i.id.substr(0, 2), "R-") << i.id;
    EXPECT_FALSE(i.title.empty()) << i.id;
    EXPECT_EQ(ts::info(i.rule).id, i.id);
    ids.insert(i.id);
  }
  EXPECT_EQ(ids.size(), 37u);  // 27 structural rules, R-D1, R-D13, R-D16, R-M1..R-M7
  EXPECT_EQ(ts::info(Rule::D10_WorkBracketing).id, "R-D10");
  EXPECT_EQ(ts::info(Rule::W2_WarpRange).id, "R-W2");
}

TEST(Diagnostic, FormatNamesRuleTaskResourceOpAndMessage) {
  ts::Violation v{Rule::D10_WorkBracketing, "load", "smem", "tma_load", "it is wrong", {}};
  EXPECT_EQ(v.id(), "R-D10");
  EXPECT_EQ(ts::format(v), "R-D10 task `load` resource `smem` op `tma_load`: it is wrong");
  ts::Violation whole{Rule::D3_RegisterBudget, "", "", "", "too many", {}};
  EXPECT_EQ(ts::format(whole), "R-D3: too many");
}

// (Not in a static_assert: libstdc++ 12's std::string cannot be constant-evaluated reliably,
// which is why the checks build messages only at run time.)
TEST(Diagnostic, ToStrFormatsIntegers) {
  EXPECT_EQ(ts::to_str(0), "0");
  EXPECT_EQ(ts::to_str(-120), "-120");
  EXPECT_EQ(ts::to_str(232448), "232448");
  EXPECT_EQ(ts::to_str(-9223372036854775807LL - 1), "-9223372036854775808");
}

}  // namespace

// R-D24: the capture marks a pipeline op whose count follows the lane index, names the rule,
// task, resource and op, and leaves a one-warp task's warp-index bound alone.
namespace d24 {
struct Ring {
  static constexpr ts::ResourceSpec spec{
      .name = "ring", .pipeline = ts::async_async(2, ts::threads(32), ts::threads(32))};
  ts::SmemBuffer<int, 2 * 64> stages;
  using smem_buffers = ts::buffers<&Ring::stages>;
  void put(ts::Produce const&) {}
  int take(ts::Consume const& s) const { return s.stage_idx; }
};
struct Items {
  static constexpr ts::ResourceSpec spec{.name = "items"};
  int n = 0;
  void store(ts::Produce const&, int v) { (void)v; }
};
template <bool kLane>
struct Load {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 1, .num_warps = 1};
  using src = ts::list<>;
  using dst = ts::list<Ring>;
  static constexpr void schedule(auto& ctx, auto& ring) {
    int const extra = kLane ? ctx.task_thread_idx() % 2 : ctx.warp_idx() % 4 - 1;  // warp 1: 0
    ctx.domain_loop(ts::c<2> + extra, [&](auto&) {
      ring.acquire();
      ts::work<&Ring::put>(ring);
      ring.commit();
    });
  }
};
struct Store {
  static constexpr ts::TaskSpec spec{.name = "store", .warp_idx = 0, .num_warps = 1};
  using src = ts::list<Ring>;
  using dst = ts::list<Items>;
  static constexpr void schedule(auto& ctx, auto& ring, auto& out) {
    ctx.domain_loop(ts::c<2>, [&](auto&) {
      ring.wait();
      auto v = ts::work<&Ring::take>(ring);
      ring.release();
      ts::work<&Items::store>(out, v);
    });
  }
};
template <bool kLane>
using Manager = ts::TaskManager<ts::Tasks<Load<kLane>, Store>,
                                ts::Graph<ts::DependsOn<Ring>, ts::DependsOn<Items, Ring>>,
                                ts::ManagerOptions{.verified_in = ts::VerifiedIn::ScheduleUnit}>;
}  // namespace d24

TEST(Verify, R_D24_LaneDependentCountIsNamed) {
  ts::Report r = ts::verify_structure(d24::Manager<true>::model("d24"));
  ASSERT_TRUE(r.has(Rule::D24_DivergentCount));
  ts::Violation const* v = nullptr;
  for (auto const& x : r.violations)
    if (x.rule == Rule::D24_DivergentCount) v = &x;
  EXPECT_EQ(v->task, "load");
  EXPECT_EQ(v->resource, "ring");
  EXPECT_EQ(v->op, "acquire");
  EXPECT_NE(v->message.find("loop whose bounds depend on the lane"), std::string::npos)
      << v->message;
  EXPECT_FALSE(
      ts::verify_structure(d24::Manager<false>::model("d24")).has(Rule::D24_DivergentCount));
}
