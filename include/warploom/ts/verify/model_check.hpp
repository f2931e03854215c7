// warploom/ts/verify/model_check.hpp
//
// The exhaustive model checker: every interleaving of a TaskManager's tasks, with each pipeline's
// barriers modelled exactly — per stage, the full and empty mbarrier's phase parity, the arrivals
// still expected in the current phase and the TMA transactions outstanding — and the tasks'
// waits deciding on parity as the hardware does (so a producer that laps a consumer is seen to
// pass on a stale phase). TMA copies land asynchronously, at any point after they are issued.
//
// Every run-time loop is tried with 0, 1, 2 and stages+1 iterations (loops over one domain alike,
// see program.hpp). States are hashed; a step that touches nothing shared runs alone
// (partial-order reduction). The search never stops silently: past `max_states` the result is
// R-M7 "undecided", an error unless the caller allows it.
//
// With ModelCheckOptions::model_clusters, a cluster (TaskManager::cluster_size > 1, from multicast
// pipelines) is modelled as one copy of
// the task set per CTA, each with its own barriers and stages: a multicast producer's copies land
// in every CTA of its group, a release arrives on the empty barrier of every CTA of its group, and
// a producer refills a stage only when its own empty barrier has every arrival. CTAs may run
// different trip counts (ts::per_cta). Steps of different CTAs on CTA-local resources commute, so
// a persistent set grown from one transition runs first (the tasks and landings that depend on it
// joined, README §7); else one CTA's local steps, or all of one CTA's steps while its peers cannot
// reach a stage they touch without it (a CTA ahead); CTAs running the same trip
// counts are interchangeable, so a state is stored with their blocks sorted and explored once for
// all its renumberings (symmetry reduction); and a copy that is not the last in flight into its
// stage lands at once (a silent landing). README §7 has the arguments.
//
// Findings (rules R-M1..R-M6) name the task (and its CTA), resource and op, and carry the
// shortest counterexample as a per-task timeline.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "warploom/ts/model.hpp"
#include "warploom/ts/smem_layout.hpp"
#include "warploom/ts/verify/context.hpp"
#include "warploom/ts/verify/diagnostic.hpp"
#include "warploom/ts/verify/model_check_options.hpp"
#include "warploom/ts/verify/program.hpp"
#include "warploom/ts/verify/state_table.hpp"

namespace warploom::ts {

namespace verify {

namespace detail {

// How a state was reached: from `parent` by task `task` running its step `pc` (task -1: the TMA
// copy into (resource, stage) landed).
struct Edge {
  int parent = -1;
  int task = -1;
  int pc = 0;  // first step the task ran
  int resource = -1;
  int stage = 0;
  int pc_end = -1;  // one past the last step it ran (-1: just `pc`)
  int cta = 0;      // a copy landing: the CTA it landed in
  // Symmetry reduction: the state reached was stored with its CTA blocks reordered, block i
  // being the block of CTA (order >> 4i) & 15 of the parent's numbering (0: not reordered).
  std::uint64_t order = 0;
};

struct Finding {
  Rule rule;
  int task = -1;  // offending task (-1: none)
  int resource = -1;
  int node = -1;      // schedule node of the offending op (-1: tail / none)
  int state = -1;     // state the offending transition started from (for the timeline)
  int pc_begin = -1;  // the offending task's steps [pc_begin, pc_end] ran in that transition,
  int pc_end = -1;    // the last one the violation (-1: the finding is about the state itself)
  std::string what;   // the sentence (empty in constant evaluation)
  int cta = -1;       // the CTA of the task or the stage (-1: one CTA)
};

}  // namespace detail

// ---- Checker -----------------------------------------------------------------------------------
class ModelChecker {
 public:
  constexpr ModelChecker(ManagerModel const& m, Scenario const& sc, ModelCheckOptions const& opt)
      : m_(m), sc_(sc), opt_(opt) {
    LoopKeys const keys = loop_keys(m);
    tasks_ = static_cast<int>(m.tasks.size());
    res_ = static_cast<int>(m.resources.size());
    ctas_ = opt.model_clusters ? cluster_size(m) : 1;
    for (int c = 0; c < ctas_; ++c)
      for (int t = 0; t < tasks_; ++t)
        programs_.push_back(build_program(m, t, keys, sc.for_cta(c)));
    layout_.tasks = ctas_ * tasks_;
    int offset = 2 * layout_.tasks;
    for (int c = 0; c < ctas_; ++c) {
      for (auto const& r : m.resources) {
        layout_.stages.push_back(r.pipeline.enabled() ? r.pipeline.num_stages : 0);
        if (r.pipeline.enabled()) {
          layout_.res_base.push_back(offset);
          offset += r.pipeline.num_stages * detail::Layout::kPerStage;
        } else {
          layout_.res_base.push_back(-1);
        }
      }
    }
    for (auto const& r : m.resources)
      has_async_reads_ = has_async_reads_ || r.pipeline.dma_consumer();
    async_base_ = offset;
    if (has_async_reads_) offset += layout_.tasks * kMaxAsyncReads;
    layout_.size = offset;
    // Pipelined resources whose buffers share bytes (alias groups): one's stages in use make the
    // other's writes races.
    SmemLayout const l = layout_smem(m);
    int const R = static_cast<int>(m.resources.size());
    aliased_.assign(static_cast<std::size_t>(R * R), false);
    aliased_any_.assign(static_cast<std::size_t>(R), false);
    for (auto const& a : l.placements) {
      if (a.barriers || a.resource < 0) continue;
      buffers_.push_back(a);
      for (auto const& b : l.placements)
        if (!b.barriers && a.resource != b.resource && b.resource >= 0 &&
            a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes) {
          aliased_[static_cast<std::size_t>(a.resource * R + b.resource)] = true;
          aliased_any_[static_cast<std::size_t>(a.resource)] = true;
        }
    }
    // What another CTA can see: a resource whose barriers or stages peers touch (multicast or
    // remote release), and every resource sharing bytes with one.
    cluster_visible_.assign(static_cast<std::size_t>(R), false);
    for (int r = 0; r < R; ++r) {
      auto const& p = m.resources[r].pipeline;
      if (ctas_ > 1 && p.enabled() && (p.multicast_ctas > 1 || p.release_ctas() > 1))
        cluster_visible_[static_cast<std::size_t>(r)] = true;
    }
    for (int r = 0; r < R; ++r)
      for (int r2 = 0; r2 < R; ++r2)
        if (cluster_visible_[static_cast<std::size_t>(r2)] &&
            aliased_[static_cast<std::size_t>(r * R + r2)])
          cluster_visible_[static_cast<std::size_t>(r)] = true;
    // For the persistent set: the resources each task touches from each step on.
    for (Program const& p : programs_) {
      std::vector<std::uint64_t> rest(p.steps.size() + 1, 0);
      for (int i = static_cast<int>(p.steps.size()) - 1; i >= 0; --i)
        rest[i] = rest[i + 1] | resource_bit(p.steps[i].resource) |
                  resource_bit(empty_owner(m, p.steps[i].resource)) |
                  resource_bit(full_owner(m, p.steps[i].resource));
      touches_from_.push_back(rest);
    }
    // For the segments: the asynchronous waits that may retire a read of a stage its task did
    // not hold when the read started (ends_segment_before).
    for (Program const& p : programs_) {
      std::vector<bool> cut(p.steps.size(), false);
      bool unheld = false;
      for (std::size_t pc = 0; pc < p.steps.size(); ++pc) {
        Step const& st = p.steps[pc];
        if (st.kind == StepKind::AsyncWait) cut[pc] = unheld;
        if (st.kind != StepKind::ConsumeWork || !m.resources[st.resource].pipeline.dma_consumer())
          continue;
        int const at = static_cast<int>(pc);
        unheld = unheld || !holds(p, at, st.resource, st.stage, false);
        for_each_operand(p, at, [&](Step const& op) {
          unheld = unheld || !holds(p, at, op.resource, op.stage, false);
        });
      }
      unheld_read_retired_.push_back(cut);
    }
    // The resources whose copies each resource's full barriers count: itself, or a Fork group's
    // members and the group (none for a member, whose copies land on its group's barriers).
    full_members_.assign(static_cast<std::size_t>(R), {});
    for (int r = 0; r < R; ++r)
      full_members_[static_cast<std::size_t>(full_owner(m, r))].push_back(r);
    find_interchangeable_ctas();
    find_step_objects();
  }

  // CTAs per cluster: the widest multicast or release of any pipeline (TaskManager::cluster_size).
  static constexpr int cluster_size(ManagerModel const& m) {
    int n = 1;
    for (auto const& r : m.resources) {
      if (!r.pipeline.enabled()) continue;
      n = std::max({n, r.pipeline.multicast_ctas, r.pipeline.release_ctas()});
    }
    return std::min(n, 16);
  }

  // Every task at its first step, every barrier in phase 0 expecting its full arrival count.
  constexpr std::vector<std::int16_t> initial_state() const {
    std::vector<std::int16_t> init(layout_.size, 0);
    for (int c = 0; c < ctas_; ++c) {
      for (int r = 0; r < res_; ++r) {
        auto const& p = m_.resources[r].pipeline;
        if (!p.enabled()) continue;
        for (int i = 0; i < p.num_stages; ++i) {
          init[slot(c, r, i, detail::FullPending)] = static_cast<std::int16_t>(p.producer.size);
          init[slot(c, r, i, detail::EmptyPending)] = static_cast<std::int16_t>(empty_count(r));
        }
      }
    }
    return init;
  }

  // The seed's round-robin simulation: one interleaving, in rounds; in each round every task in
  // order runs one step if it can, then every TMA copy in flight lands. One row per round (a cell
  // per task: the step it ran, or empty), and a last row naming where each unfinished task is
  // blocked if the rounds stop without every task done.
  constexpr std::vector<std::vector<std::string>> round_robin(int max_rounds = 100000) {
    std::vector<std::vector<std::string>> rows;
    int const T = layout_.tasks;
    S s = initial_state();
    for (int round = 1; round <= max_rounds; ++round) {
      std::vector<std::string> row(T + 1);
      row[0] = to_str(round);
      bool moved = false;
      for (int t = 0; t < T; ++t) {
        if (!enabled(s, t)) continue;
        Step const& st = programs_[t].steps[s[layout_.pc(t)]];
        row[1 + t] =
            (ctas_ > 1 ? "CTA " + to_str(cta_of(t)) + ": " : std::string()) + describe_in(t, st);
        if (!step(s, t, 0))
          row[1 + t] += "  <- " + std::string(info(findings_.back().rule).id);
        else
          moved = true;
      }
      for (int c = 0; c < ctas_; ++c) {
        for (int r = 0; r < res_; ++r) {
          for (int i = 0; i < layout_.stages[r]; ++i) {
            while (s[slot(c, r, i, detail::InFlight)] > 0) {
              --s[slot(c, r, i, detail::InFlight)];
              --s[slot(c, full_owner(m_, r), i, detail::FullTx)];
              maybe_complete(s, c, full_owner(m_, r), i, true);
            }
          }
        }
      }
      if (!moved) {
        bool all_done = true;
        for (int t = 0; t < T; ++t) all_done = all_done && done(s, t);
        if (all_done) break;
        std::vector<std::string> blocked(T + 1);
        blocked[0] = "BLOCKED";
        for (int t = 0; t < T; ++t)
          blocked[1 + t] = done(s, t) ? std::string("(done)")
                                      : describe_in(t, programs_[t].steps[s[layout_.pc(t)]]);
        rows.push_back(blocked);
        break;
      }
      rows.push_back(row);
    }
    return rows;
  }

