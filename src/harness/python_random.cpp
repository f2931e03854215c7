// src/harness/python_random.cpp — harness::PythonRandom (warploom/harness/python_random.hpp).
#include "warploom/harness/python_random.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace warploom::harness {
namespace {

constexpr std::size_t kWords = 624;  // MT19937's state

// The reference MT19937's init_by_array: the state CPython's random.seed leaves (after it, the
// generator twists before its first output, as std::mt19937 does after loading a state).
std::array<std::uint32_t, kWords> init_by_array(std::vector<std::uint32_t> const& key) {
  std::array<std::uint32_t, kWords> mt{};
  mt[0] = 19650218u;  // init_genrand(19650218)
  for (std::size_t i = 1; i < kWords; ++i)
    mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + static_cast<std::uint32_t>(i);
  std::size_t i = 1, j = 0;
  for (std::size_t k = std::max(kWords, key.size()); k > 0; --k) {
    mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] +
            static_cast<std::uint32_t>(j);
    ++i;
    ++j;
    if (i >= kWords) {
      mt[0] = mt[kWords - 1];
      i = 1;
    }
    if (j >= key.size()) j = 0;
  }
  for (std::size_t k = kWords - 1; k > 0; --k) {
    mt[i] =
        (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - static_cast<std::uint32_t>(i);
    ++i;
    if (i >= kWords) {
      mt[0] = mt[kWords - 1];
      i = 1;
    }
  }
  mt[0] = 0x80000000u;  // a non-zero initial state
  return mt;
}

}  // namespace

PythonRandom::PythonRandom(std::uint64_t seed) {
  // The integer's 32-bit words, least significant first; at least one (random.seed(0) is [0]).
  std::vector<std::uint32_t> key = {static_cast<std::uint32_t>(seed)};
  if (seed >> 32 != 0) key.push_back(static_cast<std::uint32_t>(seed >> 32));
  // std::mt19937 reads its state as the standard's textual form: the 624 words (then it twists
  // before its first output, where the reference generator's index starts at 624 too).
  std::stringstream state;
  for (std::uint32_t w : init_by_array(key)) state << w << ' ';
  state >> engine_;
}

std::uint32_t PythonRandom::bits(int bits) {
  if (bits < 1 || bits > 32)
    throw std::invalid_argument("PythonRandom::bits: bits = " + std::to_string(bits) +
                                " must be in [1, 32]");
  return static_cast<std::uint32_t>(engine_()) >> (32 - bits);
}

std::uint32_t PythonRandom::below(std::uint64_t n) {
  if (n < 1 || n > 0xffffffffu)
    throw std::invalid_argument("PythonRandom::below: n = " + std::to_string(n) +
                                " must be in [1, 2^32)");
  int const k = std::bit_width(n);  // Python's n.bit_length()
  std::uint32_t r = bits(k);
  while (r >= n) r = bits(k);
  return r;
}

}  // namespace warploom::harness
