// tests/cpu/attention/tile_order_test.cpp — the attention kernel's persistent tile order
// (kernels/attention/sm90/tile.hpp): every tile exactly once, the (sequence, head) pairs in
// L2-sized sections walked one after the other, the longest causal tiles first inside each, and
// the section size from the K/V bytes per head. Host arithmetic, no GPU.

#include <vector>

#include <gtest/gtest.h>

#include "attention/sm90/tile.hpp"

namespace warploom::attention::sm90 {
namespace {

struct Order {
  int m_blocks, heads_batch, heads_per_section;
};

TEST(AttentionTileOrder, EveryTileOnceInSectionsLongestFirst) {
  // Sections that divide the pairs, a shorter last one, one pair per section, one section.
  for (Order const o : {Order{32, 128, 16}, Order{3, 17, 5}, Order{1, 5, 2}, Order{7, 4, 1},
                        Order{4, 6, 6}, Order{1, 1, 1}}) {
    SCOPED_TRACE(testing::Message() << "m_blocks " << o.m_blocks << ", pairs " << o.heads_batch
                                    << ", per section " << o.heads_per_section);
    std::vector<int> seen(static_cast<std::size_t>(o.m_blocks * o.heads_batch), 0);
    int last_section = 0, last_m_block = o.m_blocks - 1;
    for (int t = 0; t < o.m_blocks * o.heads_batch; ++t) {
      TileSlot const s = tile_slot(t, o.m_blocks, o.heads_batch, o.heads_per_section);
      ASSERT_GE(s.m_block, 0);
      ASSERT_LT(s.m_block, o.m_blocks);
      ASSERT_GE(s.head_batch, 0);
      ASSERT_LT(s.head_batch, o.heads_batch);
      ++seen[static_cast<std::size_t>(s.m_block * o.heads_batch + s.head_batch)];
      int const section = s.head_batch / o.heads_per_section;
      EXPECT_GE(section, last_section) << "t " << t << ": a section came back";
      if (section != last_section) last_m_block = o.m_blocks - 1;
      EXPECT_LE(s.m_block, last_m_block) << "t " << t << ": a shorter tile before a longer one";
      last_section = section;
      last_m_block = s.m_block;
    }
    for (int n : seen) EXPECT_EQ(n, 1);
  }
}

TEST(AttentionTileOrder, SectionsHoldThirtyTwoMebibytesOfKeysAndValues) {
  // 4 x 32 heads of 4096 x 128 bf16: 2 MiB of K and V per head, 16 heads per section.
  EXPECT_EQ(heads_per_section(4096, 128, 2, 32, 32, 4), 16);
  // GQA, 8 query heads per K/V head: one K/V serves 8 heads, 128 of them fit, all 128 pairs.
  EXPECT_EQ(heads_per_section(4096, 128, 2, 32, 4, 4), 128);
  // Short sequences: every pair in one section (never more than there are).
  EXPECT_EQ(heads_per_section(128, 64, 2, 8, 8, 2), 16);
  // A head larger than the budget (S = 131072, D = 256: 128 MiB) still makes sections of one.
  EXPECT_EQ(heads_per_section(131072, 256, 2, 16, 16, 1), 1);
}

// The pair-major walk (no mask): every tile once, a pair's tiles together, its last rows first.
TEST(AttentionTileOrder, PairMajorWalksAPairsTilesTogether) {
  for (Order const o : {Order{32, 128, 16}, Order{3, 17, 5}, Order{1, 5, 2}, Order{4, 6, 6}}) {
    std::vector<int> seen(static_cast<std::size_t>(o.m_blocks * o.heads_batch), 0);
    for (int t = 0; t < o.m_blocks * o.heads_batch; ++t) {
      TileSlot const s = tile_slot(t, o.m_blocks, o.heads_batch, o.heads_per_section, true);
      EXPECT_EQ(s.head_batch, t / o.m_blocks);
      EXPECT_EQ(s.m_block, o.m_blocks - 1 - t % o.m_blocks);
      ++seen[static_cast<std::size_t>(s.m_block * o.heads_batch + s.head_batch)];
    }
    for (int n : seen) EXPECT_EQ(n, 1);
  }
}

}  // namespace
}  // namespace warploom::attention::sm90