  constexpr void run() {
    detail::StateTable table(layout_.size);
    std::vector<std::int16_t> const init = initial_state();
    bool inserted = false;
    table.find_or_insert(init, inserted);
    edges_.push_back({});
    long long head = 0;
    std::vector<std::int16_t> s;
    while (head < table.size()) {
      if (table.size() > opt_.max_states) {
        decided_ = false;
        break;
      }
      int const id = static_cast<int>(head++);
      table.get(id, s);
      expand(table, id, s);
      if (static_cast<int>(findings_.size()) >= opt_.max_findings) break;
    }
    states_ = table.size();
    table_ = std::move(table);
  }

  constexpr std::vector<detail::Finding> const& findings() const { return findings_; }
  constexpr long long states() const { return states_; }
  constexpr bool decided() const { return decided_; }
  constexpr std::vector<Program> const& programs() const { return programs_; }

  // The path from the initial state to `state`, as edges, their tasks and CTAs numbered as in the
  // initial state (the states along it may be stored with their CTAs reordered, see canonicalize).
  constexpr std::vector<detail::Edge> path_to(int state) const {
    std::vector<detail::Edge> path;
    for (int s = state; s > 0; s = edges_[s].parent) path.insert(path.begin(), edges_[s]);
    std::vector<int> frame = identity_frame();
    for (detail::Edge& e : path) {
      if (e.task >= 0)
        e.task = frame[cta_of(e.task)] * tasks_ + task_of(e.task);
      else
        e.cta = frame[e.cta];
      frame = reordered(frame, e.order);
    }
    return path;
  }
  // State `id`, its CTAs numbered as on the path that reached it (path_to).
  constexpr std::vector<std::int16_t> state(int id) const {
    std::vector<std::int16_t> const stored = table_.get(id);
    if (!symmetric_) return stored;
    std::vector<int> const frame = frame_of(id);
    std::vector<std::int16_t> s = stored;
    for (int c = 0; c < ctas_; ++c)
      for (std::size_t k = 0; k < blocks_[c].size(); ++k)
        s[blocks_[frame[c]][k]] = stored[blocks_[c][k]];
    return s;
  }
  constexpr detail::Layout const& layout() const { return layout_; }
  constexpr int ctas() const { return ctas_; }
  constexpr int cta_of(int instance) const { return instance / tasks_; }
  constexpr int task_of(int instance) const { return instance % tasks_; }

 private:
  using S = std::vector<std::int16_t>;

  static constexpr bool is_sync_point(StepKind k) {
    return k == StepKind::Acquire || k == StepKind::Wait || k == StepKind::Tail ||
           k == StepKind::TryAcquire || k == StepKind::TryWait;
  }

  // A transition runs a segment of a task: from a synchronisation point towards the next one,
  // cut so that everything another task could observe in the full interleaving it also observes
  // at a segment boundary (the argument is in docs/verification/README.md §3):
  //  - it ends right after an acquire or wait, so every stage a task holds is held at a boundary,
  //    where every other task's next segment is checked against it;
  //  - a work after a step that may enable another transition (an arrival, a wgmma/bulk wait,
  //    a TMA copy issued) starts a new one: what it enables could run before the work.
  static constexpr bool ends_segment(Step const& st) {
    return st.kind == StepKind::Acquire || st.kind == StepKind::Wait;
  }
  // A segment also ends before an asynchronous wait that may retire a read of a stage its task
  // does not hold (a stage it read without waiting for it: a broken schedule, or a merge member
  // read through another's wait): the read in flight is then seen at a boundary, where the other
  // tasks' writes into the stage are checked against it. Held stages need no cut: the hold, which
  // starts at a boundary, covers the read (README §3, point 1).
  constexpr bool ends_segment_before(int t, int pc) const {
    return unheld_read_retired_[static_cast<std::size_t>(t)][static_cast<std::size_t>(pc)];
  }
  static constexpr bool may_enable_others(Step const& st) {
    return st.kind == StepKind::Commit || st.kind == StepKind::Release ||
           st.kind == StepKind::AsyncWait || (st.kind == StepKind::ProduceWork && st.tx_units > 0);
  }
  static constexpr bool is_work(StepKind k) {
    return k == StepKind::ProduceWork || k == StepKind::ConsumeWork;
  }

  constexpr int slot(int cta, int r, int stage, int field) const {
    return layout_.slot(cta * res_ + r, stage, field);
  }
  // Arrivals that complete an empty barrier's phase: the consumers of every CTA releasing into it.
  constexpr int empty_count(int r) const {
    auto const& p = m_.resources[r].pipeline;
    return p.consumer.size * std::min(p.release_ctas(), ctas_);
  }
  // The CTAs of `cta`'s group of `n` (a block of n consecutive ranks), as [first, last).
  constexpr std::pair<int, int> group_of(int cta, int n) const {
    n = std::max(1, std::min(n, ctas_));
    int const first = cta - cta % n;
    return {first, std::min(first + n, ctas_)};
  }
  constexpr std::pair<int, int> copy_group(int cta, int r) const {
    return group_of(cta, m_.resources[r].pipeline.multicast_ctas);
  }
  constexpr std::pair<int, int> release_group(int cta, int r) const {
    return group_of(cta, m_.resources[r].pipeline.release_ctas());
  }
  static constexpr std::uint64_t resource_bit(int r) {
    return r >= 0 && r < 64 ? std::uint64_t{1} << r : (r >= 64 ? ~std::uint64_t{0} : 0);
  }
  constexpr bool visible(int r) const {
    return r >= 0 && r < res_ && cluster_visible_[static_cast<std::size_t>(r)];
  }

  constexpr bool done(S const& s, int t) const {
    return s[layout_.pc(t)] >= static_cast<int>(programs_[t].steps.size());
  }

  constexpr bool has_rule(Rule r) const {
    for (auto const& f : findings_)
      if (f.rule == r) return true;
    return false;
  }

  // Records a finding (first of its rule only) with a lazily built sentence.
  template <class What>
  constexpr void report(Rule rule, int task, int resource, int node, int state, What&& what,
                        int cta = -1) {
    if (has_rule(rule)) return;
    if (cta < 0 && task >= 0 && ctas_ > 1) cta = cta_of(task);
    bool const in_segment = task >= 0 && segment_task_ == task;
    // The finding speaks of CTAs as numbered on the path to `state` (its timeline's numbering).
    if (symmetric_) labels_ = frame_of(state);
    if (task >= 0) task = label(cta_of(task)) * tasks_ + task_of(task);
    detail::Finding f{rule, task, resource, node, state, -1, -1, {}, ctas_ > 1 ? label(cta) : -1};
    if (in_segment) {
      f.pc_begin = segment_begin_;
      f.pc_end = segment_pc_;
    }
    if (!std::is_constant_evaluated()) f.what = what();
    labels_.clear();
    findings_.push_back(std::move(f));
  }
  // CTA c of the stored state being reported, as the finding numbers it.
  constexpr int label(int c) const {
    return c >= 0 && c < static_cast<int>(labels_.size()) ? labels_[c] : c;
  }

  constexpr bool enabled(S const& s, int t) const {
    if (done(s, t)) return false;
    Step const& st = programs_[t].steps[s[layout_.pc(t)]];
    int const c = cta_of(t);
    switch (st.kind) {
      case StepKind::Acquire:
        return try_flag(s, t, st.resource, true) ||
               s[slot(c, empty_owner(m_, st.resource), st.stage, detail::EmptyParity)] != st.parity;
      case StepKind::Tail:
        return s[slot(c, empty_owner(m_, st.resource), st.stage, detail::EmptyParity)] != st.parity;
      case StepKind::Wait:
        return try_flag(s, t, st.resource, false) ||
               s[slot(c, full_owner(m_, st.resource), st.stage, detail::FullParity)] != st.parity;
      default:
        return true;
    }
  }

  constexpr bool try_flag(S const& s, int t, int r, bool producer) const {
    int const bit = 2 * r + (producer ? 0 : 1);
    return bit < 15 && ((s[layout_.flags(t)] >> bit) & 1);
  }
  constexpr void set_try_flag(S& s, int t, int r, bool producer, bool v) const {
    int const bit = 2 * r + (producer ? 0 : 1);
    if (bit >= 15) return;
    if (v)
      s[layout_.flags(t)] = static_cast<std::int16_t>(s[layout_.flags(t)] | (1 << bit));
    else
      s[layout_.flags(t)] = static_cast<std::int16_t>(s[layout_.flags(t)] & ~(1 << bit));
  }

  // Completes the barrier's phase when nothing more is expected of it.
  constexpr void maybe_complete(S& s, int c, int r, int stage, bool full) const {
    auto const& p = m_.resources[r].pipeline;
    int const pending = slot(c, r, stage, full ? detail::FullPending : detail::EmptyPending);
    int const parity = slot(c, r, stage, full ? detail::FullParity : detail::EmptyParity);
    if (s[pending] == 0 && (!full || s[slot(c, r, stage, detail::FullTx)] == 0)) {
      s[parity] = static_cast<std::int16_t>(s[parity] ^ 1);
      s[pending] = static_cast<std::int16_t>(full ? p.producer.size : empty_count(r));
    }
  }

  // " of CTA 1": where a barrier or stage is, in a cluster.
  constexpr std::string in_cta(int c) const {
    std::string s;
    if (ctas_ > 1) {
      s = " of CTA ";
      s += to_str(label(c));
    }
    return s;
  }

  constexpr bool arrive(S& s, int c, int r, int stage, bool full, int n, int task, int node,
                        int id) {
    int const pending = slot(c, r, stage, full ? detail::FullPending : detail::EmptyPending);
    if (n > s[pending]) {
      report(Rule::M6_OverArrival, task, r, node, id, [&] {
        auto const& p = m_.resources[r].pipeline;
        return std::string(full ? "the full" : "the empty") + " barrier of stage " + to_str(stage) +
               in_cta(c) + " expects " + to_str(full ? p.producer.size : empty_count(r)) +
               " arrivals per phase; this op makes " + to_str(n) + " while " + to_str(s[pending]) +
               " are outstanding: the extra arrivals would complete a phase early (the cooperative "
               "group size is too small, or an op arrives twice, e.g. a second acquire() or "
               "commit() of the same stage)";
      });
      return false;
    }
    s[pending] = static_cast<std::int16_t>(s[pending] - n);
    maybe_complete(s, c, r, stage, full);
    return true;
  }

  // Task other than `self` owning (r, stage) on the given side at its current pc, or -1. A TMA
  // producer's writes are the copies in flight (tracked per stage), not its acquire..commit span:
  // its commit is a no-op and a consumer may pass its wait as soon as the copy lands.
  constexpr int owner(S const& s, int self, int c, int r, int stage, bool producer) const {
    if (producer && m_.resources[r].pipeline.tma_producer()) return -1;
    for (int t = c * tasks_; t < (c + 1) * tasks_; ++t) {
      if (t == self) continue;
      if (holds(programs_[t], s[layout_.pc(t)], r, stage, producer)) return t;
    }
    return -1;
  }

