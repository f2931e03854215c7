// tests/gpu/tutorial/segment_copy_test.cpp — tutorial 03's dynamic domain on the GPU: random
// segment lengths (empty ones, ones longer than a row, which are cut), random packed data,
// poisoned rows; every row holds its segment's first min(length, row) elements and poison after
// them, and the offsets the device computed are the lengths' exclusive prefix sum.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "tutorial/segment_copy.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace tut = warploom::tutorial;
namespace wt = warploom::testing;

namespace {

using Case = std::tuple<int, int, int>;  // segments, row elements, blocks

class SegmentCopy : public ::testing::TestWithParam<Case> {};

TEST_P(SegmentCopy, EachRowHoldsItsSegmentAndPoisonAfterIt) {
  auto [segments, row, blocks] = GetParam();
  std::mt19937 rng(static_cast<std::uint32_t>(segments * 131 + row));
  std::vector<int> lengths(static_cast<std::size_t>(segments));
  for (int& l : lengths) l = static_cast<int>(rng() % static_cast<std::uint32_t>(row + 6));
  lengths[0] = 0;  // an empty segment
  std::vector<int> offsets(lengths.size());
  long long total = 0;
  for (std::size_t s = 0; s < lengths.size(); ++s) {
    offsets[s] = static_cast<int>(total);
    total += lengths[s];
  }
  std::size_t const packed_bytes = static_cast<std::size_t>(std::max(total, 1LL)) * 2;
  std::size_t const padded_bytes = static_cast<std::size_t>(segments) * row * 2;
  wt::DeviceBuffer packed(packed_bytes), padded(padded_bytes), device_offsets(lengths.size() * 4);
  wt::DeviceBuffer device_lengths = wt::upload(lengths);
  wt::fill_random(packed.get(), packed_bytes, /*seed=*/static_cast<std::uint64_t>(segments));
  wt::poison(padded.get(), padded_bytes);
  wt::poison(device_offsets.get(), lengths.size() * 4);
  tut::segment_copy(packed.as<std::int16_t>(), device_lengths.as<int>(), segments, row,
                    padded.as<std::int16_t>(), device_offsets.as<int>(), blocks);
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::int16_t> in(packed_bytes / 2), out(padded_bytes / 2);
  std::vector<int> got_offsets(lengths.size());
  WL_CUDA_CHECK(cudaMemcpy(in.data(), packed.get(), packed_bytes, cudaMemcpyDeviceToHost));
  WL_CUDA_CHECK(cudaMemcpy(out.data(), padded.get(), padded_bytes, cudaMemcpyDeviceToHost));
  WL_CUDA_CHECK(cudaMemcpy(got_offsets.data(), device_offsets.get(), lengths.size() * 4,
                           cudaMemcpyDeviceToHost));
  EXPECT_EQ(got_offsets, offsets);
  for (int s = 0; s < segments; ++s) {
    int const kept = std::min(lengths[s], row);
    for (int i = 0; i < row; ++i) {
      std::int16_t const want = i < kept ? in[static_cast<std::size_t>(offsets[s] + i)] : -1;
      ASSERT_EQ(out[static_cast<std::size_t>(s) * row + i], want)
          << "segment " << s << " (length " << lengths[s] << "), element " << i;
    }
  }
}

std::string case_name(::testing::TestParamInfo<Case> const& info) {
  auto [segments, row, blocks] = info.param;
  return "segments" + std::to_string(segments) + "_row" + std::to_string(row) + "_blocks" +
         std::to_string(blocks);
}

// Rows shorter and longer than the 128 copy threads; more segments than one scan chunk (1024);
// 2 CTAs (many segments each), a full GPU, and more CTAs than segments.
INSTANTIATE_TEST_SUITE_P(Shapes, SegmentCopy,
                         ::testing::Combine(::testing::Values(1, 37, 3000),
                                            ::testing::Values(5, 300),
                                            ::testing::Values(2, 0, 500)),
                         case_name);

}  // namespace
