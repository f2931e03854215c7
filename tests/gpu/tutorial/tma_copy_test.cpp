// tests/gpu/tutorial/tma_copy_test.cpp — tutorial 02 on the GPU.
#include <cstdint>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "tutorial/tma_copy.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace tut = warploom::tutorial;
namespace wt = warploom::testing;

namespace {

using Case = std::tuple<tut::TmaCopyVariant, tut::Implementation, int, int>;

class TmaCopy : public ::testing::TestWithParam<Case> {};

TEST_P(TmaCopy, CopiesRandomMatrixIntoPoisonedOutput) {
  auto [variant, impl, rows, cols] = GetParam();
  std::size_t const bytes = static_cast<std::size_t>(rows) * cols * sizeof(__half);
  wt::DeviceBuffer src(bytes), dst(bytes + 256);  // 256 guard bytes past the end must stay poisoned
  wt::fill_random(src.get(), bytes, /*seed=*/rows * 131 + cols);
  wt::poison(dst.get(), bytes + 256);
  tut::tma_copy(variant, impl, src.as<__half>(), dst.as<__half>(), rows, cols);
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  wt::Comparison c = wt::compare_bytes(src.get(), dst.get(), bytes);
  EXPECT_TRUE(c.equal()) << tut::to_string(variant)
                         << (impl == tut::Implementation::Baseline ? " baseline" : " TS")
                         << " rows=" << rows << " cols=" << cols << ": " << c.mismatched_bytes
                         << " bytes differ, first at byte " << c.first_mismatch;
  EXPECT_TRUE(wt::compare_with_poison(static_cast<char*>(dst.get()) + bytes, 256).equal())
      << "the kernel wrote past the end of the output";
}

std::string case_name(::testing::TestParamInfo<Case> const& info) {
  auto [variant, impl, rows, cols] = info.param;
  return std::string(variant == tut::TmaCopyVariant::Seed ? "Seed" : "MultiStage") +
         (impl == tut::Implementation::Baseline ? "Baseline" : "TS") + "_" + std::to_string(rows) +
         "x" + std::to_string(cols);
}

// Rows cover one row, partial tiles (not a multiple of 32), partial CTA bands (not a multiple of
// 256) and several bands; columns one and several 128-wide tiles.
INSTANTIATE_TEST_SUITE_P(Shapes, TmaCopy,
                         ::testing::Combine(::testing::Values(tut::TmaCopyVariant::Seed,
                                                              tut::TmaCopyVariant::MultiStage),
                                            ::testing::Values(tut::Implementation::TaskScheduled,
                                                              tut::Implementation::Baseline),
                                            ::testing::Values(1, 7, 33, 256, 1000),
                                            ::testing::Values(128, 384, 1024)),
                         case_name);

TEST(TmaCopyLarge, MultiStageCopiesSixteenMegabytes) {
  int const rows = 4097, cols = 2048;  // 16 MiB, bands of 256 rows with a 1-row remainder
  std::size_t const bytes = static_cast<std::size_t>(rows) * cols * sizeof(__half);
  wt::DeviceBuffer src(bytes), dst(bytes);
  for (auto impl : {tut::Implementation::TaskScheduled, tut::Implementation::Baseline}) {
    wt::fill_random(src.get(), bytes, 99);
    wt::poison(dst.get(), bytes);
    tut::tma_copy(tut::TmaCopyVariant::MultiStage, impl, src.as<__half>(), dst.as<__half>(), rows,
                  cols);
    wt::Comparison c = wt::compare_bytes(src.get(), dst.get(), bytes);
    EXPECT_TRUE(c.equal()) << c.mismatched_bytes << " bytes differ, first at " << c.first_mismatch;
  }
}

}  // namespace
