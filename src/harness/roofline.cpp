// src/harness/roofline.cpp
#include "warploom/harness/roofline.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace warploom::harness {
namespace {

void require_positive(double v, char const* name) {
  if (!(v > 0.0))
    throw std::invalid_argument(std::string(name) + " = " + std::to_string(v) +
                                " must be positive");
}

}  // namespace

std::string_view to_string(Bound b) {
  return b == Bound::Compute ? "compute" : "memory";
}

RooflinePoint roofline(Work const& work, double seconds, Ceilings const& ceilings) {
  require_positive(seconds, "seconds");
  require_positive(ceilings.flops_per_s, "ceilings.flops_per_s");
  require_positive(ceilings.bytes_per_s, "ceilings.bytes_per_s");
  if (work.flops < 0.0 || work.bytes < 0.0 || (work.flops == 0.0 && work.bytes == 0.0))
    throw std::invalid_argument("work = {flops " + std::to_string(work.flops) + ", bytes " +
                                std::to_string(work.bytes) +
                                "} must be non-negative and not both zero");
  double const compute_s = work.flops / ceilings.flops_per_s;
  double const memory_s = work.bytes / ceilings.bytes_per_s;
  RooflinePoint p;
  p.intensity =
      work.bytes > 0.0 ? work.flops / work.bytes : std::numeric_limits<double>::infinity();
  p.bound = compute_s >= memory_s ? Bound::Compute : Bound::Memory;
  p.bound_seconds = std::max(compute_s, memory_s);
  p.achieved_flops_per_s = work.flops / seconds;
  p.achieved_bytes_per_s = work.bytes / seconds;
  p.fraction_of_bound = p.bound_seconds / seconds;
  return p;
}

}  // namespace warploom::harness
