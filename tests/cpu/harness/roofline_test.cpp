// tests/cpu/harness/roofline_test.cpp — warploom/harness/roofline.hpp
#include "warploom/harness/roofline.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace warploom::harness {
namespace {

// Round ceilings of H200's order (../shared/BRIEF.md): ~700 TFLOP/s bf16 measured by a large
// cuBLAS GEMM, ~4 TB/s measured by a device-to-device copy.
constexpr Ceilings kCeilings{.flops_per_s = 700e12, .bytes_per_s = 4e12};

TEST(Roofline, ComputeBoundGemm) {
  // bf16 8192^3: 2 * 8192^3 flops, 3 * 8192^2 * 2 bytes.
  double const n = 8192;
  Work const w{.flops = 2 * n * n * n, .bytes = 3 * n * n * 2};
  EXPECT_DOUBLE_EQ(kCeilings.ridge(), 175.0);
  RooflinePoint const p = roofline(w, 1.7e-3, kCeilings);
  EXPECT_EQ(p.bound, Bound::Compute);
  EXPECT_DOUBLE_EQ(p.intensity, w.flops / w.bytes);
  EXPECT_GT(p.intensity, kCeilings.ridge());
  EXPECT_DOUBLE_EQ(p.bound_seconds, w.flops / 700e12);
  EXPECT_DOUBLE_EQ(p.achieved_flops_per_s, w.flops / 1.7e-3);
  EXPECT_DOUBLE_EQ(p.fraction_of_bound, (w.flops / 700e12) / 1.7e-3);
  EXPECT_LT(p.fraction_of_bound, 1.0);
  EXPECT_EQ(to_string(p.bound), "compute");
}

TEST(Roofline, MemoryBoundCopy) {
  // A 1 GiB copy: read + written, no flops.
  Work const w{.flops = 0, .bytes = 2.0 * (1 << 30)};
  RooflinePoint const p = roofline(w, 0.6e-3, kCeilings);
  EXPECT_EQ(p.bound, Bound::Memory);
  EXPECT_DOUBLE_EQ(p.intensity, 0.0);
  EXPECT_DOUBLE_EQ(p.bound_seconds, w.bytes / 4e12);
  EXPECT_DOUBLE_EQ(p.achieved_bytes_per_s, w.bytes / 0.6e-3);
  EXPECT_NEAR(p.fraction_of_bound, (w.bytes / 4e12) / 0.6e-3, 1e-12);
  EXPECT_EQ(to_string(p.bound), "memory");
}

TEST(Roofline, ShortKGemmNearTheRidge) {
  // bf16 8192 x 8192 x 128: intensity 2MNK / (2 (MK + KN + MN)) = 124 < 175: memory bound.
  double const m = 8192, n = 8192, k = 128;
  Work const w{.flops = 2 * m * n * k, .bytes = 2 * (m * k + k * n + m * n)};
  RooflinePoint const p = roofline(w, w.bytes / 4e12, kCeilings);  // exactly at the bound
  EXPECT_EQ(p.bound, Bound::Memory);
  EXPECT_DOUBLE_EQ(p.fraction_of_bound, 1.0);
}

TEST(Roofline, WorkWithoutBytesHasInfiniteIntensity) {
  RooflinePoint const p = roofline({.flops = 1e9, .bytes = 0}, 1e-3, kCeilings);
  EXPECT_TRUE(std::isinf(p.intensity));
  EXPECT_EQ(p.bound, Bound::Compute);
}

TEST(Roofline, RejectsNonPositiveTimesCeilingsAndEmptyWork) {
  Work const w{.flops = 1e9, .bytes = 1e6};
  EXPECT_THROW(roofline(w, 0.0, kCeilings), std::invalid_argument);
  EXPECT_THROW(roofline(w, -1.0, kCeilings), std::invalid_argument);
  EXPECT_THROW(roofline(w, 1.0, {.flops_per_s = 0, .bytes_per_s = 1}), std::invalid_argument);
  EXPECT_THROW(roofline(w, 1.0, {.flops_per_s = 1, .bytes_per_s = std::nan("")}),
               std::invalid_argument);
  EXPECT_THROW(roofline({.flops = 0, .bytes = 0}, 1.0, kCeilings), std::invalid_argument);
  EXPECT_THROW(roofline({.flops = -1, .bytes = 1}, 1.0, kCeilings), std::invalid_argument);
  try {
    roofline(w, 1.0, {.flops_per_s = 1, .bytes_per_s = 0});
    FAIL() << "no exception";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("ceilings.bytes_per_s"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace warploom::harness
