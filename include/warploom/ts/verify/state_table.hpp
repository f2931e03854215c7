// warploom/ts/verify/state_table.hpp
//
// The model checker's states: one flat vector of int16 per state, laid out by `Layout`, kept in a
// hash set that lives in one arena (`StateTable`). Both work in constant expressions, so small
// schedules are model-checked while their kernel compiles.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
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

// A set of fixed-size states in one arena of chunks, open addressing; usable in constant
// expressions. Each slot keeps its state's id and hash: a probe compares states only where the
// hashes agree (the arena is touched once per lookup, not once per probe), and growing rehashes
// nothing.
class StateTable {
 public:
  constexpr explicit StateTable(int width) : width_(width), slots_(1 << 12, -1), hashes_(1 << 12) {}
  // Index of `s`, inserting it if new (`inserted` says which).
  constexpr int find_or_insert(std::vector<std::int16_t> const& s, bool& inserted) {
    if ((count_ + 1) * 2 > static_cast<long long>(slots_.size())) grow();
    std::uint64_t const full = hash(s.data());
    std::size_t const mask = slots_.size() - 1;
    std::size_t h = static_cast<std::size_t>(full) & mask;
    while (slots_[h] >= 0) {
      if (hashes_[h] == full && equal(slots_[h], s.data())) {
        inserted = false;
        return slots_[h];
      }
      h = (h + 1) & mask;
    }
    int const id = static_cast<int>(count_++);
    if (id % kChunkStates == 0) chunks_.emplace_back();  // the stored states never move
    chunks_.back().insert(chunks_.back().end(), s.begin(), s.end());
    slots_[h] = id;
    hashes_[h] = full;
    inserted = true;
    return id;
  }
  constexpr std::vector<std::int16_t> get(int id) const {
    std::vector<std::int16_t> out(static_cast<std::size_t>(width_));
    get(id, out);
    return out;
  }
  // Copies state `id` into `out` (width elements; no allocation when `out` has them already).
  constexpr void get(int id, std::vector<std::int16_t>& out) const {
    std::int16_t const* p = at(id);
    out.assign(p, p + width_);
  }
  constexpr long long size() const { return count_; }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
  static constexpr std::uint64_t fmix(std::uint64_t x) {  // murmur3's finalizer
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
  }
  // xxHash64's round (multiply, rotate, multiply: every bit of the word reaches every bit of the
  // lane) on four independent lanes, so the multiplies of neighbouring words overlap, then
  // murmur3's finalizer over the lanes: a large check hashes each state several times (one lookup
  // per transition), so the hash's speed is the table's. Written out rather than taken from
  // libxxhash because the table also runs in constant expressions (the compile-time check).
  static constexpr std::uint64_t kPrime1 = 0x9e3779b185ebca87ull;
  static constexpr std::uint64_t kPrime2 = 0xc2b2ae3d27d4eb4full;
  static constexpr std::uint64_t round(std::uint64_t lane, std::uint64_t word) {
    return rotl(lane + word * kPrime2, 31) * kPrime1;
  }
  constexpr std::uint64_t hash(std::int16_t const* p) const {
    auto const word =
        [&](int i) {  // elements i .. i + 3 (element j in bits 16j), zero past the end
          std::uint64_t w = 0;
          // One load where the host's byte order gives the same word.
          if (std::endian::native == std::endian::little && !std::is_constant_evaluated() &&
              i + 4 <= width_) {
            std::memcpy(&w, p + i, sizeof w);
            return w;
          }
          for (int j = 0; j < 4 && i + j < width_; ++j)
            w |= static_cast<std::uint64_t>(static_cast<std::uint16_t>(p[i + j])) << (16 * j);
          return w;
        };
    std::uint64_t lane[4] = {kPrime1 + kPrime2, kPrime2, 0, 0 - kPrime1};
    int i = 0;
    for (; i + 16 <= width_; i += 16)
      for (int k = 0; k < 4; ++k) lane[k] = round(lane[k], word(i + 4 * k));
    for (int k = 0; i < width_; i += 4, ++k) lane[k] = round(lane[k], word(i));
    return fmix(rotl(lane[0], 1) + rotl(lane[1], 7) + rotl(lane[2], 12) + rotl(lane[3], 18));
  }
  // std::equal: memcmp at run time, element by element in a constant expression.
  constexpr bool equal(int id, std::int16_t const* p) const {
    std::int16_t const* q = at(id);
    return std::equal(q, q + width_, p);
  }
  constexpr void grow() {
    std::vector<int> bigger(slots_.size() * 2, -1);
    std::vector<std::uint64_t> bigger_hashes(bigger.size());
    std::size_t const mask = bigger.size() - 1;
    for (std::size_t old = 0; old < slots_.size(); ++old) {
      if (slots_[old] < 0) continue;
      std::size_t h = static_cast<std::size_t>(hashes_[old]) & mask;
      while (bigger[h] >= 0) h = (h + 1) & mask;
      bigger[h] = slots_[old];
      bigger_hashes[h] = hashes_[old];
    }
    slots_ = std::move(bigger);
    hashes_ = std::move(bigger_hashes);
  }

  int width_;
  std::vector<int> slots_;
  std::vector<std::uint64_t> hashes_;
  // The states, kChunkStates to a chunk: the arena grows without copying what it holds.
  static constexpr int kChunkStates = 1 << 14;
  constexpr std::int16_t const* at(int id) const {
    return chunks_[static_cast<std::size_t>(id / kChunkStates)].data() +
           static_cast<std::size_t>(id % kChunkStates) * width_;
  }
  std::vector<std::vector<std::int16_t>> chunks_;
  long long count_ = 0;
};

}  // namespace warploom::ts::verify::detail
