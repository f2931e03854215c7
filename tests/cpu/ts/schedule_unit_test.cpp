// tests/cpu/ts/schedule_unit_test.cpp — the compile-time names of template schedules
// (ts::ScheduleText, warploom/ts/schedule_unit.hpp).

#include <gtest/gtest.h>

#include <climits>
#include <string_view>

#include "warploom/ts/schedule_unit.hpp"

namespace schedule_unit_test {

namespace ts = warploom::ts;

// What a schedule's kName needs: a constant, usable where the schedule type is.
template <int kStages, int kRows>
struct Tuned {
  static constexpr ts::ScheduleText kNameText = ts::schedule_text("copy_s", kStages, "_r", kRows);
  static constexpr std::string_view kName = kNameText.view();
};
static_assert(Tuned<8, 128>::kName == "copy_s8_r128");
static_assert(Tuned<0, 10>::kName == "copy_s0_r10");

TEST(ScheduleText, SpellsItsPartsInOrder) {
  EXPECT_EQ(ts::schedule_text().view(), "");
  EXPECT_EQ(ts::schedule_text("u", 1, "", 20, std::string_view("x")).view(), "u120x");
  EXPECT_EQ(ts::schedule_text("a", ts::schedule_text("b", 2), "c").view(), "ab2c");
  EXPECT_EQ(ts::schedule_text(INT_MAX, " ", INT_MIN, " ", -7).view(), "2147483647 -2147483648 -7");
}

}  // namespace schedule_unit_test
