// warploom/harness/peer_comparison.hpp
//
// Ours against the best peer, per shape: each of our contenders' measure (median time, or kernel
// cycles under Nsight Compute) over the best peer's. Issue targets are written this way ("at least
// match the best of cuBLAS, cuBLASLt and CUTLASS"), so the bench prints the ratios instead of
// leaving them to a script over its JSON.
//
//   std::vector<Measured> m = {{"warploom", false, 0.191}, {"cublas", true, 0.207},
//                              {"cutlass_pp", true, 0.195}};
//   compare_with_best_peer(m)->describe("ms")
//     -> "vs best peer (cutlass_pp 0.195 ms): warploom 0.979"
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warploom::harness {

// One contender's measure; lower is better (a time, a cycle count).
struct Measured {
  std::string name;
  bool peer = false;  // another library's kernel (PlanProvider::peer)
  double value = 0;
};

struct PeerComparison {
  std::string best_peer;  // the peer with the lowest value (the first of equals)
  double best_peer_value = 0;
  // Each of ours, in the given order: its value over the best peer's (below 1: ahead of it).
  std::vector<std::pair<std::string, double>> ratios;

  // "vs best peer (<peer> <value> <unit>): <ours> <ratio>, ..." with three decimals.
  std::string describe(std::string_view unit) const;
};

// nullopt without a peer or without one of ours. Values that are not positive (not measured) are
// left out on both sides.
std::optional<PeerComparison> compare_with_best_peer(std::span<Measured const> measured);

}  // namespace warploom::harness
