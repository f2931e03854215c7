// warploom/ts/verify/diagnostic.hpp
//
// What the verifier reports: each violation names the rule, the task, the resource and the op,
// with a sentence that says what is wrong and how to fix it. Rule ids follow the TS reference
// (R-A*, R-B*, R-D*); rules the seed lacks are R-W* (warps).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace warploom::ts {

enum class Rule {
  A10_TileLoop,           // one work_tile_loop, at top level, over a work queue in src
  A11_SkipOwner,          // the skip predicate belongs to the queue the loop walks
  A13_Skippable,          // skippable() in a loop with skip_if, not nested, no queue op inside
  B3_LoopStep,            // loop step must not be 0, unroll >= 1
  B4_WorkQueue,           // at most one work queue per task in src, one task filling each
  B6_BlockStructure,      // first/last-iteration blocks inside their loop
  B7_RegisterValue,       // num_registers a multiple of 8 in [24, 256]
  D1_FillsTaken,          // each consumer of a ring takes as many stages as its producers fill
  D2_WarpGroupRegisters,  // all warps of a warpgroup share one register budget
  D3_RegisterBudget,      // the budgets fit the register file
  D5_StageRoles,          // producer ops on dst resources, consumer ops on src resources
  D6_GraphRealizable,     // every dependency edge is realised by a task
  D7_PdlWaitOrder,        // the previous grid's results are waited for before their first work
  D8_GraphCoverage,       // every resource a task uses is in the graph
  D9_ScheduleCoverage,    // every declared resource is used by the task's schedule
  D10_WorkBracketing,     // work inside acquire..commit / wait..release
  D11_TryBeforeBlocking,  // every try_* is followed by its blocking op
  D12_QueuePlacement,     // queue ops once per fetch in the tile loop; all tasks persistent or none
  D15_ArrivalCounts,      // cooperative-group sizes match the tasks that arrive
  D20_WorkLabels,         // every work call names a declared work
  D21_SmemCapacity,       // shared memory fits the block
  D22_Multicast,          // multicast stages: a TMA producer, 1 to 16 CTAs
  D23_ValueOrder,         // a work reads a value only after the work producing it ran
  D24_DivergentCount,     // no reserved op counted from the thread (or, multi-warp, warp) index
  D25_GroupOps,           // a pipeline group's shared side is moved by the group op only
  W1_WarpOverlap,         // tasks' warp ranges are disjoint
  W2_WarpRange,           // warp ranges lie inside the block
  W3_EmptyWarpgroup,      // no warpgroup below the highest task is left without a task
  D16_TmaBytes,           // a TMA stage's transaction bytes are the stage's buffer bytes
  D13_DmaOrdering,        // a stage is released only after its asynchronous reads retired
  // Found by the model checker on interleavings of the tasks:
  M1_Deadlock,        // some task can never proceed
  M2_UnbalancedExit,  // at the end every phase is complete and no copy is in flight
  M3_StageOwnership,  // a stage is read only while waited, written only while acquired
  M4_StageRace,       // no stage is written while another task reads it (or the reverse)
  M5_PhaseAliasing,   // producers never lap consumers; waits never pass on a stage in write
  M6_OverArrival,     // no barrier phase receives more arrivals than it expects
  M7_Undecided,       // the check finished within its state budget
};

struct RuleInfo {
  Rule rule;
  std::string_view id;
  std::string_view title;
};

