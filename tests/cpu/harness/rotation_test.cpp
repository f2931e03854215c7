// tests/cpu/harness/rotation_test.cpp — warploom/harness/rotation.hpp
#include "warploom/harness/rotation.hpp"

#include <cstddef>
#include <stdexcept>

#include <gtest/gtest.h>

namespace warploom::harness {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kH200L2 = 60 * kMiB;  // ../shared/BRIEF.md: 60 MiB (50 MiB usable per die)

TEST(PlanRotation, FewestSetsWhoseCycleExceedsTwiceTheL2) {
  // bf16 4096^3: A, B and D 32 MiB each, 96 MiB per set; 120 MiB needed: 2 sets.
  Rotation r = plan_rotation(96 * kMiB, kH200L2);
  EXPECT_EQ(r.sets, 2);
  EXPECT_EQ(r.cycle_bytes, 192 * kMiB);
  EXPECT_FALSE(r.capped);
  // Exactly 2x L2 in one cycle is enough.
  r = plan_rotation(40 * kMiB, kH200L2);
  EXPECT_EQ(r.sets, 3);
  EXPECT_EQ(r.cycle_bytes, 120 * kMiB);
  // A set bigger than 2x L2 evicts itself: one set.
  r = plan_rotation(512 * kMiB, kH200L2);
  EXPECT_EQ(r.sets, 1);
  EXPECT_FALSE(r.capped);
}

TEST(PlanRotation, OtherFactorsAndTheCap) {
  EXPECT_EQ(plan_rotation(10 * kMiB, kH200L2, 1.0).sets, 6);
  EXPECT_EQ(plan_rotation(10 * kMiB, kH200L2, 3.0, 18).sets, 18);
  EXPECT_TRUE(plan_rotation(10 * kMiB, kH200L2, 3.0).capped);  // 18 wanted, 16 allowed
  Rotation const r = plan_rotation(1 * kMiB, kH200L2);         // 120 sets wanted
  EXPECT_EQ(r.sets, 16);
  EXPECT_TRUE(r.capped);
  EXPECT_EQ(r.cycle_bytes, 16 * kMiB);
  EXPECT_EQ(plan_rotation(1 * kMiB, 0).sets, 1);  // no L2: nothing to evict
}

TEST(PlanRotation, RejectsBadArguments) {
  EXPECT_THROW(plan_rotation(0, kH200L2), std::invalid_argument);
  EXPECT_THROW(plan_rotation(kMiB, kH200L2, 0.0), std::invalid_argument);
  EXPECT_THROW(plan_rotation(kMiB, kH200L2, 2.0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace warploom::harness
