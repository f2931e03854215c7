// kernels/tutorial/row_tile_args.hpp
//
// The argument checks tutorial 07's row-tile launchers share: matrices of rows x cols fp16
// elements cut into 128-wide column tiles, passed as 16-byte-aligned device pointers.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "tutorial/argument_check.hpp"

namespace warploom::tutorial {

// Throws std::invalid_argument naming the function and the argument: rows > 0, cols a positive
// multiple of `tile_cols`, rows * cols below 2^31 (32-bit element indices), and every pointer
// non-null and 16-byte aligned (TMA and the 16-byte vectors).
inline void check_row_tile_args(std::string_view fn, int rows, int cols, int tile_cols,
                                std::initializer_list<std::pair<char const*, void const*>> ptrs) {
  ArgumentCheck const check(fn);
  if (rows <= 0) check.fail("`rows` = " + std::to_string(rows) + " must be positive");
  if (cols <= 0 || cols % tile_cols != 0)
    check.fail("`cols` = " + std::to_string(cols) + " must be a positive multiple of the tile " +
               "width " + std::to_string(tile_cols));
  check.elements_below_2_31("rows", rows, "cols", cols);
  check.device_pointers(ptrs);
}

// Whether the `bytes`-long ranges at x and y share a byte.
inline bool overlap(void const* x, void const* y, std::uintptr_t bytes) {
  return overlap(x, bytes, y, bytes);
}

}  // namespace warploom::tutorial
