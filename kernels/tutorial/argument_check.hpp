// kernels/tutorial/argument_check.hpp
//
// The argument checks the tutorials' launchers share. Each failure throws std::invalid_argument
// naming the function, the argument and the rule, before anything is launched.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace warploom::tutorial {

class ArgumentCheck {
 public:
  explicit ArgumentCheck(std::string_view fn) : where_(std::string(fn) + ": ") {}

  [[noreturn]] void fail(std::string const& rule) const {
    throw std::invalid_argument(where_ + rule);
  }

  // `name` = value must be a positive multiple of `unit` (`why`).
  void positive_multiple(char const* name, int value, int unit, std::string_view why) const {
    if (value <= 0 || value % unit != 0)
      fail(std::string("`") + name + "` = " + std::to_string(value) +
           " must be a positive multiple of " + std::to_string(unit) + " (" + std::string(why) +
           ")");
  }

  // `x` x `y` elements below 2^31: the kernels index elements with 32-bit integers.
  void elements_below_2_31(char const* x, int x_value, char const* y, int y_value) const {
    std::int64_t const elements = static_cast<std::int64_t>(x_value) * y_value;
    if (elements > INT32_MAX)
      fail(std::string("`") + x + "` x `" + y + "` = " + std::to_string(elements) +
           " elements exceeds 2^31 - 1");
  }

  // A GEMM's m, n and k positive multiples of its tile's (tile_m x tile_n, K steps of tile_k).
  void gemm_tiles(int m, int n, int k, int tile_m, int tile_n, int tile_k) const {
    positive_multiple("m", m, tile_m, "the tile height");
    positive_multiple("n", n, tile_n, "the tile width");
    positive_multiple("k", k, tile_k, "the K step");
  }

  // A GEMM's A (m x k), B (n x k) and D (m x n) each below 2^31 elements: the kernels index them
  // with 32-bit integers (which also bounds the grid: at most D's elements over a tile's).
  void gemm_elements_below_2_31(int m, int n, int k) const {
    elements_below_2_31("m", m, "k", k);
    elements_below_2_31("n", n, "k", k);
    elements_below_2_31("m", m, "n", n);
  }

  // Every pointer non-null and 16-byte aligned (TMA and the 16-byte vectors).
  void device_pointers(std::initializer_list<std::pair<char const*, void const*>> pointers) const {
    for (auto [name, ptr] : pointers) {
      if (ptr == nullptr) fail(std::string("`") + name + "` must not be null");
      if (reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0)
        fail(std::string("`") + name + "` must be 16-byte aligned (TMA and the 16-byte vectors)");
    }
  }

 private:
  std::string where_;
};

// Whether [x, x + x_bytes) and [y, y + y_bytes) share a byte.
inline bool overlap(void const* x, std::uint64_t x_bytes, void const* y, std::uint64_t y_bytes) {
  auto const p = reinterpret_cast<std::uintptr_t>(x), q = reinterpret_cast<std::uintptr_t>(y);
  return p < q + y_bytes && q < p + x_bytes;
}

}  // namespace warploom::tutorial
