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
};

struct ModelCheckStats {
  long long states = 0;  // distinct states, all scenarios
  int scenarios = 0;
  bool decided = true;
};

}  // namespace warploom::ts
