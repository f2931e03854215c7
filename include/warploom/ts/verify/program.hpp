// warploom/ts/verify/program.hpp
//
// The model checker's view of one task: its schedule unrolled for one scenario (a trip count for
// every loop) into a straight-line program of pipeline steps. Each step already knows the stage
// and phase parity it uses, because a task's pipeline cursors depend only on its own program
// (index and phase advance at commit and release, as on the device). The producer tail the
// TaskManager emits at task end is part of the program.
//
// Scenarios: every run-time loop gets a trip count; loops of different tasks over the same domain
// (bounds that are the same quantity) share it (see LoopKeys).
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string_view>
#include <utility>
#include <vector>

#include "warploom/ts/model.hpp"
#include "warploom/ts/verify/context.hpp"
#include "warploom/ts/verify/walk.hpp"

namespace warploom::ts::verify {

enum class StepKind : std::uint8_t {
  TryAcquire,
  Acquire,
  Commit,
  TryWait,
  Wait,
  Release,
  ProduceWork,
  ConsumeWork,
  Tail,       // producer tail: wait until a stage was released (emitted at task end)
  AsyncWait,  // retire the task's asynchronous reads but the `arrivals` most recent
  Local,      // touches nothing shared: work on unpipelined resources, auxiliary work
  // Auxiliary consumer work on a ring read asynchronously (tma_wgmma, async_tma): it sets up the
  // stage's descriptor for the next asynchronous read of its unit the task issues, so that read
  // (one wgmma reading A and B) also reads this stage, from its issue until a ts::wgmma_wait
  // retires it (R-D13, R-M4). The step itself touches nothing.
  AsyncOperand,
};

struct Step {
  StepKind kind = StepKind::Local;
  int node = -1;  // schedule node, for names (-1: the producer tail)
  int resource = -1;
  int stage = 0;
  int parity = 0;    // the phase parity waited on (acquire, wait, tail)
  int arrivals = 0;  // arrivals the step makes on its barrier
  int tx_units = 0;  // TMA: transaction groups the acquire arms / the work starts (the last
                     // work of the acquire..commit bracket only)
  int unit = 0;      // AsyncWait and asynchronous consumer work: the AsyncReader
  int operands = 0;  // asynchronous consumer work: the AsyncOperand steps before it whose
                     // stages it reads too (the latest `operands` of its unit)
};

// Which stage a task owns between acquire..commit (producer) or wait..release (consumer).
struct Hold {
  int resource = -1;
  int stage = 0;
  bool producer = false;
};

struct Program {
  std::vector<Step> steps;
  std::vector<std::vector<Hold>> holds;  // holds[pc]: stages owned before steps[pc] runs
};

// A scenario: one trip count per run-time loop key (see LoopKeys).
struct Scenario {
  std::vector<int> runtime_trips;
  // Every tile is one the work queue's skip predicate skips: skippable blocks do not run.
  bool skipped_tiles = false;
  // In a cluster whose loops have ts::per_cta bounds: each CTA's trip counts (empty: every CTA
  // runs runtime_trips).
  std::vector<std::vector<int>> cta_trips = {};
  constexpr int trips(int key) const {
    if (runtime_trips.empty() || key < 0) return 0;
    return key < static_cast<int>(runtime_trips.size()) ? runtime_trips[key] : runtime_trips.back();
  }
  // The scenario as CTA `cta` of the cluster runs it.
  constexpr Scenario for_cta(int cta) const {
    Scenario sc = *this;
    if (cta < static_cast<int>(cta_trips.size())) sc.runtime_trips = cta_trips[cta];
    sc.cta_trips.clear();
    return sc;
  }
};

// Whether two run-time bounds are the same quantity: the same value in the capture and in both
// probe captures (size_probe.hpp: the same resource fields, combined the same way), and for a
// data bound the same source (LoopKeys: the same work on the same arguments).
constexpr bool same_quantity(Bound const& a, Bound const& b) {
  return a.value == b.value && a.in_probe(0) == b.in_probe(0) && a.in_probe(1) == b.in_probe(1) &&
         a.source == b.source;
}

// Which run-time loops of different tasks run the same number of times. A loop is keyed by its
// depth among run-time loops and its bounds as quantities (same_quantity): a load task's and a
// store task's loops over the same field share a key; loops over two fields (n and m, even when
// both default to 0), a tile loop and the k-loop inside it, and loops whose bounds differ
// (n + 1 against n) vary independently. In a key, a data bound's `source` names its value across
// tasks (DataSources), not a node of one task's schedule.
struct LoopKey {
  int depth = 0;
  Bound start, end, step;
  // A run-time 0 and a compile-time 0 (`domain_loop(n)` against `domain_loop(0, n, 1)`) are the
  // same bound.
  constexpr bool operator==(LoopKey const& o) const {
    return depth == o.depth && same_quantity(start, o.start) && same_quantity(end, o.end) &&
           same_quantity(step, o.step);
  }
};

struct LoopKeys {
  std::vector<LoopKey> keys;
  std::vector<std::vector<int>> node_key;  // [task][node]: key of a run-time loop node, else -1
};

namespace detail {

// The values data bounds come from, across tasks. A consumer work's result is a function of its
// resource, its arguments and its stage info (the loop offset of the iteration it runs in), so two
// calls give the same value when they call the same work of the same resource, without plain
// arguments, on arguments of the same values, in iterations of the same run-time loop domain:
// ping-pong's load task and MMA warpgroups each ask `k_tiles_of` of `next_share<0>`'s tile in the
// same pair loop. Anything else (a plain argument, a task-local variable, a value written into one)
// is a value of its own.
struct DataValue {
  int task = -1;  // a value of its own: its task and node; else -1
  int node = -1;
  int resource = -1;
  std::string_view label;
  void const* work = nullptr;
  int loop_key = -1;                      // innermost enclosing run-time loop's key, or -1
  std::vector<std::pair<int, int>> args;  // (argument index, DataValue)
  constexpr bool operator==(DataValue const& o) const {
    return task == o.task && node == o.node && resource == o.resource && label == o.label &&
           work == o.work && loop_key == o.loop_key && args == o.args;
  }
};

struct DataSources {
  std::vector<DataValue> values;

