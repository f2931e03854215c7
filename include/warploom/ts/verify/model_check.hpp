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
// Findings (rules R-M1..R-M6) name the task, resource and op, and carry the shortest
// counterexample as a per-task timeline.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
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
};

}  // namespace detail

// ---- Checker -----------------------------------------------------------------------------------
class ModelChecker {
 public:
  constexpr ModelChecker(ManagerModel const& m, Scenario const& sc, ModelCheckOptions const& opt)
      : m_(m), sc_(sc), opt_(opt) {
    LoopKeys const keys = loop_keys(m);
    for (int t = 0; t < static_cast<int>(m.tasks.size()); ++t)
      programs_.push_back(build_program(m, t, keys, sc));
    layout_.tasks = static_cast<int>(m.tasks.size());
    int offset = 2 * layout_.tasks;
    for (auto const& r : m.resources) {
      layout_.stages.push_back(r.pipeline.enabled() ? r.pipeline.num_stages : 0);
      if (r.pipeline.enabled()) {
        layout_.res_base.push_back(offset);
        offset += r.pipeline.num_stages * detail::Layout::kPerStage;
      } else {
        layout_.res_base.push_back(-1);
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
  }

  // Every task at its first step, every barrier in phase 0 expecting its full arrival count.
  constexpr std::vector<std::int16_t> initial_state() const {
    std::vector<std::int16_t> init(layout_.size, 0);
    for (int r = 0; r < static_cast<int>(m_.resources.size()); ++r) {
      auto const& p = m_.resources[r].pipeline;
      if (!p.enabled()) continue;
      for (int i = 0; i < p.num_stages; ++i) {
        init[layout_.slot(r, i, detail::FullPending)] = static_cast<std::int16_t>(p.producer.size);
        init[layout_.slot(r, i, detail::EmptyPending)] = static_cast<std::int16_t>(p.consumer.size);
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
        row[1 + t] = describe_in(t, st);
        if (!step(s, t, 0))
          row[1 + t] += "  <- " + std::string(info(findings_.back().rule).id);
        else
          moved = true;
      }
      for (int r = 0; r < static_cast<int>(m_.resources.size()); ++r) {
        for (int i = 0; i < layout_.stages[r]; ++i) {
          while (s[layout_.slot(r, i, detail::InFlight)] > 0) {
            --s[layout_.slot(r, i, detail::InFlight)];
            --s[layout_.slot(r, i, detail::FullTx)];
            maybe_complete(s, r, i, true);
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
    while (head < table.size()) {
      if (table.size() > opt_.max_states) {
        decided_ = false;
        break;
      }
      int const id = static_cast<int>(head++);
      std::vector<std::int16_t> const s = table.get(id);
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

  // The path from the initial state to `state`, as edges.
  constexpr std::vector<detail::Edge> path_to(int state) const {
    std::vector<detail::Edge> path;
    for (int s = state; s > 0; s = edges_[s].parent) path.insert(path.begin(), edges_[s]);
    return path;
  }
  constexpr std::vector<std::int16_t> state(int id) const { return table_.get(id); }
  constexpr detail::Layout const& layout() const { return layout_; }

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
  static constexpr bool may_enable_others(Step const& st) {
    return st.kind == StepKind::Commit || st.kind == StepKind::Release ||
           st.kind == StepKind::AsyncWait || (st.kind == StepKind::ProduceWork && st.tx_units > 0);
  }
  static constexpr bool is_work(StepKind k) {
    return k == StepKind::ProduceWork || k == StepKind::ConsumeWork;
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
  constexpr void report(Rule rule, int task, int resource, int node, int state, What&& what) {
    if (has_rule(rule)) return;
    detail::Finding f{rule, task, resource, node, state, -1, -1, {}};
    if (task >= 0 && segment_task_ == task) {
      f.pc_begin = segment_begin_;
      f.pc_end = segment_pc_;
    }
    if (!std::is_constant_evaluated()) f.what = what();
    findings_.push_back(std::move(f));
  }

  constexpr bool enabled(S const& s, int t) const {
    if (done(s, t)) return false;
    Step const& st = programs_[t].steps[s[layout_.pc(t)]];
    switch (st.kind) {
      case StepKind::Acquire:
        return try_flag(s, t, st.resource, true) ||
               s[layout_.slot(st.resource, st.stage, detail::EmptyParity)] != st.parity;
      case StepKind::Tail:
        return s[layout_.slot(st.resource, st.stage, detail::EmptyParity)] != st.parity;
      case StepKind::Wait:
        return try_flag(s, t, st.resource, false) ||
               s[layout_.slot(st.resource, st.stage, detail::FullParity)] != st.parity;
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
  constexpr void maybe_complete(S& s, int r, int stage, bool full) const {
    auto const& p = m_.resources[r].pipeline;
    int const pending = layout_.slot(r, stage, full ? detail::FullPending : detail::EmptyPending);
    int const parity = layout_.slot(r, stage, full ? detail::FullParity : detail::EmptyParity);
    if (s[pending] == 0 && (!full || s[layout_.slot(r, stage, detail::FullTx)] == 0)) {
      s[parity] = static_cast<std::int16_t>(s[parity] ^ 1);
      s[pending] = static_cast<std::int16_t>(full ? p.producer.size : p.consumer.size);
    }
  }

  constexpr bool arrive(S& s, int r, int stage, bool full, int n, int task, int node, int id) {
    int const pending = layout_.slot(r, stage, full ? detail::FullPending : detail::EmptyPending);
    if (n > s[pending]) {
      report(Rule::M6_OverArrival, task, r, node, id, [&] {
        auto const& p = m_.resources[r].pipeline;
        return std::string(full ? "the full" : "the empty") + " barrier of stage " + to_str(stage) +
               " expects " + to_str(full ? p.producer.size : p.consumer.size) +
               " arrivals per phase; this op makes " + to_str(n) + " while " + to_str(s[pending]) +
               " are outstanding: the extra arrivals would complete a phase early (the cooperative "
               "group size is too small, or an op arrives twice, e.g. a second acquire() or "
               "commit() of the same stage)";
      });
      return false;
    }
    s[pending] = static_cast<std::int16_t>(s[pending] - n);
    maybe_complete(s, r, stage, full);
    return true;
  }

  // Task other than `self` owning (r, stage) on the given side at its current pc, or -1. A TMA
  // producer's writes are the copies in flight (tracked per stage), not its acquire..commit span:
  // its commit is a no-op and a consumer may pass its wait as soon as the copy lands.
  constexpr int owner(S const& s, int self, int r, int stage, bool producer) const {
    if (producer && m_.resources[r].pipeline.tma_producer()) return -1;
    for (int t = 0; t < layout_.tasks; ++t) {
      if (t == self) continue;
      if (holds(programs_[t], s[layout_.pc(t)], r, stage, producer)) return t;
    }
    return -1;
  }

  // "; task `load` repeats the TMA call `put` ...": why a copy may land outside its phase, when a
  // producer of r issues a call that repeats one of its bracket (program.hpp, same_call).
  constexpr std::string repeated_copy_hint(int r) const {
    for (int t = 0; t < layout_.tasks; ++t)
      for (Step const& st : programs_[t].steps)
        if (st.kind == StepKind::ProduceWork && st.resource == r && st.tx_units > 1)
          return "; task `" + task_name(t) + "` repeats the TMA call `" +
                 std::string(op_name(m_.tasks[t].schedule.nodes[st.node])) +
                 "` in one acquire..commit bracket (the same work, iteration and arguments): a "
                 "second copy of the same bytes, which the barrier was not armed for";
    return {};
  }

  constexpr std::string task_name(int t) const {
    return t < 0 ? std::string("?") : std::string(m_.tasks[t].spec.name);
  }

  constexpr void push(detail::StateTable& table, S const& next, detail::Edge e) {
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
        S next = s;
        ++next[layout_.pc(t)];
        push(table, next, {id, t, s[layout_.pc(t)]});
        return;
      }
    }
    bool any = false;
    for (int t = 0; t < T; ++t) {
      if (!enabled(s, t)) continue;
      any = true;
      S next = s;
      // A transition is a segment of the task (see ends_segment); unreduced, one step.
      int const begin = s[layout_.pc(t)];
      segment_task_ = t;
      segment_begin_ = begin;
      Step const& first = programs_[t].steps[begin];
      bool ok = step(next, t, id);
      bool enabled_others = may_enable_others(first);
      while (ok && opt_.reduce && !ends_segment(first) && !done(next, t)) {
        Step const& st = programs_[t].steps[next[layout_.pc(t)]];
        if (is_sync_point(st.kind) ||
            (enabled_others && (is_work(st.kind) || aliased_local(t, st))))
          break;
        enabled_others = enabled_others || may_enable_others(st);
        ok = step(next, t, id);
      }
      if (ok) push(table, next, {id, t, begin, -1, 0, next[layout_.pc(t)]});
    }
    segment_task_ = -1;
    // TMA copies in flight land at any time.
    for (int r = 0; r < static_cast<int>(m_.resources.size()); ++r) {
      for (int i = 0; i < layout_.stages[r]; ++i) {
        if (s[layout_.slot(r, i, detail::InFlight)] <= 0) continue;
        any = true;
        S next = s;
        --next[layout_.slot(r, i, detail::InFlight)];
        --next[layout_.slot(r, i, detail::FullTx)];
        maybe_complete(next, r, i, true);
        push(table, next, {id, -1, 0, r, i});
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
          text += " task `" + task_name(t) + "` waits in " + describe_in(t, b) + ";";
        }
        text.pop_back();
        return text;
      });
    }
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
    for (int r = 0; r < static_cast<int>(m_.resources.size()); ++r) {
      auto const& p = m_.resources[r].pipeline;
      for (int i = 0; i < layout_.stages[r]; ++i) {
        bool const partial_full = s[layout_.slot(r, i, detail::FullPending)] != p.producer.size;
        bool const partial_empty = s[layout_.slot(r, i, detail::EmptyPending)] != p.consumer.size;
        bool const in_flight = s[layout_.slot(r, i, detail::InFlight)] != 0 ||
                               s[layout_.slot(r, i, detail::FullTx)] != 0;
        if (partial_full || partial_empty || in_flight) {
          report(Rule::M2_UnbalancedExit, -1, r, -1, id, [&] {
            return std::string("when every task has ended, stage ") + to_str(i) + " still has " +
                   (in_flight ? "a TMA copy in flight or expected"
                    : partial_full
                        ? to_str(s[layout_.slot(r, i, detail::FullPending)]) + " of " +
                              to_str(p.producer.size) + " producer arrivals outstanding"
                        : to_str(s[layout_.slot(r, i, detail::EmptyPending)]) + " of " +
                              to_str(p.consumer.size) + " consumer arrivals outstanding") +
                   ": a phase was left half done (unbalanced arrivals, or a task ends "
                   "mid-protocol)" +
                   repeated_copy_hint(r);
          });
          return;
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
    int left = st.operands;
    for (int i = pc - 1; i >= 0 && left > 0; --i) {
      Step const& op = programs_[t].steps[i];
      if (op.kind != StepKind::AsyncOperand || op.unit != st.unit) continue;
      s[async_slot(t, n++)] = async_code(op.unit, op.resource, op.stage, true);
      --left;
    }
    return true;
  }

  // A task (`only`, or any) with an asynchronous read of (r, stage) in flight, or -1.
  constexpr int async_reader(S const& s, int r, int stage, int only = -1) const {
    if (!has_async_reads_) return -1;
    for (int t = 0; t < layout_.tasks; ++t) {
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
           m_.tasks[t].schedule.nodes[st.node].op == OpKind::Work;
  }

  // A stage of a resource aliased with stage `stage` of `r` (byte ranges overlap) that some task
  // other than `self` is using (reading, writing, or with copies or reads in flight;
  // `writes_only`: only writing), as (resource, task), or (-1, -1).
  constexpr std::pair<int, int> aliased_use(S const& s, int self, int r, int stage,
                                            bool writes_only) const {
    int const R = static_cast<int>(m_.resources.size());
    for (int r2 = 0; r2 < R; ++r2) {
      if (!aliased_[static_cast<std::size_t>(r * R + r2)] || layout_.stages[r2] == 0) continue;
      for (int i = 0; i < layout_.stages[r2]; ++i) {
        if (!stages_overlap(r, stage, r2, i)) continue;
        if (s[layout_.slot(r2, i, detail::InFlight)] > 0) return {r2, -1};
        if (int const o = owner(s, self, r2, i, true); o >= 0) return {r2, o};
        if (writes_only) continue;
        if (int const o = owner(s, self, r2, i, false); o >= 0) return {r2, o};
        if (int const o = async_reader(s, r2, i); o >= 0 && o != self) return {r2, o};
      }
    }
    return {-1, -1};
  }

  // Runs task t's current step on `s`; false when the step is a violation (not explored further).
  constexpr bool step(S& s, int t, int id) {
    int const pc = s[layout_.pc(t)];
    segment_pc_ = pc;
    Step const& st = programs_[t].steps[pc];
    int const r = st.resource;
    switch (st.kind) {
      case StepKind::Local:
        if (aliased_local(t, st)) {
          bool const writes = is_producer_side(m_.tasks[t].schedule.nodes[st.node].role);
          if (std::pair<int, int> const use = aliased_use(s, t, r, 0, !writes); use.first >= 0) {
            int const r2 = use.first, o = use.second;
            report(Rule::M4_StageRace, t, r, st.node, id, [&] {
              return std::string(writes ? "writes" : "reads") +
                     " its buffer, whose bytes it shares with `" +
                     std::string(resource_name(m_, r2)) + "` (alias group), while " +
                     (o >= 0 ? "task `" + task_name(o) + "` uses that stage"
                             : std::string("a copy into it is in flight"));
            });
            return false;
          }
        }
        break;
      case StepKind::TryAcquire:
        set_try_flag(s, t, r, true, s[layout_.slot(r, st.stage, detail::EmptyParity)] != st.parity);
        break;
      case StepKind::TryWait:
        set_try_flag(s, t, r, false, s[layout_.slot(r, st.stage, detail::FullParity)] != st.parity);
        break;
      case StepKind::Acquire: {
        set_try_flag(s, t, r, true, false);
        if (int const o = owner(s, t, r, st.stage, false); o >= 0) {
          report(Rule::M5_PhaseAliasing, t, r, st.node, id, [&] {
            return "acquires stage " + to_str(st.stage) + " while task `" + task_name(o) +
                   "` still holds it (waited, not released): the producer lapped the consumer and "
                   "passed on "
                   "a stale phase";
          });
          return false;
        }
        if (st.tx_units > 0) {
          s[layout_.slot(r, st.stage, detail::FullTx)] =
              static_cast<std::int16_t>(s[layout_.slot(r, st.stage, detail::FullTx)] + st.tx_units);
          if (!arrive(s, r, st.stage, true, st.arrivals, t, st.node, id)) return false;
        }
        break;
      }
      case StepKind::Commit:
        if (st.arrivals > 0 && !arrive(s, r, st.stage, true, st.arrivals, t, st.node, id))
          return false;
        break;
      case StepKind::Wait: {
        set_try_flag(s, t, r, false, false);
        int const o = owner(s, t, r, st.stage, true);
        if (o >= 0 || s[layout_.slot(r, st.stage, detail::InFlight)] > 0) {
          report(Rule::M5_PhaseAliasing, t, r, st.node, id, [&] {
            return "passes its wait on stage " + to_str(st.stage) + " while " +
                   (o >= 0 ? "task `" + task_name(o) + "` still writes it (acquired, not committed)"
                           : std::string("a TMA copy into it is still in flight")) +
                   ": the full barrier completed early (arrival or byte counts)" +
                   repeated_copy_hint(r);
          });
          return false;
        }
        break;
      }
      case StepKind::Release:
        if (async_reader(s, r, st.stage, t) >= 0) {
          report(Rule::D13_DmaOrdering, t, r, st.node, id, [&] {
            return "releases stage " + to_str(st.stage) +
                   " while its asynchronous reads of it (wgmma or TMA store) may still be in "
                   "flight: retire them with ts::wgmma_wait<N>(ctx) / ts::bulk_wait_read<N>(ctx) "
                   "before release()";
          });
          return false;
        }
        if (!arrive(s, r, st.stage, false, st.arrivals, t, st.node, id)) return false;
        break;
      case StepKind::ProduceWork: {
        if (!holds(programs_[t], pc, r, st.stage, true)) {
          report(Rule::M3_StageOwnership, t, r, st.node, id, [&] {
            return "writes stage " + to_str(st.stage) +
                   " without owning it (no acquire() since its last commit())";
          });
          return false;
        }
        // (No structured bindings here: nvcc's front end cannot read them in constant evaluation.)
        if (std::pair<int, int> const use = aliased_use(s, t, r, st.stage, false); use.first >= 0) {
          int const r2 = use.first, o = use.second;
          report(Rule::M4_StageRace, t, r, st.node, id, [&] {
            return "writes stage " + to_str(st.stage) + ", whose bytes it shares with `" +
                   std::string(resource_name(m_, r2)) + "` (alias group), while " +
                   (o >= 0 ? "task `" + task_name(o) + "` uses it"
                           : std::string("a copy into it is in flight"));
          });
          return false;
        }
        if (int const o = owner(s, t, r, st.stage, false); o >= 0) {
          report(Rule::M4_StageRace, t, r, st.node, id, [&] {
            return "writes stage " + to_str(st.stage) + " while task `" + task_name(o) +
                   "` reads it";
          });
          return false;
        }
        if (int const o = async_reader(s, r, st.stage); o >= 0) {
          report(Rule::M4_StageRace, t, r, st.node, id, [&] {
            return "writes stage " + to_str(st.stage) + " while task `" + task_name(o) +
                   "`'s asynchronous (wgmma) reads of it are in flight";
          });
          return false;
        }
        if (st.tx_units > 0)
          s[layout_.slot(r, st.stage, detail::InFlight)] = static_cast<std::int16_t>(
              s[layout_.slot(r, st.stage, detail::InFlight)] + st.tx_units);
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
        int const o = owner(s, t, r, st.stage, true);
        if (o >= 0 || s[layout_.slot(r, st.stage, detail::InFlight)] > 0) {
          report(Rule::M4_StageRace, t, r, st.node, id, [&] {
            return "reads stage " + to_str(st.stage) + " while " +
                   (o >= 0
                        ? "task `" + task_name(o) + "` writes it"
                        : std::string("a TMA copy into it is in flight") + repeated_copy_hint(r));
          });
          return false;
        }
        if (std::pair<int, int> const use = aliased_use(s, t, r, st.stage, true); use.first >= 0) {
          int const r2 = use.first, o2 = use.second;
          report(Rule::M4_StageRace, t, r, st.node, id, [&] {
            return "reads stage " + to_str(st.stage) + ", whose bytes it shares with `" +
                   std::string(resource_name(m_, r2)) + "` (alias group), while " +
                   (o2 >= 0 ? "task `" + task_name(o2) + "` writes it"
                            : std::string("a copy into it is in flight"));
          });
          return false;
        }
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
        op = st.node >= 0 ? std::string(op_name(m_.tasks[task].schedule.nodes[st.node])) + "()"
                          : "work()";
        break;
      default:
        op = op_text(st);
    }
    bool const skip = st.node >= 0 && m_.tasks[task].schedule.nodes[st.node].op == OpKind::Skip;
    std::string where =
        st.kind == StepKind::Local && !skip ? std::string() : " [stage " + to_str(st.stage) + "]";
    return res + "." + op + where;
  }

 private:
  ManagerModel const& m_;
  Scenario sc_;
  ModelCheckOptions opt_;
  std::vector<Program> programs_;
  detail::Layout layout_;
  std::vector<detail::Edge> edges_;
  std::vector<detail::Finding> findings_;
  detail::StateTable table_{1};
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
