// kernels/tutorial/row_tile_args.hpp
//
// The argument checks tutorial 07's launchers share: matrices of rows x cols fp16 elements cut into
// 128-wide column tiles, passed as 16-byte-aligned device pointers.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace warploom::tutorial {

// Throws std::invalid_argument naming the function and the argument: rows > 0, cols a positive
// multiple of `tile_cols`, rows * cols below 2^31 (32-bit element indices), and every pointer
// non-null and 16-byte aligned (TMA and the 16-byte vectors).
inline void check_row_tile_args(std::string_view fn, int rows, int cols, int tile_cols,
                                std::initializer_list<std::pair<char const*, void const*>> ptrs) {
  std::string const where = std::string(fn) + ": ";
  if (rows <= 0)
    throw std::invalid_argument(where + "`rows` = " + std::to_string(rows) + " must be positive");
  if (cols <= 0 || cols % tile_cols != 0)
    throw std::invalid_argument(where + "`cols` = " + std::to_string(cols) +
                                " must be a positive multiple of the tile width " +
                                std::to_string(tile_cols));
  if (static_cast<std::int64_t>(rows) * cols > INT32_MAX)
    throw std::invalid_argument(
        where + "`rows` x `cols` = " + std::to_string(static_cast<std::int64_t>(rows) * cols) +
        " elements exceeds 2^31 - 1");
  for (auto [name, ptr] : ptrs) {
    if (ptr == nullptr) throw std::invalid_argument(where + "`" + name + "` must not be null");
    if (reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0)
      throw std::invalid_argument(where + "`" + name +
                                  "` must be 16-byte aligned (TMA and the 16-byte vectors)");
  }
}

// Whether the `bytes`-long ranges at x and y share a byte.
inline bool overlap(void const* x, void const* y, std::uintptr_t bytes) {
  auto const p = reinterpret_cast<std::uintptr_t>(x), q = reinterpret_cast<std::uintptr_t>(y);
  return p < q + bytes && q < p + bytes;
}

}  // namespace warploom::tutorial
