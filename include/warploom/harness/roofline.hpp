// warploom/harness/roofline.hpp
//
// Every result as a fraction of its roofline bound: the least time the machine's two ceilings
// (arithmetic throughput, memory bandwidth), both measured in the same run, allow for the work
// the problem needs.
#pragma once

#include <string_view>

namespace warploom::harness {

// What a problem needs, independent of how a kernel does it: 2MNK flops for a GEMM; each input
// read once and each output written once, in bytes.
struct Work {
  double flops = 0;
  double bytes = 0;
};

// The ceilings, measured: e.g. a large cuBLAS GEMM (flop/s) and a device-to-device copy (bytes/s,
// read + written).
struct Ceilings {
  double flops_per_s = 0;
  double bytes_per_s = 0;

  // The arithmetic intensity (flop/byte) above which compute, not memory, bounds a kernel.
  double ridge() const { return flops_per_s / bytes_per_s; }
};

enum class Bound { Compute, Memory };
std::string_view to_string(Bound b);

struct RooflinePoint {
  double intensity = 0;  // flops per byte of the work (infinite for work without bytes)
  Bound bound = Bound::Compute;
  double bound_seconds = 0;  // max(flops / flops_per_s, bytes / bytes_per_s)
  double achieved_flops_per_s = 0;
  double achieved_bytes_per_s = 0;
  double fraction_of_bound = 0;  // bound_seconds / seconds: 1 is on the roofline
};

// `work` done in `seconds` against `ceilings`. Throws std::invalid_argument (naming the value)
// when seconds or a ceiling is not positive, or the work is negative or empty.
RooflinePoint roofline(Work const& work, double seconds, Ceilings const& ceilings);

}  // namespace warploom::harness