  // "; task `load` repeats the TMA call `put` ...": why a copy may land outside its phase, when a
  // producer of r issues a call that repeats one of its bracket (program.hpp, same_call).
  constexpr std::string repeated_copy_hint(int r) const {
    for (int t = 0; t < tasks_; ++t)
      for (Step const& st : programs_[t].steps)
        if (st.kind == StepKind::ProduceWork && st.resource == r && st.tx_units > 1)
          return "; task `" + task_name(t) + "` repeats the TMA call `" +
                 std::string(op_name(m_.tasks[t].schedule.nodes[st.node])) +
                 "` in one acquire..commit bracket (the same work, iteration and arguments): a "
                 "second copy of the same bytes, which the barrier was not armed for";
    return {};
  }

  constexpr std::string task_name(int t) const {
    return t < 0 ? std::string("?") : std::string(m_.tasks[task_of(t)].spec.name);
  }
  // "task `mma`", and in a cluster "task `mma` of CTA 1".
  constexpr std::string who(int t) const {
    return "task `" + task_name(t) + "`" + (t >= 0 ? in_cta(cta_of(t)) : std::string());
  }

  constexpr void push(detail::StateTable& table, S& next, detail::Edge e) {
    e.order = canonicalize(next);
    bool inserted = false;
    int const id = table.find_or_insert(next, inserted);
    if (inserted) {
      edges_.push_back(e);
      (void)id;
    }
  }

  constexpr void expand(detail::StateTable& table, int id, S const& s) {
    int const T = layout_.tasks;
    // Partial-order reduction: a local step commutes with everything; run it alone.
    for (int t = 0; opt_.reduce && t < T; ++t) {
      if (done(s, t)) continue;
      Step const& st = programs_[t].steps[s[layout_.pc(t)]];
      bool const local = st.kind == StepKind::AsyncOperand ||
                         (st.kind == StepKind::Local && !aliased_local(t, st));
      if (local) {
        S& next = scratch_ = s;
        ++next[layout_.pc(t)];
        push(table, next, {id, t, s[layout_.pc(t)]});
        return;
      }
    }
    if (opt_.reduce) {
      for (int c = 0; c < ctas_; ++c) {
        for (int r = 0; r < res_; ++r) {
          for (int i = 0; i < layout_.stages[r]; ++i) {
            if (!silent_landing(s, c, r, i)) continue;
            S& next = scratch_ = s;
            land(next, c, r, i);
            push(table, next, {id, -1, 0, r, i, -1, c});
            return;
          }
        }
      }
    }
    bool any = false;
    // A persistent set: the first grown from one transition (`grown`); else (`only`, -1: every
    // CTA's transitions) one CTA's CTA-local transitions, or all of one CTA's transitions while its
    // peers cannot reach anything they depend on (`whole`).
    std::vector<bool> task_in_set, landing_in_set;
    bool const grown = first_grown_set(s, task_in_set, landing_in_set);
    int only = grown ? -1 : persistent_cta(s);
    bool const whole = !grown && only < 0 && (only = ahead_cta(s)) >= 0;
    for (int t = 0; t < T; ++t) {
      if (!enabled(s, t) ||
          (only >= 0 && (cta_of(t) != only || (!whole && !local_segment(s, t)))) ||
          (grown && !task_in_set[static_cast<std::size_t>(t)]))
        continue;
      any = true;
      S& next = scratch_ = s;
      // A transition is a segment of the task (see ends_segment); unreduced, one step.
      int const begin = s[layout_.pc(t)];
      segment_task_ = t;
      segment_begin_ = begin;
      Step const& first = programs_[t].steps[begin];
      bool ok = step(next, t, id);
      bool enabled_others = may_enable_others(first);
      while (ok && opt_.reduce && !ends_segment(first) && !done(next, t)) {
        Step const& st = programs_[t].steps[next[layout_.pc(t)]];
        if (is_sync_point(st.kind) || ends_segment_before(t, next[layout_.pc(t)]) ||
            (enabled_others && (is_work(st.kind) || aliased_local(t, st))))
          break;
        enabled_others = enabled_others || may_enable_others(st);
        ok = step(next, t, id);
      }
      if (ok) push(table, next, {id, t, begin, -1, 0, next[layout_.pc(t)]});
    }
    segment_task_ = -1;
    // TMA copies in flight land at any time.
    for (int c = 0; c < ctas_; ++c) {
      if (only >= 0 && c != only) continue;
      for (int r = 0; r < res_; ++r) {
        if (only >= 0 && !whole && visible(r)) continue;
        for (int i = 0; i < layout_.stages[r]; ++i) {
          if (s[slot(c, r, i, detail::InFlight)] <= 0 ||
              (grown && !landing_in_set[stage_index(c, r, i)]))
            continue;
          any = true;
          S& next = scratch_ = s;
          land(next, c, r, i);
          push(table, next, {id, -1, 0, r, i, -1, c});
        }
      }
    }
    bool all_done = true;
    for (int t = 0; t < T; ++t) all_done = all_done && done(s, t);
    if (all_done) {
      check_exit(s, id);
      return;
    }
    if (!any) {
      int blocked = -1;
      for (int t = 0; t < T && blocked < 0; ++t)
        if (!done(s, t)) blocked = t;
      Step const& st = programs_[blocked].steps[s[layout_.pc(blocked)]];
      report(Rule::M1_Deadlock, blocked, st.resource, st.node, id, [&] {
        std::string text = "no task can proceed:";
        for (int t = 0; t < T; ++t) {
          if (done(s, t)) continue;
          Step const& b = programs_[t].steps[s[layout_.pc(t)]];
          // (Appended piece by piece: GCC 12 misreads a chain of + here as an overlapping copy.)
          text += ' ';
          text += who(t);
          text += " waits in ";
          text += describe_in(t, b);
          text += ';';
        }
        for (int t = 0; ctas_ > 1 && t < T; ++t) {
          if (!done(s, t)) continue;
          text += ' ';
          text += who(t);
          text += " has ended;";
        }
        text.pop_back();
        return text;
      });
    }
  }

  // A TMA copy into stage i of r in CTA c lands: its transactions complete on the full barrier.
  constexpr void land(S& s, int c, int r, int i) const {
    --s[slot(c, r, i, detail::InFlight)];
    --s[slot(c, full_owner(m_, r), i, detail::FullTx)];
    maybe_complete(s, c, full_owner(m_, r), i, true);
  }

  // Whether a copy landing in stage i of r in CTA c is silent: not the last copy in flight into
  // the stage, on a full barrier that only r's copies complete and that still expects more
  // transactions than this copy brings. Until another copy into the stage lands, every other
  // transition sees the same as without it — tests of copies in flight ask "any?" (one remains),
  // and the barrier, armed only upwards meanwhile, cannot complete with one transaction or more
  // outstanding — so it commutes with all of them and runs alone (README §7).
  constexpr bool silent_landing(S const& s, int c, int r, int i) const {
    // r's copies alone complete its full barriers (not a fork's member, nor a fork with members).
    return full_members_[static_cast<std::size_t>(r)].size() == 1 &&
           s[slot(c, r, i, detail::InFlight)] >= 2 && s[slot(c, r, i, detail::FullTx)] >= 2;
  }

  // One past the last step of the segment task t runs from `begin` (as expand runs it, the
  // violations aside): a function of the program only.
  constexpr int segment_end(int t, int begin) const {
    Program const& p = programs_[t];
    int const n = static_cast<int>(p.steps.size());
    Step const& first = p.steps[begin];
    int pc = begin + 1;
    bool enabled_others = may_enable_others(first);
    if (!opt_.reduce || ends_segment(first)) return pc;
    while (pc < n) {
      Step const& st = p.steps[pc];
      if (is_sync_point(st.kind) || ends_segment_before(t, pc) ||
          (enabled_others && (is_work(st.kind) || aliased_local(t, st))))
        break;
      enabled_others = enabled_others || may_enable_others(st);
      ++pc;
    }
    return pc;
  }

  // Whether step `st` touches what another CTA of the cluster sees: a multicast resource's barriers
  // or stages (or bytes they share), or the retirement of reads of such stages.
  constexpr bool cluster_step(Step const& st) const {
    if (st.kind != StepKind::AsyncWait) return visible(st.resource);
    for (int r = 0; r < res_; ++r)
      if (visible(r) && static_cast<int>(m_.resources[r].pipeline.async_reader()) == st.unit)
        return true;
    return false;
  }

  // Whether task t's next segment from `s` touches only resources of its own CTA.
  constexpr bool local_segment(S const& s, int t) const {
    int const begin = s[layout_.pc(t)];
    int const end = segment_end(t, begin);
    for (int pc = begin; pc < end; ++pc)
      if (cluster_step(programs_[t].steps[pc])) return false;
    return true;
  }

  // The CTA c whose CTA-local transitions alone are explored from `s` (a persistent set), or -1
  // for every transition. The set: c's enabled tasks whose next segment touches only c's own
  // resources, and the copies in flight into c's own (not multicast) stages. It qualifies when it
  // holds a task's step and every other unfinished task of c never again touches a resource the set
  // touches (nor bytes they share). Then no sequence of transitions outside the set — other CTAs',
  // which touch none of c's own resources, and those other tasks of c — contains one that depends
  // on a transition in it, so the set may run first (Godefroid's persistent sets; the state graph
  // is acyclic, so no cycle proviso is needed). README §7 has the argument.
  constexpr int persistent_cta(S const& s) const {
    if (ctas_ == 1 || !opt_.reduce) return -1;
    for (int c = 0; c < ctas_; ++c) {
      std::uint64_t touched = 0;
      int task_moves = 0;
      std::vector<bool> in_set(static_cast<std::size_t>(tasks_), false);
      for (int t = c * tasks_; t < (c + 1) * tasks_; ++t) {
        if (!enabled(s, t) || !local_segment(s, t)) continue;
        int const begin = s[layout_.pc(t)];
        int const end = segment_end(t, begin);
        for (int pc = begin; pc < end; ++pc)
          touched |= resource_bit(programs_[t].steps[pc].resource);
        in_set[static_cast<std::size_t>(task_of(t))] = true;
        ++task_moves;
      }
      // At least one task step: the end-of-run check (R-M2: no copy in flight when every task
      // has ended) reads every copy, so a set of landings alone is persistent only if no run
      // ends without it. Such a set passes the test below only when no task of c touches the
      // landings' stages again — an orphaned copy, exactly the R-M2 bug it would hide.
      if (task_moves == 0) continue;
      for (int r = 0; r < res_; ++r) {
        if (visible(r)) continue;
        for (int i = 0; i < layout_.stages[r]; ++i)
          if (s[slot(c, r, i, detail::InFlight)] > 0) touched |= resource_bit(r);
      }
      for (int r = 0; r < res_; ++r)  // bytes shared with a touched buffer are touched
        for (int r2 = 0; r2 < res_; ++r2)
          if ((touched & resource_bit(r2)) && aliased_[static_cast<std::size_t>(r * res_ + r2)])
            touched |= resource_bit(r);
      bool independent = true;
      for (int t = c * tasks_; independent && t < (c + 1) * tasks_; ++t) {
        if (done(s, t) || in_set[static_cast<std::size_t>(task_of(t))]) continue;
        independent = (touches_from_[t][s[layout_.pc(t)]] & touched) == 0;
      }
      if (independent) return c;
    }
    return -1;
  }