inline constexpr RuleInfo kRules[] = {
    {Rule::A10_TileLoop, "R-A10",
     "one work_tile_loop per task, at the top, over a work queue in src"},
    {Rule::A11_SkipOwner, "R-A11", "the skip predicate belongs to the queue the loop walks"},
    {Rule::A13_Skippable, "R-A13",
     "skippable() sits in a loop with skip_if, unnested, without queue ops"},
    {Rule::B3_LoopStep, "R-B3", "domain loop step must not be 0"},
    {Rule::B4_WorkQueue, "R-B4", "a task takes tiles from one work queue; one task fills it"},
    {Rule::B6_BlockStructure, "R-B6", "first/last-iteration blocks belong to an enclosing loop"},
    {Rule::B7_RegisterValue, "R-B7", "num_registers is a multiple of 8 in [24, 256]"},
    {Rule::D1_FillsTaken, "R-D1", "each consumer of a ring takes as many stages as are filled"},
    {Rule::D2_WarpGroupRegisters, "R-D2", "all warps of a warpgroup share one register budget"},
    {Rule::D3_RegisterBudget, "R-D3", "register budgets fit the 64K-register file"},
    {Rule::D5_StageRoles, "R-D5", "producer ops on dst resources, consumer ops on src resources"},
    {Rule::D6_GraphRealizable, "R-D6", "every dependency edge is realised by a task"},
    {Rule::D7_PdlWaitOrder, "R-D7",
     "the previous grid's results are waited for (PDL) before their first work"},
    {Rule::D8_GraphCoverage, "R-D8", "every task resource appears in the dependency graph"},
    {Rule::D9_ScheduleCoverage, "R-D9", "every declared resource is used by the schedule"},
    {Rule::D10_WorkBracketing, "R-D10", "work sits inside acquire..commit or wait..release"},
    {Rule::D11_TryBeforeBlocking, "R-D11", "every try_* is followed by its blocking op"},
    {Rule::D12_QueuePlacement, "R-D12",
     "queue ops once per fetch in the tile loop; all tasks persistent or none"},
    {Rule::D15_ArrivalCounts, "R-D15", "pipeline group sizes match the arriving tasks"},
    {Rule::D20_WorkLabels, "R-D20", "every work call names a declared work"},
    {Rule::D21_SmemCapacity, "R-D21", "shared memory fits the block"},
    {Rule::D22_Multicast, "R-D22", "a multicast pipeline has a TMA producer and 1-16 CTAs"},
    {Rule::D23_ValueOrder, "R-D23", "a value is read only after the work producing it ran"},
    {Rule::D24_DivergentCount, "R-D24", "pipeline op counts do not depend on the thread index"},
    {Rule::D25_GroupOps, "R-D25",
     "a Merge member is released, a Fork member committed, through its group"},
    {Rule::W1_WarpOverlap, "R-W1", "task warp ranges are disjoint"},
    {Rule::W2_WarpRange, "R-W2", "task warp ranges lie inside the block"},
    {Rule::W3_EmptyWarpgroup, "R-W3", "every warpgroup below the highest task holds a task"},
    {Rule::D16_TmaBytes, "R-D16", "TMA transaction bytes match the stage's buffer bytes"},
    {Rule::D13_DmaOrdering, "R-D13",
     "a stage is released only after its asynchronous reads retired"},
    {Rule::M1_Deadlock, "R-M1", "every task can always eventually proceed (no deadlock)"},
    {Rule::M2_UnbalancedExit, "R-M2",
     "at exit every barrier phase is complete and no copy in flight"},
    {Rule::M3_StageOwnership, "R-M3",
     "a stage is read only while waited, written only while acquired"},
    {Rule::M4_StageRace, "R-M4", "no stage is written while another task reads it"},
    {Rule::M5_PhaseAliasing, "R-M5",
     "no producer laps a consumer; no wait passes on a stage in write"},
    {Rule::M6_OverArrival, "R-M6", "no barrier phase receives more arrivals than it expects"},
    {Rule::M7_Undecided, "R-M7", "the model check is decided within its state budget"},
};

constexpr RuleInfo const& info(Rule r) {
  for (auto const& i : kRules)
    if (i.rule == r) return i;
  return kRules[0];
}

struct Violation {
  Rule rule;
  std::string_view task;      // empty when the rule concerns the whole TaskManager
  std::string_view resource;  // empty when no resource is involved
  std::string_view op;        // the op or work label, when one is involved
  std::string message;        // what is wrong and how to fix it (empty in constant evaluation)
  std::string timeline;       // model-checker findings: the counterexample, step by step
  int cta = -1;               // the CTA of a cluster the task runs in (-1: one CTA, or none)

  constexpr std::string_view id() const { return info(rule).id; }
};

struct Report {
  std::vector<Violation> violations;
  int checks_run = 0;

  constexpr bool ok() const { return violations.empty(); }
  constexpr bool has(Rule r) const {
    for (auto const& v : violations)
      if (v.rule == r) return true;
    return false;
  }
};

// constexpr-friendly integer formatting (std::to_string and std::to_chars are not constexpr
// in C++20).
constexpr std::string to_str(long long v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned long long u =
      neg ? 0ULL - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
  std::string digits;
  while (u > 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + u % 10));
    u /= 10;
  }
  return neg ? "-" + digits : digits;
}

// "<id> task `t` resource `r` op `o`: message", the one-line form used in compile-time and log
// output.
inline std::string format(Violation const& v) {
  std::string s(v.id());
  if (!v.task.empty()) s += " task `" + std::string(v.task) + "`";
  if (v.cta >= 0) s += " CTA " + to_str(v.cta);
  if (!v.resource.empty()) s += " resource `" + std::string(v.resource) + "`";
  if (!v.op.empty()) s += " op `" + std::string(v.op) + "`";
  s += ": " + v.message;
  return s;
}

}  // namespace warploom::ts
