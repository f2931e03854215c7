// warploom/harness/rotation.hpp
//
// Input rotation: a benchmark cycles through several copies of its inputs so that a timed run
// finds its data in DRAM, as it would in an application, not in the L2 left warm by the previous
// run of the same inputs.
#pragma once

#include <cstddef>

namespace warploom::harness {

struct Rotation {
  int sets = 1;                 // input sets to cycle through
  std::size_t cycle_bytes = 0;  // bytes one cycle through all sets touches: sets x bytes per set
  bool capped = false;          // max_sets stopped short of `factor` x L2
};

// The fewest input sets of `bytes_per_set` each whose cycle touches at least `factor` x
// `l2_bytes` (so each set's data has left the L2 before its next run), at most `max_sets` (then
// `capped`). Throws std::invalid_argument for bytes_per_set == 0, factor <= 0 or max_sets < 1.
Rotation plan_rotation(std::size_t bytes_per_set, std::size_t l2_bytes, double factor = 2.0,
                       int max_sets = 16);

}  // namespace warploom::harness
