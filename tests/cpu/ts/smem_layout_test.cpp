// tests/cpu/ts/smem_layout_test.cpp — the shared-memory allocator (warploom/ts/smem_layout.hpp,
// smem_buffer.hpp): alignment, order by alignment, alias groups and their phases, the barrier
// region, totals, find and barriers_of.

#include <gtest/gtest.h>

#include <string_view>
#include <tuple>
#include <vector>

#include "fixtures.hpp"
#include "warploom/ts/smem_layout.hpp"

namespace {

using namespace fixtures;

// (name, resource, offset, bytes, alignment, barriers, alias_group) of each placement.
using Place = std::tuple<std::string_view, int, long long, long long, int, bool, int>;
std::vector<Place> places(ts::SmemLayout const& l) {
  std::vector<Place> out;
  for (auto const& p : l.placements)
    out.emplace_back(p.name, p.resource, p.offset, p.bytes, p.alignment, p.barriers, p.alias_group);
  return out;
}

ts::SmemRequest request(std::string_view name, int resource, long long bytes, int alignment,
                        int alias_group = -1, int alias_phase = 0) {
  return {name, resource, bytes, alignment, alias_group, alias_phase};
}

TEST(SmemLayout, EmptyModelNeedsNothing) {
  ts::SmemLayout l = ts::layout_smem(ts::ManagerModel{});
  EXPECT_TRUE(l.placements.empty());
  EXPECT_EQ(l.data_bytes, 0);
  EXPECT_EQ(l.barrier_bytes, 0);
  EXPECT_EQ(l.total_bytes, 0);
  EXPECT_EQ(l.base_alignment, 8);
}

TEST(SmemLayout, BuffersGoByDecreasingAlignmentThenDeclarationOrder) {
  ts::ManagerModel m;
  m.smem = {request("a", 0, 100, 16), request("b", 1, 256, 128), request("c", 2, 40, 16),
            request("d", 3, 8, 1024)};
  ts::SmemLayout l = ts::layout_smem(m);
  EXPECT_EQ(places(l), (std::vector<Place>{{"d", 3, 0, 8, 1024, false, -1},
                                           {"b", 1, 128, 256, 128, false, -1},
                                           {"a", 0, 384, 100, 16, false, -1},
                                           {"c", 2, 496, 40, 16, false, -1}}));
  EXPECT_EQ(l.data_bytes, 536);
  EXPECT_EQ(l.barrier_bytes, 0);
  EXPECT_EQ(l.total_bytes, 536);
  EXPECT_EQ(l.base_alignment, 1024);
}

TEST(SmemLayout, AliasGroupsOverlapTheirPhasesAndTakeTheLargestPhase) {
  ts::ManagerModel m;
  m.smem = {request("w", 0, 16, 128),
            request("x", 1, 1000, 128, 0, 0),  // group 0, phase 0: x then y
            request("y", 1, 24, 128, 0, 0),
            request("z", 2, 2000, 128, 0, 1),  // group 0, phase 1: z over x and y
            request("q", 3, 64, 256, 1, 0),    // group 1 (256-aligned): q, then r over it
            request("r", 3, 32, 64, 1, 1)};
  ts::SmemLayout l = ts::layout_smem(m);
  // Regions by alignment: group 1 (256), then w and group 0 (128) in declaration order.
  EXPECT_EQ(places(l), (std::vector<Place>{{"q", 3, 0, 64, 256, false, 1},
                                           {"r", 3, 0, 32, 64, false, 1},
                                           {"w", 0, 128, 16, 128, false, -1},
                                           {"x", 1, 256, 1000, 128, false, 0},
                                           {"y", 1, 1280, 24, 128, false, 0},
                                           {"z", 2, 256, 2000, 128, false, 0}}));
  EXPECT_EQ(l.data_bytes, 2256);  // group 0 spans max(1048, 2000) bytes from 256
  EXPECT_EQ(l.base_alignment, 256);
}

TEST(SmemLayout, BarrierRegionFollowsTheDataEightByteAlignedFullThenEmptyPerStage) {
  ts::ManagerModel m;
  m.resources = {
      {"plain", ts::ResourceKind::Memory, ts::no_pipeline},
      {"two", ts::ResourceKind::Memory, kCopyPipeline},
      {"four", ts::ResourceKind::Memory, ts::async_async(4, ts::threads(32), ts::threads(32))}};
  m.smem = {request("buf", 0, 100, 4)};
  ts::SmemLayout l = ts::layout_smem(m);
  EXPECT_EQ(places(l), (std::vector<Place>{{"buf", 0, 0, 100, 4, false, -1},
                                           {"two", 1, 104, 32, 8, true, -1},
                                           {"four", 2, 136, 64, 8, true, -1}}));
  EXPECT_EQ(l.data_bytes, 100);
  EXPECT_EQ(l.barrier_bytes, 96);
  EXPECT_EQ(l.total_bytes, 200);
  EXPECT_EQ(l.base_alignment, 8);
}

TEST(SmemLayout, FindReturnsBuffersAndBarriersOfReturnsTheBarrierRegion) {
  ts::ManagerModel m;
  m.resources = {{"smem", ts::ResourceKind::Memory, kCopyPipeline},
                 {"other", ts::ResourceKind::Memory, ts::no_pipeline}};
  m.smem = {request("tiles", 0, 512, 128), request("tiles", 1, 64, 128)};
  ts::SmemLayout l = ts::layout_smem(m);
  ASSERT_NE(l.find(0, "tiles"), nullptr);
  EXPECT_EQ(l.find(0, "tiles")->offset, 0);
  ASSERT_NE(l.find(1, "tiles"), nullptr);
  EXPECT_EQ(l.find(1, "tiles")->offset, 512);
  EXPECT_EQ(l.find(0, "missing"), nullptr);
  EXPECT_EQ(l.find(2, "tiles"), nullptr);
  // The barrier placement carries the resource's name, but find() never returns it.
  EXPECT_EQ(l.find(0, "smem"), nullptr);
  ASSERT_NE(l.barriers_of(0), nullptr);
  EXPECT_EQ(l.barriers_of(0)->offset, 576);
  EXPECT_EQ(l.barriers_of(0)->bytes, 32);
  EXPECT_EQ(l.barriers_of(1), nullptr);
  EXPECT_EQ(l.total_bytes, 608);
}

TEST(SmemLayout, CopyManagerLayoutIsAConstantOfTheManager) {
  ts::SmemLayout l = CopyManager::smem_layout();
  static_assert(CopyManager::smem_bytes == 544);
  static_assert(CopyManager::smem_alignment == 128);
  EXPECT_EQ(places(l), (std::vector<Place>{{"tiles", 1, 0, 512, 128, false, -1},
                                           {"smem", 1, 512, 32, 8, true, -1}}));
  EXPECT_EQ(l.data_bytes, 512);
  EXPECT_EQ(l.barrier_bytes, 32);
  EXPECT_EQ(l.total_bytes, CopyManager::smem_bytes);
}

// The mainloop's operand tiles and the epilogue's staging tile share one region.
struct Operands {
  static constexpr ts::ResourceSpec spec{.name = "operands"};
  ts::SmemBuffer<short, 4096> a;         // (64,64)
  ts::SmemBuffer<short, 4096> b;         // (64,64)
  ts::SmemBuffer<float, 64, 16> scales;  // (64)
  using smem_buffers = ts::buffers<&Operands::a, &Operands::b, &Operands::scales>;
  short mma(ts::Consume const&) const { return 0; }
};
struct Staging {
  static constexpr ts::ResourceSpec spec{.name = "staging"};
  ts::SmemBuffer<float, 1024> tile;  // (32,32)
  using smem_buffers = ts::buffers<&Staging::tile>;
  void write(ts::Produce const&, short v) { (void)v; }
};
struct Mainloop {
  static constexpr ts::TaskSpec spec{.name = "mainloop", .warp_idx = 0, .num_warps = 4};
  using src = ts::list<Operands>;
  using dst = ts::list<Staging>;
  static constexpr void schedule(auto&, auto& ops, auto& staging) {
    ts::work<&Staging::write>(staging, ts::work<&Operands::mma>(ops));
  }
};

TEST(SmemLayout, ManagerAliasesPlaceTheirBuffersAtOneOffset) {
  using M =
      ts::TaskManager<ts::Tasks<Mainloop>, ts::Graph<ts::DependsOn<Staging, Operands>>,
                      ts::ManagerOptions{}, ts::Aliases<ts::Alias<&Operands::a, &Staging::tile>>>;
  ts::SmemLayout l = M::smem_layout();
  EXPECT_EQ(places(l), (std::vector<Place>{{"a", 0, 0, 8192, 128, false, 0},
                                           {"tile", 1, 0, 4096, 128, false, 0},
                                           {"b", 0, 8192, 8192, 128, false, -1},
                                           {"scales", 0, 16384, 256, 16, false, -1}}));
  EXPECT_EQ(M::smem_bytes, 16640);
  using Unaliased =
      ts::TaskManager<ts::Tasks<Mainloop>, ts::Graph<ts::DependsOn<Staging, Operands>>>;
  EXPECT_EQ(Unaliased::smem_bytes, 8192 + 8192 + 4096 + 256);
}

TEST(SmemBuffer, SizeAndAlignmentAreInTheType) {
  using Tile = ts::SmemBuffer<short, 256>;
  static_assert(Tile::bytes == 512 && Tile::alignment == 128 && Tile::count == 256);
  using Scales = ts::SmemBuffer<float, 10, 16>;
  static_assert(Scales::bytes == 40 && Scales::alignment == 16);
  short storage[4] = {1, 2, 3, 4};
  ts::SmemBuffer<short, 4> buf{storage};
  EXPECT_EQ(buf.get(), storage);
  EXPECT_EQ(buf[2], 3);
}

}  // namespace
