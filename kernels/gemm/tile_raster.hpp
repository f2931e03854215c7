// kernels/gemm/tile_raster.hpp
//
// The order in which the persistent GEMMs walk output tiles (shared by the sm90 TS GEMM and the
// SIMT GEMM).
#pragma once

#include "warploom/config.hpp"

namespace warploom::gemm {

// A tile of D: tile row `m`, tile column `n`, batch `l`. A stream-K unit
// (stream_k_decomposition.hpp) computes only K tiles [k_begin, k_begin + k_tiles) of it (k_tiles 0:
// all of them) and takes part in its fix-up as StreamKUnit::peers says (0: a whole tile).
struct TileCoord {
  int m = 0, n = 0, l = 0;
  int k_begin = 0, k_tiles = 0, peers = 0;
};

// Linear tile index -> tile coordinate. Tiles go in panels of `panel` tile rows: inside a panel
// consecutive indices walk down a column of tiles, so the CTAs running at one time share their B
// tiles (and the panel's A rows) in L2.
struct TileRaster {
  int tiles_m = 1, tiles_n = 1, panel = 1;

  WL_HOST_DEVICE constexpr int tiles_per_batch() const { return tiles_m * tiles_n; }
  WL_HOST_DEVICE constexpr TileCoord coord(int t) const {
    int const l = t / tiles_per_batch();
    int const i = t % tiles_per_batch();
    int const panel_tiles = panel * tiles_n;
    int const first_row = i / panel_tiles * panel;
    int const rows = tiles_m - first_row < panel ? tiles_m - first_row : panel;
    int const j = i % panel_tiles;
    return {first_row + j % rows, j / rows, l};
  }
};

}  // namespace warploom::gemm
