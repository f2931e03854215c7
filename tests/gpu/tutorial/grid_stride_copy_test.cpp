// tests/gpu/tutorial/grid_stride_copy_test.cpp — tutorial 01 on the GPU.
#include <cstdint>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "tutorial/grid_stride_copy.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace tut = warploom::tutorial;
namespace wt = warploom::testing;

namespace {

using Case = std::tuple<tut::GridStrideVariant, tut::Implementation, std::int64_t, int>;

class GridStrideCopy : public ::testing::TestWithParam<Case> {};

TEST_P(GridStrideCopy, CopiesRandomInt16IntoPoisonedOutput) {
  auto [variant, impl, n, blocks] = GetParam();
  std::size_t const bytes = static_cast<std::size_t>(n) * sizeof(std::int16_t);
  wt::DeviceBuffer src(bytes + 2), dst(bytes + 64);
  wt::fill_random(src.get(), bytes, /*seed=*/static_cast<std::uint64_t>(n) + blocks);
  wt::poison(dst.get(), bytes + 64);
  tut::grid_stride_copy(variant, impl, src.as<std::int16_t>(), dst.as<std::int16_t>(), n, blocks);
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  wt::Comparison c = wt::compare_bytes(src.get(), dst.get(), bytes);
  EXPECT_TRUE(c.equal()) << tut::to_string(variant)
                         << (impl == tut::Implementation::Baseline ? " baseline" : " TS")
                         << " n=" << n << " blocks=" << blocks << ": " << c.mismatched_bytes
                         << " bytes differ, first at byte " << c.first_mismatch;
  EXPECT_TRUE(wt::compare_with_poison(static_cast<char*>(dst.get()) + bytes, 64).equal())
      << "the kernel wrote past element n-1";
}

std::string case_name(::testing::TestParamInfo<Case> const& info) {
  auto [variant, impl, n, blocks] = info.param;
  return std::string(variant == tut::GridStrideVariant::Scalar ? "Scalar" : "Vector") +
         (impl == tut::Implementation::Baseline ? "Baseline" : "TS") + "_n" + std::to_string(n) +
         "_blocks" + std::to_string(blocks);
}

// n covers empty, less than one vector item, less than a warp, not a multiple of the item, the
// grid's threads or the unroll, and several grid strides; blocks = 0 fills the GPU.
INSTANTIATE_TEST_SUITE_P(Sizes, GridStrideCopy,
                         ::testing::Combine(::testing::Values(tut::GridStrideVariant::Scalar,
                                                              tut::GridStrideVariant::Vector),
                                            ::testing::Values(tut::Implementation::TaskScheduled,
                                                              tut::Implementation::Baseline),
                                            ::testing::Values<std::int64_t>(0, 1, 7, 31, 1000,
                                                                            (1 << 20) + 7, 3 << 22),
                                            ::testing::Values(1, 3, 256, 0)),
                         case_name);

}  // namespace
