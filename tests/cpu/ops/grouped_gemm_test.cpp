// tests/cpu/ops/grouped_gemm_test.cpp
//
// ops::GroupedGemm (warploom/ops/grouped_gemm.hpp) without a GPU: each group's arguments from its
// own extents, empty groups skipped, and every refusal naming the group's index and argument —
// all of them found before anything would be enqueued.
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "stand_ins.hpp"
#include "warploom/ops/grouped_gemm.hpp"
#include "warploom/testing/invalid_argument.hpp"

namespace warploom::ops {
namespace {

using test_support::fake;
using testing::invalid_argument_message;

constexpr ScalarType kF16 = ScalarType::F16;

GroupedGemm fp16_row_major() {
  return GroupedGemm(
      GemmOptions{.element = kF16, .layout = MatrixLayout::RowMajor, .arch = Arch::Sm90});
}

// Group i: M x K times K x N into M x N, fp16 row-major, at its own stand-in addresses.
GemmGroup group(int i, std::int64_t m, std::int64_t n, std::int64_t k) {
  std::uintptr_t const at = 16 * static_cast<std::uintptr_t>(i + 1);
  return {.a = row_major(fake(at), kF16, m, k),
          .b = row_major(fake(at + 4), kF16, k, n),
          .c = {},
          .d = row_major(fake(at + 8), kF16, m, n)};
}

TEST(GroupedGemm, EachGroupHasItsOwnExtents) {
  GroupedGemm const grouped = fp16_row_major();
  std::vector<GemmGroup> const groups = {group(0, 128, 256, 512), group(1, 1, 8, 1024),
                                         group(2, 1024, 128, 8)};
  GroupedGemm::Arguments const r = grouped.arguments(groups, 0.5f);
  ASSERT_EQ(r.args.size(), 3u);
  EXPECT_EQ(r.index, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(r.args[1].m, 1);
  EXPECT_EQ(r.args[1].n, 8);
  EXPECT_EQ(r.args[1].k, 1024);
  EXPECT_EQ(r.args[2].a.data, groups[2].a.data);
  EXPECT_FLOAT_EQ(r.args[0].alpha, 0.5f);
  EXPECT_CONTAINS(grouped.describe(), "GroupedGemm of Gemm fp16 x fp16 -> fp16");
}

// An expert that got no tokens: a D without rows computes nothing, and is skipped.
TEST(GroupedGemm, AGroupWithAnEmptyDIsSkipped) {
  std::vector<GemmGroup> const groups = {group(0, 64, 64, 64), group(1, 0, 64, 64),
                                         group(2, 64, 64, 64)};
  GroupedGemm::Arguments const r = fp16_row_major().arguments(groups);
  EXPECT_EQ(r.index, (std::vector<std::size_t>{0, 2}));
}

TEST(GroupedGemm, ARefusalNamesTheGroupAndItsArgument) {
  GroupedGemm const grouped = fp16_row_major();
  std::vector<GemmGroup> groups = {group(0, 64, 64, 64), group(1, 64, 64, 64),
                                   group(2, 64, 64, 64)};
  groups[1].b.dtype = ScalarType::BF16;
  std::string const dtype =
      testing::thrown_message<DtypeError>([&] { (void)grouped.arguments(groups); });
  EXPECT_CONTAINS(dtype, "GroupedGemm: groups[1]: ");
  EXPECT_CONTAINS(dtype, "`groups[1].b`");

  groups[1] = group(1, 64, 64, 64);
  groups[2].b = row_major(fake(200), kF16, 32, 64);  // K = 32 against A's 64
  std::string const shape = invalid_argument_message([&] { (void)grouped.arguments(groups); });
  EXPECT_CONTAINS(shape, "GroupedGemm: groups[2]: ");
}

// run() checks every group before it enqueues one: a bad last group is refused as such, not
// after the first groups ran (here, without a GPU, the first run would fail on the device).
TEST(GroupedGemm, RunChecksEveryGroupFirst) {
  GroupedGemm const grouped = fp16_row_major();
  std::vector<GemmGroup> groups = {group(0, 64, 64, 64), group(1, 64, 64, 64)};
  groups[1].d.dtype = ScalarType::F32;
  groups[1].c = {};
  std::string const message =
      testing::thrown_message<std::invalid_argument>([&] { grouped.run(groups); });
  EXPECT_CONTAINS(message, "GroupedGemm: groups[1]: ");
}

// prepare() checks every group as run() does, and names itself.
TEST(GroupedGemm, PrepareChecksEveryGroupFirst) {
  GroupedGemm const grouped = fp16_row_major();
  std::vector<GemmGroup> groups = {group(0, 64, 64, 64), group(1, 64, 64, 64)};
  groups[1].d.dtype = ScalarType::F32;
  std::string const message =
      testing::thrown_message<std::invalid_argument>([&] { (void)grouped.prepare(groups); });
  EXPECT_CONTAINS(message, "GroupedGemm: groups[1]: ");
}

// run_contiguous takes the experts from b's batches: none is refused before anything else (the
// rest of its checks are run()'s on the stacked problem, which asks for the device first, and
// gemm::grouped_gemm_contiguous's, tested in tests/cpu/gemm/gemm_args_test.cpp).
TEST(GroupedGemm, TheContiguousLayoutNeedsAnExpert) {
  GroupedGemm const grouped = fp16_row_major();
  TensorView const a = row_major(fake(16), kF16, 300, 64);
  TensorView const d = row_major(fake(128), kF16, 300, 128);
  TensorView b = row_major(fake(64), kF16, 64, 128, /*batch=*/4);
  b.batch = 0;
  auto const* ends = static_cast<int const*>(fake(256));
  EXPECT_EQ(invalid_argument_message([&] { grouped.run_contiguous(a, b, {}, d, ends); }),
            "GroupedGemm.run_contiguous: b holds 0 matrices: give one K x N matrix per expert (1 "
            "to 2^31 - 1)");
}

// The launch's tile scheduling: Auto by default, set and read back; a value out of range is
// refused by name when set, before the device is asked for; the dynamic scheduler takes a plan
// compiled for either design (ping-pong takes its tiles in pairs).
TEST(GroupedGemm, TheDynamicSchedulerTakesEitherDesign) {
  // bf16 "tn": its ping-pong instance is prebuilt, so compile() loads it without a JIT compile.
  GroupedGemm grouped(GemmOptions{.element = ScalarType::BF16,
                                  .layout = MatrixLayout::RowMajor,
                                  .layout_b = MatrixLayout::ColMajor,
                                  .arch = Arch::Sm90});
  EXPECT_EQ(grouped.tile_scheduling(), gemm::TileScheduling::Auto);
  EXPECT_EQ(invalid_argument_message(
                [&] { grouped.set_tile_scheduling(static_cast<gemm::TileScheduling>(4)); }),
            "GroupedGemm.tile_scheduling = TileScheduling(4) is out of range: the values are "
            "auto, static, dynamic (0 to 2), and stream-k (3), which the grouped kernel does not "
            "take");
  EXPECT_NE(
      invalid_argument_message([&] {
        grouped.set_tile_scheduling(gemm::TileScheduling::StreamK);
      }).find("GroupedGemm.tile_scheduling = stream-k: stream-K cuts the tiles of one matrix"),
      std::string::npos);
  grouped.set_tile_scheduling(gemm::TileScheduling::Dynamic);
  EXPECT_EQ(grouped.tile_scheduling(), gemm::TileScheduling::Dynamic);
  std::vector<GemmGroup> const groups = {{.a = row_major(fake(16), ScalarType::BF16, 64, 64),
                                          .b = column_major(fake(32), ScalarType::BF16, 64, 64),
                                          .c = {},
                                          .d = row_major(fake(48), ScalarType::BF16, 64, 64)}};
  EXPECT_EQ(grouped.arguments(groups).args.size(), 1u);  // no description compiled: Auto's design
  for (TileDescription const& td : grouped.plan().tile_descriptions()) {
    if (td.design != gemm::ConsumerDesign::PingPong || td.cluster_m * td.cluster_n != 1 ||
        td.stages != 6 || td.staging_buffers != 1)
      continue;
    grouped.plan().compile(td);
    break;
  }
  ASSERT_TRUE(grouped.plan().tile_description().has_value());
  EXPECT_EQ(grouped.arguments(groups).args.size(), 1u);
  grouped.set_tile_scheduling(gemm::TileScheduling::Static);
  EXPECT_EQ(grouped.arguments(groups).args.size(), 1u);
}

// The grouped kernel runs its design's own tile: a plan compiled to the cooperative design's
// narrow tile (listed for the dense GEMM) is refused by name when run, before the device is asked.
TEST(GroupedGemm, ANarrowTileIsRefusedByName) {
  // bf16 "tn" 128 x 64: prebuilt, so compile() loads it without a JIT compile.
  GroupedGemm grouped(GemmOptions{.element = ScalarType::BF16,
                                  .layout = MatrixLayout::RowMajor,
                                  .layout_b = MatrixLayout::ColMajor,
                                  .arch = Arch::Sm90});
  for (TileDescription const& td : grouped.plan().tile_descriptions()) {
    if (td.tile_n != 64 || td.cluster_m * td.cluster_n != 1 ||
        td.scheduler != TileScheduler::Persistent || td.stages != 8)
      continue;
    grouped.plan().compile(td);
    break;
  }
  ASSERT_TRUE(grouped.plan().tile_description().has_value());
  std::vector<GemmGroup> const groups = {{.a = row_major(fake(16), ScalarType::BF16, 64, 64),
                                          .b = column_major(fake(32), ScalarType::BF16, 64, 64),
                                          .c = {},
                                          .d = row_major(fake(48), ScalarType::BF16, 64, 64)}};
  EXPECT_EQ(invalid_argument_message([&] { grouped.run(groups); }),
            "GroupedGemm.run: the plan's compiled tile description (cooperative 128x64x64, 8 "
            "stages, 2 staging buffers, cluster 1x1, raster panel 8) is a narrow tile, and the "
            "grouped kernel runs its design's own (cooperative 128x256): compile one of those");
}

}  // namespace
}  // namespace warploom::ops