  constexpr int id(DataValue const& v) {
    for (int i = 0; i < static_cast<int>(values.size()); ++i)
      if (values[i] == v) return i;
    values.push_back(v);
    return static_cast<int>(values.size()) - 1;
  }

  // The value node `node` of task `task`'s schedule produces; `keys` keys its enclosing loops.
  constexpr int of(Schedule const& s, int task, int node, std::vector<int> const& keys) {
    Node const& n = s.nodes[node];
    DataValue v;
    bool own = n.kind != NodeKind::Op || n.op != OpKind::Work || n.plain_args != 0;
    for (DataEdge const& e : s.edges)
      own = own || (e.from == node && e.arg < 0);  // written into a task-local variable
    if (own) {
      v.task = task;
      v.node = node;
      return id(v);
    }
    v.resource = n.resource;
    v.label = n.label;
    v.work = n.work;
    for (int p = n.parent; p >= 0 && v.loop_key < 0; p = s.nodes[p].parent) v.loop_key = keys[p];
    for (DataEdge const& e : s.edges)
      if (e.to == node && e.arg >= 0) v.args.push_back({e.arg, of(s, task, e.from, keys)});
    std::sort(v.args.begin(), v.args.end());
    return id(v);
  }
};

}  // namespace detail

constexpr LoopKeys loop_keys(ManagerModel const& m) {
  LoopKeys out;
  detail::DataSources sources;
  for (int task = 0; task < static_cast<int>(m.tasks.size()); ++task) {
    Schedule const& s = m.tasks[task].schedule;
    std::vector<int> node_key(s.nodes.size(), -1);
    for (int i = 0; i < static_cast<int>(s.nodes.size()); ++i) {
      if (!is_runtime_loop(s.nodes[i])) continue;
      int depth = 0;
      for (int p = s.nodes[i].parent; p >= 0; p = s.nodes[p].parent)
        if (is_runtime_loop(s.nodes[p])) ++depth;
      LoopKey k{depth, s.nodes[i].start, s.nodes[i].end, s.nodes[i].step};
      for (Bound* b : {&k.start, &k.end, &k.step})
        if (b->source >= 0) b->source = sources.of(s, task, b->source, node_key);
      int found = -1;
      for (int j = 0; j < static_cast<int>(out.keys.size()); ++j)
        if (out.keys[j] == k) found = j;
      if (found < 0) {
        out.keys.push_back(k);
        found = static_cast<int>(out.keys.size()) - 1;
      }
      // A promise made by one loop over the domain holds for all (ts::multiple_of, ts::at_least),
      // and so does a bound that differs per CTA (ts::per_cta): in one CTA the same quantity is
      // the same value.
      Bound& end = out.keys[found].end;
      end.multiple = static_cast<int>(std::lcm(end.multiple, k.end.multiple));
      end.at_least = std::max(end.at_least, k.end.at_least);
      end.per_cta = end.per_cta || k.start.per_cta || k.end.per_cta || k.step.per_cta;
      node_key[i] = found;
    }
    out.node_key.push_back(node_key);
  }
  return out;
}

namespace detail {

struct Cursor {
  int index = 0;
  int parity = 0;
};

constexpr void advance(Cursor& c, int stages) {
  if (++c.index == stages) {
    c.index = 0;
    c.parity ^= 1;
  }
}

constexpr int agent_arrivals(CooperativeGroup g, int warps) {
  return g.agent == Agent::Warp ? warps : warps * kThreadsPerWarp;
}

// Whether work calls `a` and `b` are the same call: one work of one resource (the same member
// function, not only the same name: put_part<0> and put_part<1> share theirs), no plain
// arguments, and the same data-flow source for every argument. A work is a function of its stage
// info and its arguments, so in one loop iteration two such calls do the same: on a TMA ring,
// copy the same bytes into the stage.
constexpr bool same_call(Schedule const& s, int a, int b) {
  Node const& x = s.nodes[a];
  Node const& y = s.nodes[b];
  if (x.label != y.label || x.work != y.work || x.resource != y.resource || x.plain_args != 0 ||
      y.plain_args != 0)
    return false;
  for (DataEdge const& e : s.edges) {
    if (e.arg < 0 || (e.to != a && e.to != b)) continue;
    int const other = e.to == a ? b : a;
    bool found = false;
    for (DataEdge const& f : s.edges)
      found = found || (f.to == other && f.arg == e.arg && f.from == e.from);
    if (!found) return false;
  }
  return true;
}

}  // namespace detail

constexpr Program build_program(ManagerModel const& m, int task, LoopKeys const& loop_keys,
                                Scenario const& sc) {
  TaskModel const& t = m.tasks[task];
  Schedule const& s = t.schedule;
  std::vector<int> const& keys = loop_keys.node_key[task];
  std::vector<int> stamps;  // [k]: ops[k]'s loop-iteration stamp
  std::vector<int> const ops = flatten_with(
      s,
      [&](int node) {
        Node const& n = s.nodes[node];
        if (keys[node] >= 0) return runtime_trip_count(n, sc.trips(keys[node]));
        long long const c = static_trip_count(n);
        return static_cast<int>(c);
      },
      &stamps, sc.skipped_tiles);
  int const num_res = static_cast<int>(m.resources.size());
  // Cursors as on the device (device/context.hpp): acquire and wait always; commit and release
  // separately under advance_on_acquire / advance_on_wait, with the stage a work owns being the
  // one last acquired / waited on.
  std::vector<detail::Cursor> acq(num_res, detail::Cursor{0, 1}),
      cmt(num_res, detail::Cursor{0, 1});
  std::vector<detail::Cursor> wai(num_res, detail::Cursor{0, 0}),
      rel(num_res, detail::Cursor{0, 0});
  std::vector<detail::Cursor> owned_p(num_res, detail::Cursor{0, 1});
  std::vector<detail::Cursor> owned_c(num_res, detail::Cursor{0, 0});
  // The step of the latest TMA work since the last acquire (-1: none). A bracket's copies land as
  // one transaction group, issued with its last work: every copy of the bracket is under way
  // before the group can complete the phase (issuing it with the first would let the phase
  // complete between a stage's A and B loads, which the hardware cannot do: the bytes of both are
  // armed).
  std::vector<int> last_copy(num_res, -1);
  // The bracket's copies as (node, stamp), and how many of them repeat an earlier one: the same
  // call in the same iteration copies the same bytes again, a transaction group the acquire did
  // not arm (its bytes are one stage's, R-D16), so the phase completes with a copy still landing.
  std::vector<std::vector<std::pair<int, int>>> copies(num_res);
  std::vector<int> repeats(num_res, 0);
  // Descriptors set up (AsyncOperand) since the task's last asynchronous read, per unit.
  std::vector<int> pending_operands(3, 0);
  Program p;
  int const warps = t.spec.num_warps;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    int const id = ops[k];
    Node const& n = s.nodes[id];
    Step st{};
    st.node = id;
    st.resource = n.resource;
    if (n.op == OpKind::AsyncWait) {
      st.kind = StepKind::AsyncWait;
      st.arrivals = n.keep;  // reads kept in flight
      st.unit = n.unit;
      p.steps.push_back(st);
      continue;
    }
    bool const valid = n.resource >= 0 && n.resource < num_res;
    PipelineConfig const cfg = valid ? m.resources[n.resource].pipeline : PipelineConfig{};
    bool const operand = n.op == OpKind::Work && n.role == Role::ConsumerAux && cfg.dma_consumer();
    if (!cfg.enabled() || (n.op == OpKind::Work && is_auxiliary(n.role) && !operand)) {
      st.kind = StepKind::Local;
      p.steps.push_back(st);
      continue;
    }
    int const S = cfg.num_stages;
    int const r = n.resource;
    detail::Cursor& commit_cursor = cfg.advance_on_acquire ? cmt[r] : acq[r];
    detail::Cursor& release_cursor = cfg.advance_on_wait ? rel[r] : wai[r];
    detail::Cursor const producer_stage = cfg.advance_on_acquire ? owned_p[r] : acq[r];
    detail::Cursor const consumer_stage = cfg.advance_on_wait ? owned_c[r] : wai[r];
    // A Fork's shared full barrier is armed once per fill, by the acquire of its first member.
    bool const arms = cfg.tma_producer() &&
                      (full_owner(m, r) == r || members_of(m, full_owner(m, r)).front() == r);
    int const tma_units = arms ? warps : 0;
    // A group op moves every member's cursor on its side with the group's own (they stay in step:
    // a member's release (Merge) or commit (Fork) cursor moves only by the group op, R-D25).
    bool const group = m.resources[r].kind == ResourceKind::Group;
    auto advance_members = [&](bool consumer) {
      for (int member : members_of(m, r)) {
        PipelineConfig const mc = m.resources[member].pipeline;
        if (consumer)
          detail::advance(mc.advance_on_wait ? rel[member] : wai[member], S);
        else
          detail::advance(mc.advance_on_acquire ? cmt[member] : acq[member], S);
      }
    };
    switch (n.op) {
      case OpKind::TryAcquire:
        st = {StepKind::TryAcquire, id, r, acq[r].index, acq[r].parity, 0, 0};
        break;
      case OpKind::Acquire:
        // TMA: every producing warp's elected lane arrives, arming the stage's bytes; the copies
        // the bracket's works issue land as one transaction group (R-D16 checks the byte sum).
        st = {StepKind::Acquire, id, r, acq[r].index, acq[r].parity, tma_units, arms ? 1 : 0};
        last_copy[r] = -1;
        copies[r].clear();
        repeats[r] = 0;
        if (cfg.advance_on_acquire) {
          owned_p[r] = acq[r];
          detail::advance(acq[r], S);
        }
        break;
      case OpKind::Commit: {
        int const arrivals = cfg.tma_producer() ? 0 : detail::agent_arrivals(cfg.producer, warps);
        st = {StepKind::Commit, id, r, commit_cursor.index, commit_cursor.parity, arrivals, 0};
        detail::advance(commit_cursor, S);
        if (group) advance_members(false);
        break;
      }
      case OpKind::TryWait:
        st = {StepKind::TryWait, id, r, wai[r].index, wai[r].parity, 0, 0};
        break;
      case OpKind::Wait:
        st = {StepKind::Wait, id, r, wai[r].index, wai[r].parity, 0, 0};
        if (cfg.advance_on_wait) {
          owned_c[r] = wai[r];
          detail::advance(wai[r], S);
        }
        break;
      case OpKind::Release: {
        int const arrivals = detail::agent_arrivals(cfg.consumer, warps);
        st = {StepKind::Release, id, r, release_cursor.index, release_cursor.parity, arrivals, 0};
        detail::advance(release_cursor, S);
        if (group) advance_members(true);
        break;
      }
      case OpKind::Skip:
        // Another consumer task takes this stage: the task's cursors pass it, touching nothing.
        st = {StepKind::Local, id, r, wai[r].index, wai[r].parity, 0, 0};
        detail::advance(wai[r], S);
        if (cfg.advance_on_wait) detail::advance(rel[r], S);
        break;
      case OpKind::AsyncWait:
        break;
      case OpKind::Work:
        if (operand) {
          st = {StepKind::AsyncOperand, id, r, consumer_stage.index,
                consumer_stage.parity,  0,  0, static_cast<int>(cfg.async_reader())};
          ++pending_operands[st.unit];
        } else if (is_producer_side(n.role)) {
          st = {StepKind::ProduceWork,     id, r, producer_stage.index, producer_stage.parity, 0,
                cfg.tma_producer() ? 1 : 0};
          if (arms) {  // a Fork's other members are written by the same fill, not a copy of theirs
            for (auto const& c : copies[r]) {
              if (c.second == stamps[k] && detail::same_call(s, c.first, id)) {
                ++repeats[r];
                break;
              }
            }
            copies[r].push_back({id, stamps[k]});
            if (last_copy[r] >= 0) p.steps[last_copy[r]].tx_units = 0;
            last_copy[r] = static_cast<int>(p.steps.size());
            st.tx_units = 1 + repeats[r];
          }
        } else {
          int const unit = static_cast<int>(cfg.async_reader());
          st = {StepKind::ConsumeWork, id, r, consumer_stage.index,
                consumer_stage.parity, 0,  0, unit};
          if (cfg.dma_consumer()) {
            st.operands = pending_operands[unit];
            pending_operands[unit] = 0;
          }
        }
        break;
    }
    p.steps.push_back(st);
  }
  // The producer tail the TaskManager emits for the pipelined resources the task produces (not
  // for a one-CTA ordering token, see drains_at_exit; a warp role's, for those it fills).
  for (int r : t.dst) {
    PipelineConfig const cfg = m.resources[r].pipeline;
    if (!drains_at_exit(m.resources[r].kind, cfg)) continue;
    if (t.role >= 0 && !fills(t.schedule, r)) continue;  // a warp role drains only what it fills
    detail::Cursor c = acq[r];
    for (int i = 0; i < cfg.num_stages; ++i) {
      p.steps.push_back({StepKind::Tail, -1, r, c.index, c.parity, 0, 0});
      detail::advance(c, cfg.num_stages);
    }
  }
  // Ownership before each step.
  std::vector<Hold> held;
  auto drop = [&](int res, int stage, bool producer) {
    for (std::size_t i = 0; i < held.size(); ++i) {
      if (held[i].resource == res && held[i].stage == stage && held[i].producer == producer) {
        held.erase(held.begin() + static_cast<long>(i));
        return;
      }
    }
  };
  // A monitor (a task that waits on a resource and never releases it) owns a waited stage only
  // while it reads it: from the wait to its last read of that stage before its next wait on the
  // resource (no read: not at all). Its stages are refilled once the releasing consumers are done,
  // so a read the refill can overtake is a race (R-M4) and a lapped wait a hang or stale pass.
  int const num_steps = static_cast<int>(p.steps.size());
  std::vector<bool> monitored(num_res, false);
  for (int r = 0; r < num_res; ++r) monitored[r] = monitors(m, t, r);
  std::vector<int> monitor_read_end(num_steps, -1);  // [wait pc]: pc of the last read, or -1
  for (int i = 0; i < num_steps; ++i) {
    Step const& w = p.steps[i];
    if (w.kind != StepKind::Wait || !monitored[w.resource]) continue;
    for (int j = i + 1; j < num_steps; ++j) {
      Step const& x = p.steps[j];
      if (x.resource != w.resource) continue;
      if (x.kind == StepKind::Wait) break;
      if (x.kind == StepKind::ConsumeWork && x.stage == w.stage) monitor_read_end[i] = j;
    }
  }
  std::vector<bool> monitor_drop_after(num_steps, false);
  for (int i = 0; i < num_steps; ++i)
    if (monitor_read_end[i] >= 0) monitor_drop_after[monitor_read_end[i]] = true;
  for (int i = 0; i < num_steps; ++i) {
    Step const& st = p.steps[i];
    p.holds.push_back(held);
    bool const monitor = st.kind == StepKind::Wait && monitored[st.resource];
    if (st.kind == StepKind::Acquire) held.push_back({st.resource, st.stage, true});
    if (st.kind == StepKind::Commit) drop(st.resource, st.stage, true);
    if (st.resource >= 0 && m.resources[st.resource].kind == ResourceKind::Group &&
        (st.kind == StepKind::Commit || st.kind == StepKind::Release))
      for (int member : members_of(m, st.resource))
        drop(member, st.stage, st.kind == StepKind::Commit);
    if (st.kind == StepKind::Wait && (!monitor || monitor_read_end[i] >= 0))
      held.push_back({st.resource, st.stage, false});
    if (st.kind == StepKind::Release) drop(st.resource, st.stage, false);
    if (monitor_drop_after[i]) drop(st.resource, st.stage, false);
  }
  p.holds.push_back(held);  // after the last step
  return p;
}

// Calls use(op) for each descriptor set up (AsyncOperand) whose stage the asynchronous consumer
// work at pc reads besides its own: the latest st.operands of its unit before it.
template <class Use>
constexpr void for_each_operand(Program const& p, int pc, Use&& use) {
  Step const& st = p.steps[static_cast<std::size_t>(pc)];
  int left = st.operands;
  for (int q = pc - 1; q >= 0 && left > 0; --q) {
    Step const& op = p.steps[static_cast<std::size_t>(q)];
    if (op.kind != StepKind::AsyncOperand || op.unit != st.unit) continue;
    use(op);
    --left;
  }
}

constexpr bool holds(Program const& p, int pc, int res, int stage, bool producer) {
  for (Hold const& h : p.holds[pc])
    if (h.resource == res && h.stage == stage && h.producer == producer) return true;
  return false;
}

}  // namespace warploom::ts::verify
