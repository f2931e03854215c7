// warploom/harness/progress.hpp
//
// Progress of a long run (sweeps, autotuning): one line per finished step with the count, the
// elapsed time and an estimate of the rest, so that a 20-minute sweep says where it is.
#pragma once

#include <chrono>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace warploom::harness {

class Progress {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // `total` steps of `what` (e.g. "shapes"), reported on `out`. `clock` is for tests.
  Progress(
      std::ostream& out, int total, std::string what,
      Clock clock = [] { return std::chrono::steady_clock::now(); });

  // Step `done() + 1` finished: prints "[3/40 shapes] 8192x8192x1024: 12 s, about 2 min left".
  // Throws std::logic_error past `total` steps.
  void step(std::string_view label);

  int done() const { return done_; }

 private:
  std::ostream& out_;
  int total_;
  std::string what_;
  Clock clock_;
  std::chrono::steady_clock::time_point start_;
  int done_ = 0;
};

// "45 s", "3 min", "1 h 20 min": a duration as a person reads it.
std::string human_duration(std::chrono::duration<double> d);

}  // namespace warploom::harness