  // ---- Symmetry reduction (README §7) ----------------------------------------------------------
  // CTAs that run the same programs (the same trip counts) are interchangeable when every
  // multicast and release group is one CTA or the whole cluster: renumbering the CTAs then maps
  // each group onto a group, every run onto a run and every finding onto one of the same rule. So
  // states are stored with the blocks of interchangeable CTAs sorted (canonicalize), and a state
  // and its renumberings are explored once.
  constexpr void find_interchangeable_ctas() {
    if (ctas_ == 1 || !opt_.reduce) return;
    for (auto const& r : m_.resources) {
      auto const& p = r.pipeline;
      if (!p.enabled()) continue;
      for (int n : {p.multicast_ctas, p.release_ctas()})
        if (std::min(n, ctas_) != 1 && std::min(n, ctas_) != ctas_) return;
    }
    for (int c = 0; c < ctas_; ++c) {
      int cls = c;
      for (int d = 0; d < c && cls == c; ++d)
        if (sc_.for_cta(d).runtime_trips == sc_.for_cta(c).runtime_trips) cls = d;
      cta_class_.push_back(cls);
      symmetric_ = symmetric_ || cls != c;
    }
    // A CTA's block: its tasks' program counters, try_ flags and reads in flight, and its copy of
    // every pipeline's barriers and stages; the same fields in the same order for every CTA.
    for (int c = 0; c < ctas_; ++c) {
      std::vector<int> block;
      for (int t = c * tasks_; t < (c + 1) * tasks_; ++t) {
        block.push_back(layout_.pc(t));
        block.push_back(layout_.flags(t));
        for (int i = 0; has_async_reads_ && i < kMaxAsyncReads; ++i)
          block.push_back(async_slot(t, i));
      }
      for (int r = 0; r < res_; ++r)
        for (int i = 0; i < layout_.stages[r] * detail::Layout::kPerStage; ++i)
          block.push_back(layout_.slot(c * res_ + r, 0, i));
      blocks_.push_back(block);
    }
  }

  constexpr bool block_less(S const& s, int a, int b) const {
    for (std::size_t k = 0; k < blocks_[a].size(); ++k)
      if (s[blocks_[a][k]] != s[blocks_[b][k]]) return s[blocks_[a][k]] < s[blocks_[b][k]];
    return false;
  }
  constexpr void swap_blocks(S& s, int a, int b) const {
    for (std::size_t k = 0; k < blocks_[a].size(); ++k)
      std::swap(s[blocks_[a][k]], s[blocks_[b][k]]);
  }
  static constexpr int nibble(std::uint64_t order, int i) {
    return static_cast<int>((order >> (4 * i)) & 15);
  }

  // Sorts the blocks of each class of interchangeable CTAs (insertion sort, stable on equal
  // blocks); returns the order it gave them as Edge::order, 0 when none moved.
  constexpr std::uint64_t canonicalize(S& s) const {
    if (!symmetric_) return 0;
    std::uint64_t order = 0;
    for (int c = 0; c < ctas_; ++c) order |= static_cast<std::uint64_t>(c) << (4 * c);
    bool moved = false;
    for (int c = 1; c < ctas_; ++c) {
      int at = c;
      for (int d = c - 1; d >= 0; --d) {
        if (cta_class_[d] != cta_class_[c]) continue;
        if (!block_less(s, at, d)) break;
        swap_blocks(s, at, d);
        std::uint64_t const x = static_cast<std::uint64_t>(nibble(order, at) ^ nibble(order, d));
        order ^= (x << (4 * at)) | (x << (4 * d));
        at = d;
        moved = true;
      }
    }
    return moved ? order : 0;
  }

  constexpr std::vector<int> identity_frame() const {
    std::vector<int> frame(static_cast<std::size_t>(ctas_));
    for (int c = 0; c < ctas_; ++c) frame[c] = c;
    return frame;
  }
  // `frame` (stored CTA -> CTA of the initial numbering) after a step that stored its state in
  // `order`.
  static constexpr std::vector<int> reordered(std::vector<int> const& frame, std::uint64_t order) {
    if (order == 0) return frame;
    std::vector<int> next(frame.size());
    for (std::size_t c = 0; c < frame.size(); ++c)
      next[c] = frame[nibble(order, static_cast<int>(c))];
    return next;
  }
  // For each CTA block of stored state `state`: the CTA it is on the path that reached it.
  constexpr std::vector<int> frame_of(int state) const {
    std::vector<std::uint64_t> orders;
    for (int s = state; s > 0; s = edges_[s].parent) orders.push_back(edges_[s].order);
    std::vector<int> frame = identity_frame();
    for (auto it = orders.rbegin(); it != orders.rend(); ++it) frame = reordered(frame, *it);
    return frame;
  }

  // ---- Persistent sets of a whole CTA (README §7) -----------------------------------------------
  // The state a transition reads or writes, per CTA, resource and stage: the empty barrier, the
  // full barrier, which tasks hold the stage to read it or read it asynchronously (readers),
  // which hold it to write it (writers), and the copies in flight into it.
  enum Object : int { kEmpty = 0, kFull, kReaders, kWriters, kCopies, kObjects };
  struct Touch {
    std::vector<int> reads, writes;
  };
  constexpr int object(int c, int r, int i, int kind) const {
    return ((c * res_ + r) * max_stages_ + i) * kObjects + kind;
  }
  static constexpr bool blocks(StepKind k) {
    return k == StepKind::Acquire || k == StepKind::Wait || k == StepKind::Tail;
  }

  // What each step of each task touches (touches_), for the sets built from it (a CTA ahead, sets
  // grown from one transition). A pipeline group's ops touch the shared side's barriers (the
  // group's: empty_owner, full_owner) and change what a task holds of every member (the holds
  // compared below, over every resource); a step that checks a stage against the buffers sharing
  // its bytes (aliased_use) reads those stages too (alias_reads).
  constexpr void find_step_objects() {
    for (int r = 0; r < res_; ++r) max_stages_ = std::max(max_stages_, layout_.stages[r]);
    // In the compile-time gate too: with them it decides the ping-pong GEMM and attention
    // schedules its budget left undecided, and a schedule unit compiles faster or about as fast
    // (docs/verification/README.md §7, "In the compile-time gate").
    whole_cta_sets_ = opt_.reduce && opt_.grown_sets;
    // A member whose stage count is not its group's (R-C2 refuses it where the group is declared;
    // a model built by hand can hold one) has stages without a shared barrier: no sets there.
    for (int r = 0; r < res_; ++r)
      if (m_.resources[r].group >= 0 && layout_.stages[r] != layout_.stages[m_.resources[r].group])
        whole_cta_sets_ = false;
    if (!whole_cta_sets_) return;
    // Arrivals on an empty barrier commute when every arrival is n and the count a multiple of n:
    // the count never falls below n, so no order over-arrives, and the phase completes at the same
    // arrival whatever the order.
    uniform_empty_.assign(static_cast<std::size_t>(res_), true);
    std::vector<int> n(static_cast<std::size_t>(res_), 0);
    for (Program const& p : programs_) {
      for (Step const& st : p.steps) {
        if (st.kind != StepKind::Release) continue;
        int const e = empty_owner(m_, st.resource);
        if (n[e] == 0) n[e] = st.arrivals;
        if (n[e] != st.arrivals || st.arrivals <= 0) uniform_empty_[e] = false;
      }
    }
    for (int r = 0; r < res_; ++r)
      if (n[r] > 0 && empty_count(r) % n[r] != 0) uniform_empty_[r] = false;
    for (int t = 0; t < layout_.tasks; ++t) {
      std::vector<Touch> steps;
      for (int pc = 0; pc < static_cast<int>(programs_[t].steps.size()); ++pc)
        steps.push_back(step_touch(t, pc));
      touches_.push_back(steps);
    }
  }

  constexpr Touch step_touch(int t, int pc) const {
    Program const& p = programs_[t];
    Step const& st = p.steps[pc];
    int const c = cta_of(t), r = st.resource, i = st.stage;
    Touch o;
    // A change of what the task holds, which the others' race checks read (a TMA producer's
    // writes are its copies in flight, not its acquire..commit span: see owner).
    for (int side = 0; side < 2; ++side)
      for (int x = 0; x < res_; ++x)
        for (int j = 0; j < layout_.stages[x]; ++j)
          if ((side == 1 || !m_.resources[x].pipeline.tma_producer()) &&
              holds(p, pc, x, j, side == 0) != holds(p, pc + 1, x, j, side == 0))
            o.writes.push_back(object(c, x, j, side == 0 ? kWriters : kReaders));
    switch (st.kind) {
      case StepKind::Acquire:  // waits on E; checks the readers; arms and arrives on F
        o.reads = {object(c, empty_owner(m_, r), i, kEmpty), object(c, r, i, kReaders)};
        o.writes.push_back(object(c, full_owner(m_, r), i, kFull));
        break;
      case StepKind::TryAcquire:
      case StepKind::Tail:
        o.reads = {object(c, empty_owner(m_, r), i, kEmpty)};
        break;
      case StepKind::Commit:
        o.writes.push_back(object(c, full_owner(m_, r), i, kFull));
        break;
      case StepKind::Wait:  // waits on F; checks the writers and the copies in flight
        o.reads = {object(c, full_owner(m_, r), i, kFull), object(c, r, i, kWriters),
                   object(c, r, i, kCopies)};
        break;
      case StepKind::TryWait:
        o.reads = {object(c, full_owner(m_, r), i, kFull)};
        break;
      case StepKind::Release: {  // arrives on E in every CTA of its group
        std::pair<int, int> const g = release_group(c, r);
        for (int d = g.first; d < g.second; ++d)
          o.writes.push_back(object(d, empty_owner(m_, r), i, kEmpty));
        break;
      }
      case StepKind::ProduceWork: {  // checks the readers of the stage, in every CTA it copies to
        std::pair<int, int> const g =
            st.tx_units > 0 ? copy_group(c, r) : std::pair<int, int>{c, c + 1};
        for (int d = g.first; d < g.second; ++d) {
          o.reads.push_back(object(d, r, i, kReaders));
          if (st.tx_units > 0) o.writes.push_back(object(d, r, i, kCopies));
        }
        break;
      }
      case StepKind::ConsumeWork: {  // checks writers, copies and readers; starts its reads
        o.reads = {object(c, r, i, kWriters), object(c, r, i, kCopies), object(c, r, i, kReaders)};
        o.writes.push_back(object(c, r, i, kReaders));
        for_each_operand(p, pc, [&](Step const& op) {
          o.writes.push_back(object(c, op.resource, op.stage, kReaders));
        });
        break;
      }
      default:  // an asynchronous wait: the reads it retires (retired_reads); local steps: none
        break;
    }
    // The checks against buffers sharing bytes with the stage (aliased_use, as step() calls it).
    TaskModel const& task = m_.tasks[task_of(t)];
    if (aliased_local(t, st)) {
      alias_reads(o, c, r, 0, !is_producer_side(task.schedule.nodes[st.node].role));
    } else if (st.kind == StepKind::ProduceWork) {
      std::pair<int, int> const g =
          st.tx_units > 0 ? copy_group(c, r) : std::pair<int, int>{c, c + 1};
      for (int d = g.first; d < g.second; ++d) alias_reads(o, d, r, i, false);
    } else if (st.kind == StepKind::ConsumeWork) {
      alias_reads(o, c, r, i, task.schedule.nodes[st.node].role != Role::ConsumerInPlace);
    }
    return o;
  }

