// tests/cpu/ts/verify/smem_test.cpp — R-D21 shared-memory capacity (warploom/ts/verify/smem.hpp):
// buffers, alignment padding and pipeline barriers together must fit the block.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../fixtures.hpp"

namespace {

using namespace fixtures;
using ts::Rule;
using Ids = std::vector<std::string>;

// CopyManager needs 544 bytes: smem.tiles 512 + 2 x 2 barriers of 8 bytes.
template <long long kCapacity>
using CopyWithin = ts::TaskManager<ts::Tasks<LoadTask, StoreTask>, CopyGraph,
                                   ts::ManagerOptions{.smem_capacity = kCapacity}>;

TEST(Verify, R_D21_LayoutOneByteOverTheCapacityIsRejected) {
  ts::Report r = verify_manager<CopyWithin<543>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D21"});
  ts::Violation const* v = first_of(r, Rule::D21_SmemCapacity);
  EXPECT_EQ(v->task, "");
  EXPECT_EQ(v->resource, "");
  EXPECT_EQ(v->message,
            "the layout needs 544 bytes of shared memory (buffers 512, barriers 32) but a block "
            "can have 543; the largest buffer is `smem.tiles` (512 bytes): use fewer stages or "
            "smaller tiles");
}

TEST(Verify, R_D21_LayoutExactlyAtTheCapacityIsAccepted) {
  EXPECT_TRUE(verify_manager<CopyWithin<544>>().ok());
}

// The default capacity is Hopper's 227 KiB opt-in; alignment padding and barriers count.
TEST(Verify, R_D21_DefaultCapacityCountsPaddingAndBarriers) {
  ts::ManagerModel m = CopyManager::model();
  ASSERT_EQ(m.smem_capacity, 232448);
  // A 128-aligned buffer after smem.tiles (512 bytes) ends at 512 + bytes; barriers follow.
  m.smem.push_back({"staging", 2, 232448 - 544, 128});
  EXPECT_TRUE(ts::verify_structure(m).ok());
  m.smem.back().bytes += 1;  // 232417 bytes end at 232417, barriers start at 232424
  ts::Report r = ts::verify_structure(m);
  ASSERT_EQ(rule_ids(r), Ids{"R-D21"});
  EXPECT_EQ(r.violations[0].message,
            "the layout needs 232456 bytes of shared memory (buffers 232417, barriers 32) but a "
            "block can have 232448; the largest buffer is `output_gmem.staging` (231905 bytes): "
            "use fewer stages or smaller tiles");
}

}  // namespace
