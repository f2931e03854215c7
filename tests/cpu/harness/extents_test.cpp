// tests/cpu/harness/extents_test.cpp — warploom/harness/extents.hpp
#include "warploom/harness/extents.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "warploom/testing/invalid_argument.hpp"

namespace warploom::harness {
namespace {

using warploom::testing::invalid_argument_message;

using Extents = std::vector<std::int64_t>;

TEST(ParseExtents, Shapes) {
  EXPECT_EQ(parse_extents("8192x8192x1024", 3, "--shapes"), (Extents{8192, 8192, 1024}));
  EXPECT_EQ(parse_extents("1x1x1", 3, "--shapes"), (Extents{1, 1, 1}));
  EXPECT_EQ(parse_extents("1073741824", 1, "--bytes", 1LL << 40), (Extents{1LL << 30}));
  EXPECT_EQ(parse_extents("2147483647x1", 2, "--x"), (Extents{2147483647, 1}));
}

TEST(ParseExtents, RejectsWhatIsNotExactlyTheShape) {
  for (char const* bad : {"4096x4096", "4096x4096x4096x2", "4096x4096x4096abc", "4096x-1x64",
                          "4096xx64", "x4096x64", "4096x4096x", "", "0x1x1", "4096 x4096x64",
                          "+4096x4096x64", "4096x4096x2147483648", "3e3x1x1"}) {
    SCOPED_TRACE(bad);
    std::string const e = invalid_argument_message([&] { parse_extents(bad, 3, "--shapes"); });
    EXPECT_NE(e.find("--shapes: `" + std::string(bad) + "`"), std::string::npos) << e;
  }
  EXPECT_NE(invalid_argument_message([] {
              parse_extents("4096x4096", 3, "--shapes");
            }).find("has 2 extents, not MxNxK"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([] {
              parse_extents("0x1x1", 3, "--shapes");
            }).find("outside [1, 2147483647]"),
            std::string::npos);
}

TEST(ParseExtentsList, CommaListsOfShapes) {
  EXPECT_EQ(parse_extents_list("4096x4096x4096,3000x5000x700", 3, "--shapes"),
            (std::vector<Extents>{{4096, 4096, 4096}, {3000, 5000, 700}}));
  EXPECT_THROW(parse_extents_list("4096x4096x4096,", 3, "--shapes"), std::invalid_argument);
  EXPECT_THROW(parse_extents_list("", 3, "--shapes"), std::invalid_argument);
}

TEST(SplitList, ItemsInOrderNoEmptyOnes) {
  EXPECT_EQ(split_list("warploom,cublas,cutlass", "--providers"),
            (std::vector<std::string>{"warploom", "cublas", "cutlass"}));
  EXPECT_EQ(split_list("one", "--providers"), (std::vector<std::string>{"one"}));
  EXPECT_NE(invalid_argument_message([] {
              split_list("a,,b", "--providers");
            }).find("--providers: `a,,b` has an"),
            std::string::npos);
  EXPECT_THROW(split_list("", "--providers"), std::invalid_argument);
  EXPECT_THROW(split_list(",a", "--providers"), std::invalid_argument);
}

}  // namespace
}  // namespace warploom::harness
