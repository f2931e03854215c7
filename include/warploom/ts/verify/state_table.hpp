// warploom/ts/verify/state_table.hpp
//
// The model checker's states: one flat vector of int16 per state, laid out by `Layout`, kept in a
// hash set that lives in one arena (`StateTable`). Both work in constant expressions, so small
// schedules are model-checked while their kernel compiles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace warploom::ts::verify::detail {

// Flat int16 vector: [pc per task][try flags per task][per resource, per stage: full parity,
// full pending, full tx, empty parity, empty pending, tma in flight]. In a cluster, "task" is a
// task of one CTA (cta * tasks-per-CTA + task) and "resource" one CTA's copy of a resource's
// barriers and stages (cta * resources + resource), CTA 0 first.
struct Layout {
  int tasks = 0;
  std::vector<int> res_base;  // offset of each pipelined resource's stage block, -1 if none
  std::vector<int> stages;
  int size = 0;
  static constexpr int kPerStage = 6;
  constexpr int pc(int t) const { return t; }
  constexpr int flags(int t) const { return tasks + t; }
  constexpr int slot(int r, int stage, int field) const {
    return res_base[r] + stage * kPerStage + field;
  }
};
enum Field : int { FullParity = 0, FullPending, FullTx, EmptyParity, EmptyPending, InFlight };

// A set of fixed-size states in one arena, open addressing; usable in constant expressions.
class StateTable {
 public:
  constexpr explicit StateTable(int width) : width_(width), slots_(1 << 12, -1) {}
  // Index of `s`, inserting it if new (`inserted` says which).
  constexpr int find_or_insert(std::vector<std::int16_t> const& s, bool& inserted) {
    if ((count_ + 1) * 2 > static_cast<long long>(slots_.size())) grow();
    std::size_t mask = slots_.size() - 1, h = hash(s.data()) & mask;
    while (slots_[h] >= 0) {
      if (equal(slots_[h], s.data())) {
        inserted = false;
        return slots_[h];
      }
      h = (h + 1) & mask;
    }
    int const id = static_cast<int>(count_++);
    arena_.insert(arena_.end(), s.begin(), s.end());
    slots_[h] = id;
    inserted = true;
    return id;
  }
  constexpr std::vector<std::int16_t> get(int id) const {
    return std::vector<std::int16_t>(arena_.begin() + static_cast<long>(id) * width_,
                                     arena_.begin() + static_cast<long>(id + 1) * width_);
  }
  constexpr long long size() const { return count_; }

 private:
  constexpr std::size_t hash(std::int16_t const* p) const {
    std::uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < width_; ++i) {
      h ^= static_cast<std::uint16_t>(p[i]);
      h *= 1099511628211ull;
    }
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
  constexpr bool equal(int id, std::int16_t const* p) const {
    for (int i = 0; i < width_; ++i)
      if (arena_[static_cast<std::size_t>(id) * width_ + i] != p[i]) return false;
    return true;
  }
  constexpr void grow() {
    std::vector<int> bigger(slots_.size() * 2, -1);
    std::size_t mask = bigger.size() - 1;
    for (long long id = 0; id < count_; ++id) {
      std::size_t h = hash(arena_.data() + id * width_) & mask;
      while (bigger[h] >= 0) h = (h + 1) & mask;
      bigger[h] = static_cast<int>(id);
    }
    slots_ = std::move(bigger);
  }

  int width_;
  std::vector<int> slots_;
  std::vector<std::int16_t> arena_;
  long long count_ = 0;
};

}  // namespace warploom::ts::verify::detail