  // Adds to o's reads what aliased_use(.., c, r, stage, writes_only) reads: of every stage sharing
  // bytes with it, the copies in flight and the writers, and unless writes_only the readers
  // (asynchronous reads in flight among them).
  constexpr void alias_reads(Touch& o, int c, int r, int stage, bool writes_only) const {
    if (!aliased_any_[static_cast<std::size_t>(r)]) return;
    for (int r2 = 0; r2 < res_; ++r2) {
      if (!aliased_[static_cast<std::size_t>(r * res_ + r2)]) continue;
      for (int j = 0; j < layout_.stages[r2]; ++j) {
        if (!stages_overlap(r, stage, r2, j)) continue;
        o.reads.push_back(object(c, r2, j, kCopies));
        o.reads.push_back(object(c, r2, j, kWriters));
        if (!writes_only) o.reads.push_back(object(c, r2, j, kReaders));
      }
    }
  }

  // Whether `o` depends on what T touches (tr: reads, tw: writes): a write against anything of
  // T's, a read against T's writes; except writes that commute — copies in flight counted up and
  // down, and arrivals on an empty barrier whose arrivals commute (find_step_objects).
  constexpr bool depends(Touch const& o, std::vector<bool> const& tr,
                         std::vector<bool> const& tw) const {
    for (int x : o.writes) {
      int const kind = x % kObjects;
      bool const commuting =
          kind == kCopies ||
          (kind == kEmpty &&
           uniform_empty_[static_cast<std::size_t>(x / kObjects / max_stages_ % res_)]);
      if (tw[x] ? !commuting : tr[x]) return true;
    }
    for (int x : o.reads)
      if (tw[x]) return true;
    return false;
  }

  // The reads in flight an asynchronous wait of task t at `pc` may retire: t's reads in flight in
  // `s`, and those its consumer works in [from, pc) start.
  constexpr Touch retired_reads(S const& s, int t, int from, int pc) const {
    Touch o;
    for (int k = 0; has_async_reads_ && k < kMaxAsyncReads; ++k) {
      std::int16_t const code = s[async_slot(t, k)];
      if (code == 0) continue;
      int const rs = (code - 1) % 4096;
      o.writes.push_back(object(cta_of(t), rs / 64, rs % 64, kReaders));
    }
    for (int q = from; q < pc; ++q)
      if (programs_[t].steps[q].kind == StepKind::ConsumeWork)
        for (int x : touches_[t][q].writes) o.writes.push_back(x);
    return o;
  }

  // What step pc of task t (its segment from `from` on) touches, handed to `use`: an async_wait's
  // is computed (the reads it retires), every other step's kept (touches_). Not one reference to
  // `wait ? retired_reads(...) : touches_[t][pc]`: that conditional is a prvalue, which copied the
  // kept Touch at every step, and g++ 12's constant evaluation took its lifetime-extended
  // temporary for freed storage ("use of allocated storage after deallocation").
  template <class Use>
  constexpr decltype(auto) with_step_touch(S const& s, int t, int from, int pc, Use&& use) const {
    if (programs_[t].steps[pc].kind == StepKind::AsyncWait)
      return use(retired_reads(s, t, from, pc));
    return use(touches_[t][pc]);
  }

  // What task t touches running its steps [from, to) from `s`, into (tr, tw).
  constexpr void mark(S const& s, int t, int from, int to, std::vector<bool>& tr,
                      std::vector<bool>& tw) const {
    for (int pc = from; pc < to; ++pc) {
      with_step_touch(s, t, from, pc, [&](Touch const& o) {
        for (int x : o.reads) tr[x] = true;
        for (int x : o.writes) tw[x] = true;
      });
    }
  }

  // The CTA c all of whose enabled transitions — its tasks' segments (one at least) and the
  // copies landing in its stages — form a persistent set in `s`, or -1. Every other transition
  // that can run before them is a step of another task (a peer's, or one of c's blocked ones) or
  // a landing elsewhere; ahead_steps bounds the steps each such task can reach without c, and
  // none of them, nor any landing, may touch what the set depends on. README §7 has the argument.
  constexpr int ahead_cta(S const& s) const {
    if (!whole_cta_sets_ || ctas_ == 1) return -1;  // one CTA's whole set is every transition
    for (int c = 0; c < ctas_; ++c)
      if (whole_cta_persistent(s, c)) return c;
    return -1;
  }

  constexpr bool whole_cta_persistent(S const& s, int c) const {
    int const T = layout_.tasks;
    int const objects = ctas_ * res_ * max_stages_ * kObjects;
    std::vector<bool> tr(static_cast<std::size_t>(objects), false);
    std::vector<bool> tw(static_cast<std::size_t>(objects), false);
    std::vector<bool> in_set(static_cast<std::size_t>(T), false);
    bool any = false;
    for (int t = c * tasks_; t < (c + 1) * tasks_; ++t) {
      if (!enabled(s, t)) continue;
      in_set[static_cast<std::size_t>(t)] = true;
      any = true;
      int const begin = s[layout_.pc(t)];
      mark(s, t, begin, segment_end(t, begin), tr, tw);
    }
    std::vector<bool> landing_in_set(static_cast<std::size_t>(ctas_ * res_ * max_stages_), false);
    for (int r = 0; r < res_; ++r) {
      for (int i = 0; i < layout_.stages[r]; ++i) {
        if (s[slot(c, r, i, detail::InFlight)] <= 0) continue;
        any = true;
        landing_in_set[stage_index(c, r, i)] = true;
        for (int x : landing_touch(c, r, i).writes) tw[x] = true;
      }
    }
    if (!any) return false;
    std::vector<int> const end = ahead_steps(s, in_set, landing_in_set);
    if (!every_exit_passes(in_set, end)) return false;
    return first_dependent_task(s, in_set, end, tr, tw) < 0 &&
           first_dependent_landing(s, in_set, landing_in_set, end, tr, tw).first < 0;
  }

  // The index of stage i of r in CTA d in per-stage vectors (landings, barrier bounds).
  constexpr std::size_t stage_index(int d, int r, int i) const {
    return static_cast<std::size_t>((d * res_ + r) * max_stages_ + i);
  }

  // What a copy landing in stage i of r in CTA d writes: the stage's copies in flight and its
  // full barrier (the owner's, where rings share one).
  constexpr Touch landing_touch(int d, int r, int i) const {
    return {{}, {object(d, r, i, kCopies), object(d, full_owner(m_, r), i, kFull)}};
  }

  // The proviso of a persistent set (in_set: its tasks; end: how far each task outside it can run
  // before it moves, from ahead_steps): every run to an exit passes through it. It does when it
  // holds a task's step (that task has to run) or when some task cannot finish before it moves. A
  // set of copy landings that no task waits for does not: exploring it first would hide the copy
  // orphaned at the end (R-M2), which the end of a run reads though no step touches it.
  constexpr bool every_exit_passes(std::vector<bool> const& in_set,
                                   std::vector<int> const& end) const {
    for (int t = 0; t < layout_.tasks; ++t)
      if (in_set[static_cast<std::size_t>(t)] ||
          end[t] < static_cast<int>(programs_[t].steps.size()))
        return true;
    return false;
  }

  // The first task outside the set (in_set) one of whose steps it can run before the set
  // (up to end[u], from ahead_steps) depends on what the set touches (tr, tw), or -1.
  constexpr int first_dependent_task(S const& s, std::vector<bool> const& in_set,
                                     std::vector<int> const& end, std::vector<bool> const& tr,
                                     std::vector<bool> const& tw) const {
    for (int u = 0; u < layout_.tasks; ++u) {
      if (in_set[static_cast<std::size_t>(u)]) continue;
      int const from = s[layout_.pc(u)];
      for (int pc = from; pc < end[u]; ++pc) {
        if (with_step_touch(s, u, from, pc, [&](Touch const& o) { return depends(o, tr, tw); }))
          return u;
      }
    }
    return -1;
  }

  // The first copy landing outside the set that depends on it — one in flight, or one that a put
  // outside the set starts — as its stage index and the task whose put starts it (-1: one in
  // flight now); stage -1 if none.
  // A stage whose landing is in the set has none outside it: any copy landing there, also one a
  // put outside the set issues later, is that transition.
  constexpr std::pair<int, int> first_dependent_landing(S const& s, std::vector<bool> const& in_set,
                                                        std::vector<bool> const& landing_in_set,
                                                        std::vector<int> const& end,
                                                        std::vector<bool> const& tr,
                                                        std::vector<bool> const& tw) const {
    // Per stage: the first task outside the set whose put lands there (-1: none).
    std::vector<int> putter(static_cast<std::size_t>(ctas_ * res_ * max_stages_), -1);
    for (int u = 0; u < layout_.tasks; ++u) {
      if (in_set[static_cast<std::size_t>(u)]) continue;
      for (int pc = s[layout_.pc(u)]; pc < end[u]; ++pc) {
        Step const& st = programs_[u].steps[pc];
        if (st.kind != StepKind::ProduceWork || st.tx_units == 0) continue;
        std::pair<int, int> const g = copy_group(cta_of(u), st.resource);
        for (int d = g.first; d < g.second; ++d) {
          int& who = putter[stage_index(d, st.resource, st.stage)];
          if (who < 0) who = u;
        }
      }
    }
    for (int d = 0; d < ctas_; ++d) {
      for (int r = 0; r < res_; ++r) {
        for (int i = 0; i < layout_.stages[r]; ++i) {
          std::size_t const b = stage_index(d, r, i);
          bool const in_flight = s[slot(d, r, i, detail::InFlight)] > 0;
          if (landing_in_set[b] || (!in_flight && putter[b] < 0)) continue;
          if (depends(landing_touch(d, r, i), tr, tw))
            return {static_cast<int>(b), in_flight ? -1 : putter[b]};
        }
      }
    }
    return {-1, -1};
  }

  // ---- Persistent sets grown from one transition (README §7) -----------------------------------
  // The set grown from the first seed — enabled transitions in a fixed order: the tasks' next
  // segments by task, then copies in flight landing by stage index (seed = tasks + stage index) —
  // that is smaller than every enabled transition; false when none is. The first, not the
  // smallest: a fixed order makes states that differ only in what the set left out choose alike,
  // which measured fewer states than the smallest set on the bundled managers (attention
  // ping-pong 13,572 -> 5,998; 2026-12-05), at a third of the cost a state.
  constexpr bool first_grown_set(S const& s, std::vector<bool>& in_set,
                                 std::vector<bool>& landing_in_set) const {
    if (!whole_cta_sets_) return false;
    int const T = layout_.tasks;
    for (int seed = 0; seed < T + ctas_ * res_ * max_stages_; ++seed) {
      if (seed < T ? !enabled(s, seed) : !in_flight(s, seed - T)) continue;
      if (grown_set(s, seed, in_set, landing_in_set)) return true;
    }
    return false;
  }

  // Whether a copy is in flight into the stage of index b (stage_index).
  constexpr bool in_flight(S const& s, int b) const {
    int const i = b % max_stages_, r = b / max_stages_ % res_, d = b / max_stages_ / res_;
    return i < layout_.stages[r] && s[slot(d, r, i, detail::InFlight)] > 0;
  }

