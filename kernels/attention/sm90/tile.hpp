// kernels/attention/sm90/tile.hpp
//
// One work tile of the attention forward kernel: 128 query rows of one head of one sequence, and
// the K/V blocks it visits. Computed once per tile by the Tiles resource (works.cuh: tile_at) and
// handed to every work of the tile.
#pragma once

#include "warploom/config.hpp"

namespace warploom::attention::sm90 {

struct TileInfo {
  int m_block = 0;   // which 128 query rows of the sequence
  int head = 0;      // query head (its K/V head is head / (heads / kv_heads))
  int batch = 0;     // sequence
  int q_offset = 0;  // first row of the sequence in Q, O and LSE (variable lengths; else 0)
  int k_offset = 0;  // first row of the sequence in K and V
  int seqlen_q = 0;
  int seqlen_k = 0;
  int n_blocks = 0;  // K/V blocks the tile visits (causal: up to the diagonal), visited last first
};

// The K/V block that loop iteration `j` of `tile` visits: the last block first, so that the blocks
// that need a mask (the sequence's end, the causal diagonal) come first and the rest run unmasked.
WL_HOST_DEVICE constexpr int n_block_of(TileInfo const& tile, int j) {
  return tile.n_blocks - 1 - j;
}

}  // namespace warploom::attention::sm90
