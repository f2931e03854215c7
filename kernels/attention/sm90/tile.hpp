// kernels/attention/sm90/tile.hpp
//
// One work tile of the attention forward kernel: kBlockM query rows of one head of one sequence,
// and the K/V blocks it visits. Computed once per tile by the Tiles resource (works.cuh: tile_at)
// and handed to every work of the tile.
#pragma once

#include "warploom/config.hpp"

namespace warploom::attention::sm90 {

struct TileInfo {
  int m_block = 0;   // which kBlockM query rows of the sequence
  int head = 0;      // query head (its K/V head is head / (heads / kv_heads))
  int batch = 0;     // sequence
  int q_offset = 0;  // first row of the sequence in Q, O and LSE (variable lengths; else 0)
  int k_offset = 0;  // first row of the sequence in K and V
  int seqlen_q = 0;
  int seqlen_k = 0;
  int n_blocks = 0;  // K/V blocks the tile visits (causal: up to the diagonal), visited last first
};

// ---- The persistent tile order
// ------------------------------------------------------------------- Tiles are numbered t = 0 ...
// m_blocks * heads_batch - 1 (heads_batch: heads * batch, the (sequence, head) pairs, pair hb being
// head hb % heads of sequence hb / heads) and walked by the persistent CTAs in that order. The
// pairs are cut into sections of heads_per_section (the last one may be shorter) and a section is
// walked whole before the next, so that the CTAs running at one time share the K and V of one
// section, which the L2 cache holds; inside a section, the last query rows of every pair (the
// longest causal tiles) first, then the rows before them, so that the short tiles fill the
// section's tail.
struct TileSlot {
  int m_block = 0;     // which kBlockM query rows
  int head_batch = 0;  // which (sequence, head) pair
};

// pair_major (without the causal mask): a pair's query tiles one after the other inside the
// section (its last rows first), so that the CTAs running at once read the K and V of a few pairs
// together. Without the mask the tiles are equally long, and the longest-first walk across pairs
// only spreads a pair's reads of its K and V a section apart (H100, 2026-12-06,
// bench/results/attention_pair_major_2026-12-06/: 32x16x512x128 ping-pong 208 -> 188 us in ncu,
// the overlap schedule 231 -> 218; 4x32x4096x128 1.761 -> 1.694 ms burst).
WL_HOST_DEVICE constexpr TileSlot tile_slot(int t, int m_blocks, int heads_batch,
                                            int heads_per_section, bool pair_major = false) {
  int const section = t / (heads_per_section * m_blocks);
  int const first = section * heads_per_section;
  int const in_section =
      heads_batch - first < heads_per_section ? heads_batch - first : heads_per_section;
  int const i = t - first * m_blocks;  // the tile's index inside its section
  if (pair_major)
    return {.m_block = m_blocks - 1 - i % m_blocks, .head_batch = first + i / m_blocks};
  return {.m_block = m_blocks - 1 - i / in_section, .head_batch = first + i % in_section};
}

// How many (sequence, head) pairs a section holds: as many as have their K and V in 32 MiB of L2,
// FlashAttention-3's budget (of the H100's 50 MiB; the H200 has 60), between 1 and heads_batch;
// the query heads of one K/V head (GQA) share it, so they count as a fraction of one.
constexpr int heads_per_section(long long seqlen_k, int head_dim, int element_bytes, int heads,
                                int kv_heads, int batch) {
  constexpr double kL2Budget = 32.0 * 1024 * 1024;
  double const kv_bytes = 2.0 * static_cast<double>(seqlen_k) * head_dim * element_bytes;
  double const fits = kL2Budget / (kv_bytes * kv_heads / heads);
  int const heads_batch = heads * batch;
  return fits < 1.0 ? 1 : fits >= heads_batch ? heads_batch : static_cast<int>(fits);
}

// The K/V block that loop iteration `j` of `tile` visits: the last block first, so that the blocks
// that need a mask (the sequence's end, the causal diagonal) come first and the rest run unmasked.
WL_HOST_DEVICE constexpr int n_block_of(TileInfo const& tile, int j) {
  return tile.n_blocks - 1 - j;
}

}  // namespace warploom::attention::sm90
