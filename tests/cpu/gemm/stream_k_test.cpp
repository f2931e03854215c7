// tests/cpu/gemm/stream_k_test.cpp
//
// The stream-K decomposition (kernels/gemm/stream_k_decomposition.hpp), on the host: for grids and
// problems from one tile to many waves, every K iteration of every tile is computed by exactly one
// unit, the pieces of a cut tile meet end to end, the owner of a cut tile names exactly the CTAs
// that hold its other pieces, and each of those holds it as its first unit (what makes every wait
// end).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "gemm/stream_k_decomposition.hpp"

namespace {

using warploom::gemm::StreamKDecomposition;
using warploom::gemm::StreamKUnit;

struct Piece {
  int cta, round, k_begin, k_tiles, peers;
};

// Every unit of the walk, by tile.
std::map<int, std::vector<Piece>> pieces_by_tile(StreamKDecomposition const& d) {
  std::map<int, std::vector<Piece>> by_tile;
  for (int slot = 0; slot < d.units(); ++slot) {
    StreamKUnit const u = d.unit(slot);
    if (u.tile < 0) continue;
    by_tile[u.tile].push_back({slot % d.ctas, slot / d.ctas, u.k_begin, u.k_tiles, u.peers});
  }
  for (auto& [tile, pieces] : by_tile)  // in K order
    std::sort(pieces.begin(), pieces.end(),
              [](Piece const& x, Piece const& y) { return x.k_begin < y.k_begin; });
  return by_tile;
}

void expect_sound(int tiles, int k_tiles, int ctas, int max_groups = 1) {
  SCOPED_TRACE(testing::Message() << tiles << " tiles of " << k_tiles << " K tiles on " << ctas
                                  << " CTAs, at most " << max_groups << " groups");
  StreamKDecomposition const d = StreamKDecomposition::make(tiles, k_tiles, ctas, max_groups);
  if (!d.active()) {
    EXPECT_TRUE(tiles % ctas == 0 || k_tiles < 2);
    return;
  }
  EXPECT_LE(d.ctas, ctas);
  EXPECT_EQ(d.dp_tiles % d.ctas, 0) << "whole tiles run in whole rounds";
  EXPECT_EQ(d.dp_rounds * d.ctas, d.dp_tiles);
  // Stream-K takes between one and two waves' worth of tiles (or all of them).
  EXPECT_TRUE(d.dp_tiles == 0 || (tiles - d.dp_tiles >= ctas && tiles - d.dp_tiles < 2 * ctas));

  std::map<int, std::vector<Piece>> const by_tile = pieces_by_tile(d);
  ASSERT_EQ(static_cast<int>(by_tile.size()), tiles) << "every tile computed";
  std::vector<int> partials_of(d.ctas, 0);
  for (auto const& [tile, pieces] : by_tile) {
    SCOPED_TRACE(testing::Message() << "tile " << tile);
    // The pieces of one tile in K order, end to end, covering its K tiles once.
    int k = 0;
    for (Piece const& p : pieces) {
      EXPECT_EQ(p.k_begin, k);
      EXPECT_GT(p.k_tiles, 0);
      k += p.k_tiles;
    }
    EXPECT_EQ(k, k_tiles);
    if (tile < d.dp_tiles) {
      ASSERT_EQ(pieces.size(), 1u);
      EXPECT_GE(pieces[0].round, d.sk_rounds) << "whole tiles after the stream-K rounds";
      EXPECT_EQ(pieces[0].peers, 0);
      continue;
    }
    for (Piece const& p : pieces) EXPECT_LT(p.round, d.sk_rounds);
    if (pieces.size() == 1) {
      EXPECT_EQ(pieces[0].peers, 0) << "a tile in one piece needs no fix-up";
      continue;
    }
    // The owner holds K tile 0 and adds exactly the CTAs after it in its group that hold the
    // rest, each of which holds its piece as its first unit and writes it to the workspace.
    Piece const& owner = pieces[0];
    EXPECT_EQ(owner.peers, static_cast<int>(pieces.size()) - 1);
    for (std::size_t i = 1; i < pieces.size(); ++i) {
      EXPECT_EQ(pieces[i].cta, owner.cta + static_cast<int>(i) * d.groups);
      EXPECT_EQ(pieces[i].round, 0) << "a piece another CTA waits for is its CTA's first";
      EXPECT_EQ(pieces[i].peers, -1);
      ++partials_of[pieces[i].cta];
    }
  }
  for (int c = 0; c < d.ctas; ++c) EXPECT_LE(partials_of[c], 1) << "one workspace slot per CTA";

  // Every CTA runs an equal share of the iterations (within one), and a CTA's phantom units come
  // only after its pieces.
  std::int64_t const total = static_cast<std::int64_t>(tiles) * k_tiles;
  std::vector<std::int64_t> work(d.ctas, 0);
  for (int slot = 0; slot < d.units(); ++slot) {
    StreamKUnit const u = d.unit(slot);
    if (u.tile >= 0) work[slot % d.ctas] += u.k_tiles;
  }
  std::int64_t lo = total, hi = 0;
  for (std::int64_t w : work) {
    lo = std::min(lo, w);
    hi = std::max(hi, w);
  }
  EXPECT_LE(hi - lo, 1) << "balanced";
  // Groups: unit u of every group computes the same K ranges at the same round, on neighbouring
  // tiles (the group's index apart).
  EXPECT_LE(d.groups, max_groups);
  EXPECT_EQ(d.ctas % d.groups, 0);
  EXPECT_EQ((tiles - d.dp_tiles) % d.groups, 0);
  for (int slot = 0; slot < d.sk_rounds * d.ctas; slot += d.groups) {
    StreamKUnit const first = d.unit(slot);
    for (int j = 1; j < d.groups; ++j) {
      StreamKUnit const u = d.unit(slot + j);
      EXPECT_EQ(u.k_begin, first.k_begin);
      EXPECT_EQ(u.k_tiles, first.k_tiles);
      EXPECT_EQ(u.peers, first.peers);
      if (first.tile >= 0) {
        EXPECT_EQ(u.tile, first.tile + j);
      }
    }
  }
  for (int c = 0; c < d.ctas; ++c) {
    bool ended = false;
    for (int r = 0; r < d.sk_rounds; ++r) {
      bool const phantom = d.unit(r * d.ctas + c).tile < 0;
      EXPECT_FALSE(ended && !phantom) << "CTA " << c << " round " << r;
      ended = ended || phantom;
    }
  }
}

TEST(StreamK, EveryIterationOnceAndEveryWaitOnAFirstPiece) {
  for (int ctas : {1, 2, 7, 132})
    for (int k_tiles : {1, 2, 3, 16, 64, 1024})
      for (int tiles : {1, 2, 5, 8, 131, 132, 133, 256, 263, 512, 2048, 8192}) {
        if (static_cast<std::int64_t>(tiles) * k_tiles > 2'000'000) continue;
        for (int max_groups : {1, 4, 8}) expect_sound(tiles, k_tiles, ctas, max_groups);
      }
}

// The shapes on an H100/H200's 132 SMs, in 128 x 256 tiles (64 K elements per K tile).
TEST(StreamK, TheFiveShapesLeaveNoPartialWave) {
  struct Shape {
    int m, n, k;
  };
  for (Shape s : {Shape{4096, 4096, 4096}, Shape{8192, 8192, 1024}, Shape{1024, 8192, 8192},
                  Shape{8192, 8192, 8192}, Shape{16384, 16384, 4096}}) {
    int const tiles = (s.m / 128) * (s.n / 256);
    StreamKDecomposition const d = StreamKDecomposition::make(tiles, s.k / 64, 132, 8);
    ASSERT_TRUE(d.active());
    EXPECT_EQ(d.ctas, 132);
    // Four groups (132 CTAs and 248, 200, 256, 140 stream-K tiles: 4 divides both, 8 does not).
    EXPECT_EQ(d.groups, 4);
    // Each CTA's share of the stream-K iterations spans at most three tiles (two-tile stream-K).
    EXPECT_LE(d.sk_rounds, 3);
    expect_sound(tiles, s.k / 64, 132, 8);
  }
  // 4096^3: 512 tiles = 3 waves + 116; stream-K takes 116 + 132 of them, 1.88 tiles per CTA.
  StreamKDecomposition const d = StreamKDecomposition::make(512, 64, 132);
  EXPECT_EQ(d.dp_tiles, 264);
  EXPECT_EQ(d.dp_rounds, 2);
  EXPECT_EQ(d.per_unit * 132 + d.extra, 248 * 64);
}

TEST(StreamK, NothingToCutIsThePersistentWalk) {
  EXPECT_FALSE(StreamKDecomposition::make(264, 64, 132).active()) << "whole waves";
  EXPECT_FALSE(StreamKDecomposition::make(100, 1, 132).active()) << "one K tile";
  EXPECT_FALSE(StreamKDecomposition::make(0, 8, 132).active());
}

TEST(StreamK, FewerIterationsThanCtasTakeFewerCtas) {
  StreamKDecomposition const d = StreamKDecomposition::make(3, 4, 132);
  ASSERT_TRUE(d.active());
  EXPECT_EQ(d.ctas, 12);
  EXPECT_EQ(d.per_unit, 1);
  expect_sound(3, 4, 132);
}

TEST(StreamK, UnitOfInvertsBegin) {
  StreamKDecomposition const d = StreamKDecomposition::make(250, 37, 132);
  ASSERT_TRUE(d.active());
  for (int u = 0; u < d.ctas / d.groups; ++u)
    for (std::int64_t i = d.begin(u); i < d.begin(u + 1); ++i) ASSERT_EQ(d.unit_of(i), u);
}

// The grid is the persistent one's (one CTA per SM, or max_ctas if fewer), and the workspace the
// launcher lays out (partial sums, then flags) ends where stream_k_workspace_bytes says.
TEST(StreamK, GridAndWorkspaceLayout) {
  EXPECT_EQ(warploom::gemm::stream_k_grid(132, 0), 132);
  EXPECT_EQ(warploom::gemm::stream_k_grid(132, 7), 7);
  EXPECT_EQ(warploom::gemm::stream_k_grid(132, 500), 132);
  StreamKDecomposition const d = StreamKDecomposition::make(250, 37, 132);
  std::vector<char> workspace(
      static_cast<std::size_t>(warploom::gemm::stream_k_workspace_bytes(d.ctas, 128, 256)));
  warploom::gemm::StreamKRun const run =
      warploom::gemm::StreamKRun::in(workspace.data(), d, 128, 256);
  EXPECT_EQ(static_cast<void*>(run.partials), static_cast<void*>(workspace.data()));
  EXPECT_EQ(reinterpret_cast<char*>(run.flags + d.ctas), workspace.data() + workspace.size());
  EXPECT_EQ(run.walk.units(), d.units());
}

}  // namespace
