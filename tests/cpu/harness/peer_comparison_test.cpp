// tests/cpu/harness/peer_comparison_test.cpp — warploom/harness/peer_comparison.hpp
#include "warploom/harness/peer_comparison.hpp"

#include <vector>

#include <gtest/gtest.h>

namespace warploom::harness {
namespace {

TEST(PeerComparison, EachOfOursOverTheBestPeerInOrder) {
  std::vector<Measured> const m = {{"warploom", false, 0.191},
                                   {"cublas", true, 0.207},
                                   {"warploom_pp", false, 0.1989},
                                   {"cutlass_pp", true, 0.195},
                                   {"cutlass", true, 0.195}};  // equal: the first stays best
  std::optional<PeerComparison> const c = compare_with_best_peer(m);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->best_peer, "cutlass_pp");
  EXPECT_DOUBLE_EQ(c->best_peer_value, 0.195);
  ASSERT_EQ(c->ratios.size(), 2u);
  EXPECT_EQ(c->ratios[0].first, "warploom");
  EXPECT_DOUBLE_EQ(c->ratios[0].second, 0.191 / 0.195);
  EXPECT_EQ(c->ratios[1].first, "warploom_pp");
  EXPECT_EQ(c->describe("ms"),
            "vs best peer (cutlass_pp 0.195 ms): warploom 0.979, warploom_pp 1.020");
}

TEST(PeerComparison, NothingWithoutAPeerOrOneOfOursAndUnmeasuredValuesAreLeftOut) {
  std::vector<Measured> const ours_only = {{"ts_tma", false, 1.0}, {"ts_grid_stride", false, 2.0}};
  EXPECT_FALSE(compare_with_best_peer(ours_only).has_value());
  std::vector<Measured> const peers_only = {{"cublas", true, 1.0}};
  EXPECT_FALSE(compare_with_best_peer(peers_only).has_value());
  EXPECT_FALSE(compare_with_best_peer({}).has_value());
  // A contender ncu could not profile has no cycles (0): neither the best peer nor a ratio.
  // (Thousands of cycles, as the bench passes them.)
  std::vector<Measured> const partly = {{"warploom", false, 0.0},
                                        {"cublas", true, 0.0},
                                        {"warploom_pp", false, 300.0},
                                        {"cublaslt", true, 280.0}};
  std::optional<PeerComparison> const c = compare_with_best_peer(partly);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->best_peer, "cublaslt");
  ASSERT_EQ(c->ratios.size(), 1u);
  EXPECT_EQ(c->ratios[0].first, "warploom_pp");
  EXPECT_EQ(c->describe("Kcycles"), "vs best peer (cublaslt 280 Kcycles): warploom_pp 1.071");
}

}  // namespace
}  // namespace warploom::harness
