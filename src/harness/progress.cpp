// src/harness/progress.cpp
#include "warploom/harness/progress.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace warploom::harness {

std::string human_duration(std::chrono::duration<double> d) {
  long long const s = std::llround(std::max(0.0, d.count()));
  if (s < 100) return std::to_string(s) + " s";
  long long const min = (s + 30) / 60;
  if (min < 90) return std::to_string(min) + " min";
  return std::to_string(min / 60) + " h " + std::to_string(min % 60) + " min";
}

Progress::Progress(std::ostream& out, int total, std::string what, Clock clock)
    : out_(out), total_(total), what_(std::move(what)), clock_(std::move(clock)), start_(clock_()) {
  if (total_ < 1) throw std::invalid_argument("total = " + std::to_string(total_) + " steps");
}

void Progress::step(std::string_view label) {
  if (done_ == total_)
    throw std::logic_error("Progress: step " + std::to_string(done_ + 1) + " of " +
                           std::to_string(total_) + " " + what_);
  ++done_;
  std::chrono::duration<double> const elapsed = clock_() - start_;
  out_ << "[" << done_ << "/" << total_ << " " << what_ << "] " << label << ": "
       << human_duration(elapsed);
  if (done_ < total_) {
    auto const left = elapsed * (static_cast<double>(total_ - done_) / done_);
    out_ << ", about " << human_duration(left) << " left";
  }
  out_ << "\n" << std::flush;
}

}  // namespace warploom::harness