  // When no CTA is ahead as a whole: the set grown from one enabled transition (a stubborn set's
  // closure). Every task outside it that can reach, before the set runs, a step that depends on it
  // (ahead_steps) joins it with its next segment when it is enabled; so does a task whose put
  // starts a copy whose landing depends on it, and a copy in flight whose landing does. A blocked
  // task that would have to join ends the attempt (what enables it is not followed). What remains
  // outside is then independent of the set on every run until the set moves: a persistent set, by
  // the argument of the whole CTA's. Every exit passes through it when it holds a task's step, or
  // when some task cannot finish before it moves; a set of landings that no task waits for does
  // not qualify (it would hide the copy orphaned at the end, R-M2).
  constexpr bool grown_set(S const& s, int seed, std::vector<bool>& in_set,
                           std::vector<bool>& landing_in_set) const {
    int const T = layout_.tasks;
    int const objects = ctas_ * res_ * max_stages_ * kObjects;
    in_set.assign(static_cast<std::size_t>(T), false);
    landing_in_set.assign(static_cast<std::size_t>(ctas_ * res_ * max_stages_), false);
    if (seed < T)
      in_set[static_cast<std::size_t>(seed)] = true;
    else
      landing_in_set[static_cast<std::size_t>(seed - T)] = true;
    std::vector<int> end;
    for (;;) {
      std::vector<bool> tr(static_cast<std::size_t>(objects), false);
      std::vector<bool> tw(static_cast<std::size_t>(objects), false);
      for (int t = 0; t < T; ++t) {
        if (!in_set[static_cast<std::size_t>(t)]) continue;
        int const begin = s[layout_.pc(t)];
        mark(s, t, begin, segment_end(t, begin), tr, tw);
      }
      for (int d = 0; d < ctas_; ++d) {
        for (int r = 0; r < res_; ++r) {
          for (int i = 0; i < layout_.stages[r]; ++i) {
            if (!landing_in_set[stage_index(d, r, i)]) continue;
            for (int x : landing_touch(d, r, i).writes) tw[x] = true;
          }
        }
      }
      end = ahead_steps(s, in_set, landing_in_set);
      int const u = first_dependent_task(s, in_set, end, tr, tw);
      if (u >= 0) {
        if (!enabled(s, u)) return false;
        in_set[static_cast<std::size_t>(u)] = true;
        continue;
      }
      std::pair<int, int> const b = first_dependent_landing(s, in_set, landing_in_set, end, tr, tw);
      if (b.first < 0) break;
      if (b.second < 0) {
        landing_in_set[static_cast<std::size_t>(b.first)] = true;
        continue;
      }
      // A copy not issued yet: the task that issues it joins, or the attempt ends.
      if (!enabled(s, b.second)) return false;
      in_set[static_cast<std::size_t>(b.second)] = true;
    }
    if (!every_exit_passes(in_set, end)) return false;
    // A reduction only if something enabled stays outside.
    for (int t = 0; t < T; ++t)
      if (enabled(s, t) && !in_set[static_cast<std::size_t>(t)]) return true;
    for (int b = 0; b < ctas_ * res_ * max_stages_; ++b)
      if (in_flight(s, b) && !landing_in_set[static_cast<std::size_t>(b)]) return true;
    return false;
  }

  // For each task outside the set (in_set: its tasks; landing_in_set: the stages, per CTA, whose
  // copies land in it): one past the last step it can run before any transition of the set — its
  // steps up to the first wait, acquire or producer tail that blocks and stays blocked. A fixed
  // point over how many times each barrier's phase can complete with the arrivals and copies the
  // outside steps make: the steps grow as phases can complete, and the phases as the steps grow.
  // A task's k-th wait on a barrier passes after some number n of completions, no fewer than its
  // previous wait's there, with the parity it waits for (parity now flipped n times): the least
  // such n must be within the bound.
  constexpr std::vector<int> ahead_steps(S const& s, std::vector<bool> const& in_set,
                                         std::vector<bool> const& landing_in_set) const {
    int const T = layout_.tasks;
    int const stages = ctas_ * res_ * max_stages_;
    auto index = [&](int d, int r, int i) { return static_cast<int>(stage_index(d, r, i)); };
    constexpr int kMany = 1 << 20;
    std::vector<int> end(static_cast<std::size_t>(T), 0);
    for (int t = 0; t < T; ++t) end[t] = s[layout_.pc(t)];
    // Completions each barrier may reach (full at 2b + 1, empty at 2b); per task, the completions
    // its last wait on each barrier needed.
    std::vector<int> completions(static_cast<std::size_t>(2 * stages), 0);
    std::vector<std::vector<int>> needed(static_cast<std::size_t>(T));
    // The arrivals and copies the outside steps up to `end` make, added as `end` passes each step
    // (the steps only grow, so no round walks them again).
    std::vector<int> empty_arrivals(static_cast<std::size_t>(stages), 0);
    std::vector<int> full_arrivals(static_cast<std::size_t>(stages), 0);
    std::vector<int> copies(static_cast<std::size_t>(stages), 0);
    std::vector<int> fewest_armed(static_cast<std::size_t>(stages), kMany);
    auto add = [&](int d, Step const& st) {
      int const r = st.resource, i = st.stage;
      if (st.kind == StepKind::Release) {
        std::pair<int, int> const g = release_group(d, r);
        for (int e = g.first; e < g.second; ++e)
          empty_arrivals[index(e, empty_owner(m_, r), i)] += st.arrivals;
      } else if ((st.kind == StepKind::Acquire && st.tx_units > 0) ||
                 (st.kind == StepKind::Commit && st.arrivals > 0)) {
        int const f = index(d, full_owner(m_, r), i);
        std::pair<int, int> const g = copy_group(d, r);
        full_arrivals[f] += st.arrivals;
        int const armed = st.kind == StepKind::Acquire ? st.tx_units * (g.second - g.first) : 0;
        fewest_armed[f] = std::min(fewest_armed[f], armed);
      } else if (st.kind == StepKind::ProduceWork && st.tx_units > 0) {
        std::pair<int, int> const g = copy_group(d, r);
        for (int e = g.first; e < g.second; ++e) copies[index(e, r, i)] += st.tx_units;
      }
    };
    // Copies in flight land before the set unless their landing is in it.
    for (int d = 0; d < ctas_; ++d)
      for (int r = 0; r < res_; ++r)
        for (int i = 0; i < layout_.stages[r]; ++i)
          if (!landing_in_set[stage_index(d, r, i)])
            copies[index(d, r, i)] += s[slot(d, r, i, detail::InFlight)];
    for (bool grew = true; grew;) {
      grew = false;
      for (int u = 0; u < T; ++u) {
        if (in_set[static_cast<std::size_t>(u)]) continue;
        int const d = cta_of(u);
        Program const& p = programs_[u];
        std::vector<int>& seen = needed[static_cast<std::size_t>(u)];
        if (seen.empty()) seen.assign(static_cast<std::size_t>(2 * stages), 0);
        while (end[u] < static_cast<int>(p.steps.size())) {
          Step const& st = p.steps[end[u]];
          if (blocks(st.kind)) {
            bool const full = st.kind == StepKind::Wait;
            int const r = full ? full_owner(m_, st.resource) : empty_owner(m_, st.resource);
            int const b = 2 * index(d, r, st.stage) + (full ? 1 : 0);
            int const parity =
                s[slot(d, r, st.stage, full ? detail::FullParity : detail::EmptyParity)];
            int n = seen[b];
            if ((parity ^ (n & 1)) == st.parity) ++n;
            // try_ results the task will block on: set now, or by a probe on the way (on a
            // barrier whose parity cannot change meanwhile unless its phase may complete).
            bool const passes =
                probe_passes(s, u, end[u], full) || (end[u] == s[layout_.pc(u)] && enabled(s, u));
            if (passes)
              n = seen[b];
            else if (n > completions[b])
              break;
            seen[b] = n;
          }
          add(d, st);
          ++end[u];
          grew = true;
        }
      }
      for (int d = 0; d < ctas_; ++d) {
        for (int r = 0; r < res_; ++r) {
          auto const& pipe = m_.resources[r].pipeline;
          if (!pipe.enabled()) continue;
          for (int i = 0; i < layout_.stages[r]; ++i) {
            int const b = index(d, r, i);
            // An empty barrier completes first with its pending arrivals, then with every
            // empty_count more.
            int const pending_e = s[slot(d, r, i, detail::EmptyPending)];
            int const count_e = std::max(empty_count(r), 1);
            int empties =
                empty_arrivals[b] >= pending_e ? 1 + (empty_arrivals[b] - pending_e) / count_e : 0;
            if (empties > completions[2 * b]) completions[2 * b] = empties, grew = true;
            if (full_owner(m_, r) != r) continue;
            // A full barrier: its arrivals (the last arming its bytes, at least the fewest any
            // arriving step arms) and as many transactions landed, per phase.
            int landed = 0;
            for (int r2 : full_members_[static_cast<std::size_t>(r)])
              if (!landing_in_set[stage_index(d, r2, i)]) landed += copies[index(d, r2, i)];
            int const pending = s[slot(d, r, i, detail::FullPending)];
            int const size = std::max(pipe.producer.size, 1);
            int const by_arrivals =
                full_arrivals[b] >= pending ? 1 + (full_arrivals[b] - pending) / size : 0;
            int const armed = pending > 0 ? fewest_armed[b] : 0;
            int const outstanding = s[slot(d, r, i, detail::FullTx)] + armed;
            int const by_copies = landed < outstanding ? 0
                                  : fewest_armed[b] <= 0 || fewest_armed[b] >= kMany
                                      ? kMany
                                      : 1 + (landed - outstanding) / fewest_armed[b];
            int const fulls = std::min(by_arrivals, by_copies);
            if (fulls > completions[2 * b + 1]) completions[2 * b + 1] = fulls, grew = true;
          }
        }
      }
    }
    return end;
  }

  // Whether task u's blocking step at `pc` may pass on a try_ probe: the probe before it on the
  // way (same barrier, open now, its parity fixed while the phase cannot complete), or, with none
  // on the way, the flag set in `s`.
  constexpr bool probe_passes(S const& s, int u, int pc, bool full) const {
    Step const& st = programs_[u].steps[pc];
    for (int q = pc - 1; q >= s[layout_.pc(u)]; --q) {
      Step const& probe = programs_[u].steps[q];
      if (probe.resource != st.resource) continue;
      if (probe.kind != (full ? StepKind::TryWait : StepKind::TryAcquire)) return false;
      if (probe.stage != st.stage) return true;  // another barrier: its parity may change
      int const r = full ? full_owner(m_, st.resource) : empty_owner(m_, st.resource);
      return s[slot(cta_of(u), r, probe.stage, full ? detail::FullParity : detail::EmptyParity)] !=
             probe.parity;
    }
    return try_flag(s, u, st.resource, !full);
  }

