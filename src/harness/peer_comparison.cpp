// src/harness/peer_comparison.cpp — warploom/harness/peer_comparison.hpp
#include "warploom/harness/peer_comparison.hpp"

#include <fmt/format.h>

namespace warploom::harness {

std::optional<PeerComparison> compare_with_best_peer(std::span<Measured const> measured) {
  Measured const* best = nullptr;
  for (Measured const& m : measured)
    if (m.peer && m.value > 0 && (best == nullptr || m.value < best->value)) best = &m;
  if (best == nullptr) return std::nullopt;
  PeerComparison c{best->name, best->value, {}};
  for (Measured const& m : measured)
    if (!m.peer && m.value > 0) c.ratios.emplace_back(m.name, m.value / best->value);
  if (c.ratios.empty()) return std::nullopt;
  return c;
}

std::string PeerComparison::describe(std::string_view unit) const {
  std::string s = fmt::format("vs best peer ({} {:.4g} {}):", best_peer, best_peer_value, unit);
  for (std::size_t i = 0; i < ratios.size(); ++i)
    s += fmt::format("{} {} {:.3f}", i == 0 ? "" : ",", ratios[i].first, ratios[i].second);
  return s;
}

}  // namespace warploom::harness
