// warploom/ts/verify/model_check_options.hpp
//
// The model checker's knobs and counters, apart from the checker itself, so that code which only
// calls the compiled verifier (warploom/ts/verifier.hpp) does not parse the engine.
#pragma once

namespace warploom::ts {

struct ModelCheckOptions {
  long long max_states = 4'000'000;  // per scenario
  bool allow_undecided = false;      // if true, hitting max_states is reported but not an error
  int max_findings = 8;
  // Run-time loops run 0, 1, 2 and stages+1 times; a smaller cap limits the scenarios (the
  // compile-time check uses 2).
  int max_runtime_trips = 1 << 30;
  // Reductions (docs/verification/README.md §3): a step touching nothing shared runs alone, and
  // a task runs from one synchronisation point to the next as one transition, cut where another
  // task could observe it; the persistent sets of §7 (below), and in a modelled cluster its
  // symmetry. Off: every step of every task is its own transition, every CTA numbered — the
  // reference the reduced search is tested against (same verdicts on the whole corpus).
  bool reduce = true;
  // With `reduce`, the persistent sets built from what each step touches (README §7: a CTA ahead of
  // its peers, sets grown from one transition), for one CTA as for a cluster, at run time and in
  // the compile-time gate. Off: the segments, silent landings and CTA-local sets alone — the
  // search the grown sets are tested against where the unreduced one is out of reach (the corpus,
  // same verdicts).
  bool grown_sets = true;
  // Model a multicast pipeline's cluster: one copy of the task set per CTA (TaskManager::
  // cluster_size), per-CTA barriers, multicast copies and remote releases, per-CTA trip counts
  // (ts::per_cta). Off: one CTA, its empty barrier completed by its own releases alone (a peer
  // assumed to release when it does). Opt-in (`warploom verify --clusters`): with the reductions
  // of README §7 every bundled clustered GEMM is decided in a few thousand states, but the
  // compile-time gate still checks one CTA.
  bool model_clusters = false;
};

// The compile-time gate's search (ts::verified_at_compile_time): run-time loops run 0, 1 and 2
// times, at most `max_states` states a scenario (ManagerOptions::compile_time_model_check_states),
// an undecided check passes (the host check before the first launch decides it), the first finding
// is enough, and a cluster is modelled CTA by CTA.
constexpr ModelCheckOptions compile_time_check_options(long long max_states) {
  ModelCheckOptions opt;
  opt.max_states = max_states;
  opt.allow_undecided = true;
  opt.max_findings = 1;
  opt.max_runtime_trips = 2;
  opt.model_clusters = true;
  return opt;
}

struct ModelCheckStats {
  long long states = 0;  // distinct states, all scenarios
  int scenarios = 0;
  bool decided = true;
};

}  // namespace warploom::ts