  constexpr void check_exit(S const& s, int id) {
    for (int t = 0; has_async_reads_ && t < layout_.tasks; ++t) {
      if (async_count(s, t) == 0) continue;
      report(Rule::D13_DmaOrdering, t, -1, -1, id, [&] {
        return std::string(
            "ends with asynchronous reads (wgmma or TMA store) in flight: retire them with "
            "ts::wgmma_wait<0>(ctx) / ts::bulk_wait_read<0>(ctx)");
      });
      return;
    }
    for (int c = 0; c < ctas_; ++c) {
      for (int r = 0; r < res_; ++r) {
        auto const& p = m_.resources[r].pipeline;
        for (int i = 0; i < layout_.stages[r]; ++i) {
          bool const partial_full = s[slot(c, r, i, detail::FullPending)] != p.producer.size;
          bool const partial_empty = s[slot(c, r, i, detail::EmptyPending)] != empty_count(r);
          bool const in_flight =
              s[slot(c, r, i, detail::InFlight)] != 0 || s[slot(c, r, i, detail::FullTx)] != 0;
          if (partial_full || partial_empty || in_flight) {
            report(
                Rule::M2_UnbalancedExit, -1, r, -1, id,
                [&] {
                  return std::string("when every task has ended, stage ") + to_str(i) + in_cta(c) +
                         " still has " +
                         (in_flight ? "a TMA copy in flight or expected"
                          : partial_full
                              ? to_str(s[slot(c, r, i, detail::FullPending)]) + " of " +
                                    to_str(p.producer.size) + " producer arrivals outstanding"
                              : to_str(s[slot(c, r, i, detail::EmptyPending)]) + " of " +
                                    to_str(empty_count(r)) + " consumer arrivals outstanding") +
                         ": a phase was left half done (unbalanced arrivals, or a task ends "
                         "mid-protocol" +
                         (ctas_ > 1 ? ", or a peer CTA filled or released a stage this CTA did not"
                                    : "") +
                         ")" + repeated_copy_hint(r);
                },
                c);
            return;
          }
        }
      }
    }
  }

  constexpr int async_slot(int t, int i) const { return async_base_ + t * kMaxAsyncReads + i; }
  constexpr int async_count(S const& s, int t) const {
    int n = 0;
    while (n < kMaxAsyncReads && s[async_slot(t, n)] != 0) ++n;
    return n;
  }
  // Reads in flight are coded 1 + joined * 16384 + unit * 4096 + resource * 64 + stage (0: empty
  // slot). A joined read (through a descriptor, StepKind::AsyncOperand) belongs to the group of
  // the next older read of its unit, issued with it: one wgmma reads both, and they retire
  // together.
  static constexpr std::int16_t async_code(int unit, int r, int stage, bool joined = false) {
    return static_cast<std::int16_t>(1 + (joined ? 16384 : 0) + unit * 4096 + r * 64 + stage);
  }
  static constexpr bool reads(std::int16_t code, int r, int stage) {
    return code != 0 && (code - 1) % 4096 == r * 64 + stage;
  }
  static constexpr int unit_of(std::int16_t code) { return (code - 1) % 16384 / 4096; }
  static constexpr bool joined(std::int16_t code) { return code - 1 >= 16384; }

  // Puts the asynchronous read that task t's consumer work `st` (at pc) issues in flight: its
  // stage and the stages of the descriptors set up for it (st.operands AsyncOperand steps before
  // it), one group; false (R-D13) when the checker would follow more than it can.
  constexpr bool start_async_read(S& s, int t, int pc, Step const& st, int id) {
    int n = async_count(s, t);
    if (n + 1 + st.operands > kMaxAsyncReads) {
      report(Rule::D13_DmaOrdering, t, st.resource, st.node, id, [&] {
        return std::string(
            "issues more than 8 asynchronous (wgmma) reads without ts::wgmma_wait: the checker "
            "follows at most 8 in flight (a descriptor's stage counts as one); retire some first");
      });
      return false;
    }
    s[async_slot(t, n++)] = async_code(st.unit, st.resource, st.stage);
    for_each_operand(programs_[t], pc, [&](Step const& op) {
      s[async_slot(t, n++)] = async_code(op.unit, op.resource, op.stage, true);
    });
    return true;
  }

  // A task (`only`, or any) with an asynchronous read of (r, stage) in flight, or -1.
  constexpr int async_reader(S const& s, int c, int r, int stage, int only = -1) const {
    if (!has_async_reads_) return -1;
    for (int t = c * tasks_; t < (c + 1) * tasks_; ++t) {
      if (only >= 0 && t != only) continue;
      for (int i = 0; i < kMaxAsyncReads; ++i)
        if (reads(s[async_slot(t, i)], r, stage)) return t;
    }
    return -1;
  }

  // Whether stage `s` of r's buffers and stage `s2` of r2's share a byte. A pipelined buffer is
  // laid out stage-major (its stage is the outermost mode, as in every multistage smem layout),
  // so stage i is the i-th equal slice of it; an unpipelined buffer is one slice.
  constexpr bool stages_overlap(int r, int s, int r2, int s2) const {
    auto slice = [&](SmemPlacement const& p, int res, int stage) {
      long long const n = layout_.stages[res] > 0 ? layout_.stages[res] : 1;
      long long const per = p.bytes / n;
      return std::pair<long long, long long>{p.offset + stage * per, p.offset + (stage + 1) * per};
    };
    for (auto const& a : buffers_) {
      if (a.resource != r) continue;
      for (auto const& b : buffers_) {
        if (b.resource != r2) continue;
        std::pair<long long, long long> const x = slice(a, r, s), y = slice(b, r2, s2);
        if (x.first < y.second && y.first < x.second) return true;
      }
    }
    return false;
  }

  // A work on an unpipelined resource whose buffer shares bytes with a pipelined one (a staging
  // buffer in an alias group): not local, it is checked against the pipelined stages in use.
  constexpr bool aliased_local(int t, Step const& st) const {
    return st.kind == StepKind::Local && st.resource >= 0 &&
           st.resource < static_cast<int>(aliased_any_.size()) &&
           aliased_any_[static_cast<std::size_t>(st.resource)] && st.node >= 0 &&
           m_.tasks[task_of(t)].schedule.nodes[st.node].op == OpKind::Work;
  }

  // A stage of a resource aliased with stage `stage` of `r` (byte ranges overlap) that some task
  // other than `self` is using (reading, writing, or with copies or reads in flight;
  // `writes_only`: only writing), as (resource, task), or (-1, -1).
  constexpr std::pair<int, int> aliased_use(S const& s, int self, int c, int r, int stage,
                                            bool writes_only) const {
    int const R = static_cast<int>(m_.resources.size());
    for (int r2 = 0; r2 < R; ++r2) {
      if (!aliased_[static_cast<std::size_t>(r * R + r2)] || layout_.stages[r2] == 0) continue;
      for (int i = 0; i < layout_.stages[r2]; ++i) {
        if (!stages_overlap(r, stage, r2, i)) continue;
        if (s[slot(c, r2, i, detail::InFlight)] > 0) return {r2, -1};
        if (int const o = owner(s, self, c, r2, i, true); o >= 0) return {r2, o};
        if (writes_only) continue;
        if (int const o = owner(s, self, c, r2, i, false); o >= 0) return {r2, o};
        if (int const o = async_reader(s, c, r2, i); o >= 0 && o != self) return {r2, o};
      }
    }
    return {-1, -1};
  }

  // In-place consumer work (ts::ConsumeInPlace) on the stage task t holds: no other task may read
  // that stage meanwhile — another consumer holding the same fill, asynchronous (wgmma) reads in
  // flight (its own included), or a buffer sharing its bytes. False, with R-M4, when one may.
  constexpr bool write_in_place(S const& s, int t, int c, int r, Step const& st, int id) {
    int const reader = owner(s, t, c, r, st.stage, false);
    int const async = async_reader(s, c, r, st.stage);
    std::pair<int, int> const use = aliased_use(s, t, c, r, st.stage, false);
    if (reader < 0 && async < 0 && use.first < 0) return true;
    report(Rule::M4_StageRace, t, r, st.node, id, [&] {
      std::string const what = "writes stage " + to_str(st.stage) + " in place while ";
      if (reader >= 0) return what + who(reader) + " holds it to read (both consume the same fill)";
      if (async >= 0)
        return what + who(async) + "'s asynchronous (wgmma) reads of it are in flight";
      int const r2 = use.first, o = use.second;
      return what + "`" + std::string(resource_name(m_, r2)) +
             "`, which shares its bytes (alias group), is " +
             (o >= 0 ? "used by " + who(o) : std::string("being copied into"));
    });
    return false;
  }

  // Runs task t's current step on `s`; false when the step is a violation (not explored further).
  // In a cluster, t is a task of CTA c: its barriers and stages are c's, except that a multicast
  // producer's copies go into every CTA of its group, and a release arrives in every CTA of its
  // group.
  constexpr bool step(S& s, int t, int id) {
    int const pc = s[layout_.pc(t)];
    segment_pc_ = pc;
    Step const& st = programs_[t].steps[pc];
    int const r = st.resource;
    int const c = cta_of(t);
    TaskModel const& task = m_.tasks[task_of(t)];
    switch (st.kind) {
      case StepKind::Local:
        if (aliased_local(t, st)) {
          bool const writes = is_producer_side(task.schedule.nodes[st.node].role);
          if (std::pair<int, int> const use = aliased_use(s, t, c, r, 0, !writes); use.first >= 0) {
            int const r2 = use.first, o = use.second;
            report(Rule::M4_StageRace, t, r, st.node, id, [&] {
              return std::string(writes ? "writes" : "reads") +
                     " its buffer, whose bytes it shares with `" +
                     std::string(resource_name(m_, r2)) + "` (alias group), while " +
                     (o >= 0 ? who(o) + " uses that stage"
                             : std::string("a copy into it is in flight"));
            });
            return false;
          }
        }
        break;
      case StepKind::TryAcquire:
        set_try_flag(s, t, r, true,
                     s[slot(c, empty_owner(m_, r), st.stage, detail::EmptyParity)] != st.parity);
        break;
      case StepKind::TryWait:
        set_try_flag(s, t, r, false,
                     s[slot(c, full_owner(m_, r), st.stage, detail::FullParity)] != st.parity);
        break;
      case StepKind::Acquire: {
        set_try_flag(s, t, r, true, false);
        if (int const o = owner(s, t, c, r, st.stage, false); o >= 0) {
          report(Rule::M5_PhaseAliasing, t, r, st.node, id, [&] {
            return "acquires stage " + to_str(st.stage) + " while " + who(o) +
                   " still holds it (waited, not released): the producer lapped the consumer and "
                   "passed on a stale phase";
          });
          return false;
        }
        if (st.tx_units > 0) {
          // The stage's bytes: one transaction group from each CTA multicasting into it.
          std::pair<int, int> const g = copy_group(c, r);
          int const units = st.tx_units * (g.second - g.first);
          int const full = full_owner(m_, r);
          s[slot(c, full, st.stage, detail::FullTx)] =
              static_cast<std::int16_t>(s[slot(c, full, st.stage, detail::FullTx)] + units);
          if (!arrive(s, c, full, st.stage, true, st.arrivals, t, st.node, id)) return false;
        }
        break;
      }
      case StepKind::Commit:
        if (st.arrivals > 0 &&
            !arrive(s, c, full_owner(m_, r), st.stage, true, st.arrivals, t, st.node, id))
          return false;
        break;
      case StepKind::Wait: {
        set_try_flag(s, t, r, false, false);
        int const o = owner(s, t, c, r, st.stage, true);
        if (o >= 0 || s[slot(c, r, st.stage, detail::InFlight)] > 0) {
          report(Rule::M5_PhaseAliasing, t, r, st.node, id, [&] {
            return "passes its wait on stage " + to_str(st.stage) + " while " +
                   (o >= 0 ? who(o) + " still writes it (acquired, not committed)"
                           : std::string("a TMA copy into it is still in flight")) +
                   ": the full barrier completed early (arrival or byte counts)" +
                   repeated_copy_hint(r);
          });
          return false;
        }
        break;
      }
      case StepKind::Release: {
        bool reading = async_reader(s, c, r, st.stage, t) >= 0;
        if (m_.resources[r].kind == ResourceKind::Group)
          for (int member : members_of(m_, r))
            reading = reading || async_reader(s, c, member, st.stage, t) >= 0;
        if (reading) {
          report(Rule::D13_DmaOrdering, t, r, st.node, id, [&] {
            return "releases stage " + to_str(st.stage) +
                   " while its asynchronous reads of it (wgmma or TMA store) may still be in "
                   "flight: retire them with ts::wgmma_wait<N>(ctx) / ts::bulk_wait_read<N>(ctx) "
                   "before release()";
          });
          return false;
        }
        std::pair<int, int> const g = release_group(c, r);
        for (int d = g.first; d < g.second; ++d)
          if (!arrive(s, d, empty_owner(m_, r), st.stage, false, st.arrivals, t, st.node, id))
            return false;
        break;
      }
      case StepKind::ProduceWork: {
        if (!holds(programs_[t], pc, r, st.stage, true)) {
          report(Rule::M3_StageOwnership, t, r, st.node, id, [&] {
            return "writes stage " + to_str(st.stage) +
                   " without owning it (no acquire() since its last commit())";
          });
          return false;
        }
        // A multicast copy writes the stage in every CTA of the group; each must be free there.
        std::pair<int, int> const g =
            st.tx_units > 0 ? copy_group(c, r) : std::pair<int, int>{c, c + 1};
        for (int d = g.first; d < g.second; ++d) {
          // Built only for a finding (in constant evaluation, never).
          auto where = [&] {
            std::string w;
            if (d != c) {
              w = in_cta(d);
              w += " (multicast)";
            }
            return w;
          };
          // (No structured bindings here: nvcc's front end cannot read them in constant
          // evaluation.)
          if (std::pair<int, int> const use = aliased_use(s, t, d, r, st.stage, false);
              use.first >= 0) {
            int const r2 = use.first, o = use.second;
            report(Rule::M4_StageRace, t, r, st.node, id, [&] {
              return "writes stage " + to_str(st.stage) + where() +
                     ", whose bytes it shares with `" + std::string(resource_name(m_, r2)) +
                     "` (alias group), while " +
                     (o >= 0 ? who(o) + " uses it" : std::string("a copy into it is in flight"));
            });
            return false;
          }
          if (int const o = owner(s, t, d, r, st.stage, false); o >= 0) {
            report(Rule::M4_StageRace, t, r, st.node, id, [&] {
              return "writes stage " + to_str(st.stage) + where() + " while " + who(o) +
                     " reads it" +
                     (d != c ? ": the peer's empty barrier completed before that CTA's consumers "
                               "released the stage (its arrival count must count the consumers "
                               "of every CTA multicasting into it)"
                             : std::string());
            });
            return false;
          }
          if (int const o = async_reader(s, d, r, st.stage); o >= 0) {
            report(Rule::M4_StageRace, t, r, st.node, id, [&] {
              return "writes stage " + to_str(st.stage) + where() + " while " + who(o) +
                     "'s asynchronous (wgmma) reads of it are in flight";
            });
            return false;
          }
        }
        if (st.tx_units > 0)
          for (int d = g.first; d < g.second; ++d)
            s[slot(d, r, st.stage, detail::InFlight)] =
                static_cast<std::int16_t>(s[slot(d, r, st.stage, detail::InFlight)] + st.tx_units);
        break;
      }
      case StepKind::ConsumeWork: {
        if (!holds(programs_[t], pc, r, st.stage, false)) {
          report(Rule::M3_StageOwnership, t, r, st.node, id, [&] {
            return "reads stage " + to_str(st.stage) +
                   " without owning it (no wait() since its last release())";
          });
          return false;
        }
        int const o = owner(s, t, c, r, st.stage, true);
        if (o >= 0 || s[slot(c, r, st.stage, detail::InFlight)] > 0) {
          report(Rule::M4_StageRace, t, r, st.node, id, [&] {
            return "reads stage " + to_str(st.stage) + " while " +
                   (o >= 0
                        ? who(o) + " writes it"
                        : std::string("a TMA copy into it is in flight") + repeated_copy_hint(r));
          });
          return false;
        }
        if (std::pair<int, int> const use = aliased_use(s, t, c, r, st.stage, true);
            use.first >= 0) {
          int const r2 = use.first, o2 = use.second;
          report(Rule::M4_StageRace, t, r, st.node, id, [&] {
            return "reads stage " + to_str(st.stage) + ", whose bytes it shares with `" +
                   std::string(resource_name(m_, r2)) + "` (alias group), while " +
                   (o2 >= 0 ? who(o2) + " writes it" : std::string("a copy into it is in flight"));
          });
          return false;
        }
        if (task.schedule.nodes[st.node].role == Role::ConsumerInPlace &&
            !write_in_place(s, t, c, r, st, id))
          return false;
        // wgmma: the read stays in flight
        if (m_.resources[r].pipeline.dma_consumer() && !start_async_read(s, t, pc, st, id))
          return false;
        break;
      }
      case StepKind::AsyncOperand:  // read by the asynchronous read issued next (ConsumeWork)
        break;
      case StepKind::Tail:
        break;
      case StepKind::AsyncWait: {
        // Retire this unit's read groups but the `keep` most recent; other units' reads stay.
        // A joined read is in the group of the next older read of its unit.
        std::vector<int> group(kMaxAsyncReads, 0);  // 1: the oldest group of the unit
        int groups = 0;
        for (int i = 0; i < kMaxAsyncReads; ++i) {
          std::int16_t const code = s[async_slot(t, i)];
          if (code == 0 || unit_of(code) != st.unit) continue;
          if (!joined(code) || groups == 0) ++groups;
          group[i] = groups;
        }
        std::vector<std::int16_t> kept;
        for (int i = 0; i < kMaxAsyncReads; ++i) {
          std::int16_t const code = s[async_slot(t, i)];
          if (code == 0 || (unit_of(code) == st.unit && groups - group[i] >= st.arrivals)) continue;
          kept.push_back(code);
        }
        for (int i = 0; i < kMaxAsyncReads; ++i)
          s[async_slot(t, i)] = i < static_cast<int>(kept.size()) ? kept[i] : std::int16_t{0};
        break;
      }
    }
    ++s[layout_.pc(t)];
    return true;
  }

 private:
  constexpr std::string op_text(Step const& st) const {
    switch (st.kind) {
      case StepKind::TryAcquire:
        return "try_acquire()";
      case StepKind::Acquire:
        return "acquire()";
      case StepKind::Commit:
        return "commit()";
      case StepKind::TryWait:
        return "try_wait()";
      case StepKind::Wait:
        return "wait()";
      case StepKind::Release:
        return "release()";
      case StepKind::Tail:
        return "producer_tail()";
      case StepKind::AsyncWait:
        return std::string(st.unit == static_cast<int>(AsyncReader::Wgmma) ? "wgmma_wait<"
                                                                           : "bulk_wait_read<") +
               to_str(st.arrivals) + ">()";
      case StepKind::ProduceWork:
      case StepKind::ConsumeWork:
      case StepKind::AsyncOperand:
      case StepKind::Local:
        return "work()";
    }
    return "?";
  }

 public:
  // "smem.tma_load() [stage 1]": task `task`'s step, for findings and timelines.
  constexpr std::string describe_in(int task, Step const& st) const {
    if (st.kind == StepKind::AsyncWait) return op_text(st);
    std::string res =
        st.resource >= 0 ? std::string(resource_name(m_, st.resource)) : std::string("?");
    std::string op;
    switch (st.kind) {
      case StepKind::ProduceWork:
      case StepKind::ConsumeWork:
      case StepKind::AsyncOperand:
      case StepKind::Local:  // a work, or skip() (named by its op)
        op = st.node >= 0
                 ? std::string(op_name(m_.tasks[task_of(task)].schedule.nodes[st.node])) + "()"
                 : "work()";
        break;
      default:
        op = op_text(st);
    }
    bool const skip =
        st.node >= 0 && m_.tasks[task_of(task)].schedule.nodes[st.node].op == OpKind::Skip;
    std::string where =
        st.kind == StepKind::Local && !skip ? std::string() : " [stage " + to_str(st.stage) + "]";
    return res + "." + op + where;
  }

 private:
  ManagerModel const& m_;
  Scenario sc_;
  ModelCheckOptions opt_;
  std::vector<Program> programs_;      // [cta * tasks_ + task]
  int tasks_ = 0;                      // tasks per CTA
  int res_ = 0;                        // resources per CTA
  int ctas_ = 1;                       // CTAs in the cluster
  std::vector<bool> cluster_visible_;  // [r]: touched by peer CTAs (cluster_step)
  bool whole_cta_sets_ = false;        // ahead_cta and the grown sets apply (find_step_objects)
  int max_stages_ = 1;
  std::vector<bool> uniform_empty_;          // [r]: arrivals on r's empty barriers commute
  std::vector<std::vector<Touch>> touches_;  // [task][pc]: what the step touches
  bool symmetric_ = false;                   // some CTAs are interchangeable (canonicalize)
  std::vector<int> cta_class_;               // [cta]: the first CTA it is interchangeable with
  std::vector<std::vector<int>> blocks_;     // [cta]: its slots of the state, in one order
  std::vector<int> labels_;  // while a finding is reported: stored CTA -> CTA on its path
  std::vector<std::vector<int>> full_members_;  // [r]: the resources whose copies land on r's
                                                // full barriers (constructor)
  std::vector<std::vector<std::uint64_t>> touches_from_;  // [task][pc]: resources from pc on
  std::vector<std::vector<bool>> unheld_read_retired_;    // [task][pc]: ends_segment_before
  detail::Layout layout_;
  std::vector<detail::Edge> edges_;
  std::vector<detail::Finding> findings_;
  detail::StateTable table_{1};
  S scratch_;  // the successor expand builds: one buffer reused, not a vector per transition
  long long states_ = 0;
  bool decided_ = true;
  // Asynchronous reads (wgmma) each task has in flight, oldest first, as 1 + resource * 64 +
  // stage (0: empty slot); present only when some pipeline has an asynchronous consumer.
  static constexpr int kMaxAsyncReads = 8;
  std::vector<bool> aliased_;           // [a * resources + b]: a's and b's buffers overlap
  std::vector<bool> aliased_any_;       // [a]: a's buffers overlap another resource's
  std::vector<SmemPlacement> buffers_;  // the data buffers (not barriers), for byte ranges
  bool has_async_reads_ = false;
  int async_base_ = 0;
  int segment_task_ = -1;  // the task whose segment is running, for findings inside it
  int segment_begin_ = 0;
  int segment_pc_ = 0;
};

}  // namespace verify
}  // namespace warploom::ts
