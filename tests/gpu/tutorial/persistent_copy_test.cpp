// tests/gpu/tutorial/persistent_copy_test.cpp — tutorial 03's persistent copy on the GPU: every
// tile the mask keeps is copied, every tile it skips keeps its poison, nothing past n is written,
// over the static and the dynamic queue, with few CTAs (many tiles each), a full GPU and more
// CTAs than tiles (over-launch); and the dynamic copy captured in a CUDA graph and replayed (its
// counter reset is a node of the graph).
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "tutorial/persistent_copy.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace tut = warploom::tutorial;
namespace wt = warploom::testing;

namespace {

constexpr std::size_t kTileBytes = tut::kPersistentTileElems * sizeof(std::int16_t);

// A mask skipping about one tile in `every` (0: none), from `seed`.
std::vector<std::uint8_t> skip_mask(std::int64_t tiles, int every, std::uint32_t seed) {
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(tiles), 0);
  if (every == 0) return mask;
  std::mt19937 rng(seed);
  for (auto& m : mask) m = rng() % static_cast<std::uint32_t>(every) == 0 ? 1 : 0;
  return mask;
}

// Checks dst against src tile by tile on the host: kept tiles equal, skipped tiles all poison
// (0xFF), the 64 bytes after n still poison.
void expect_copied(void const* src, void const* dst, std::int64_t n,
                   std::vector<std::uint8_t> const& mask, std::string const& what) {
  std::size_t const bytes = static_cast<std::size_t>(n) * sizeof(std::int16_t);
  std::vector<unsigned char> in(bytes), out(bytes + 64);
  WL_CUDA_CHECK(cudaMemcpy(in.data(), src, bytes, cudaMemcpyDeviceToHost));
  WL_CUDA_CHECK(cudaMemcpy(out.data(), dst, bytes + 64, cudaMemcpyDeviceToHost));
  auto const poisoned = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      if (out[i] != 0xFF) return i;
    return end;
  };
  for (std::size_t t = 0; t < mask.size(); ++t) {
    std::size_t const begin = t * kTileBytes, end = std::min(begin + kTileBytes, bytes);
    std::size_t first = end;
    if (mask[t]) {
      first = poisoned(begin, end);
    } else {
      for (std::size_t i = begin; i < end && first == end; ++i)
        if (out[i] != in[i]) first = i;
    }
    ASSERT_EQ(first, end) << what << ": tile " << t << (mask[t] ? " (skipped)" : " (kept)")
                          << " differs first at byte " << first;
  }
  EXPECT_EQ(poisoned(bytes, bytes + 64), bytes + 64) << what << ": the copy wrote past element n-1";
}

using Case = std::tuple<tut::TileQueueKind, std::int64_t, int, int>;  // queue, n, blocks, skip 1/k

class PersistentCopy : public ::testing::TestWithParam<Case> {};

TEST_P(PersistentCopy, KeptTilesAreCopiedSkippedTilesUntouched) {
  auto [queue, n, blocks, every] = GetParam();
  std::size_t const bytes = static_cast<std::size_t>(n) * sizeof(std::int16_t);
  std::int64_t const tiles = (n + tut::kPersistentTileElems - 1) / tut::kPersistentTileElems;
  wt::DeviceBuffer src(bytes), dst(bytes + 64), counter(sizeof(int));
  for (int round = 0; round < 3; ++round) {
    std::vector<std::uint8_t> const mask =
        skip_mask(tiles, every, static_cast<std::uint32_t>(n + round));
    wt::DeviceBuffer skip = wt::upload(mask);
    wt::fill_random(src.get(), bytes, /*seed=*/static_cast<std::uint64_t>(n) * 4 + round);
    wt::poison(dst.get(), bytes + 64);
    wt::poison(counter.get(), sizeof(int));  // the launcher must reset it
    tut::persistent_copy(src.as<std::int16_t>(), dst.as<std::int16_t>(), n,
                         every == 0 ? nullptr : skip.as<std::uint8_t>(), queue, blocks,
                         counter.as<int>());
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    expect_copied(src.get(), dst.get(), n, mask, "round " + std::to_string(round));
  }
}

std::string case_name(::testing::TestParamInfo<Case> const& info) {
  auto [queue, n, blocks, every] = info.param;
  return std::string(queue == tut::TileQueueKind::Static ? "Static" : "Dynamic") + "_n" +
         std::to_string(n) + "_blocks" + std::to_string(blocks) + "_skip" + std::to_string(every);
}

// n: less than a tile, a partial last tile, many tiles; blocks: 3 (many tiles per CTA), 0 (a full
// GPU), 300 (over-launch: more CTAs than the 4-tile and 1-tile cases have tiles); skip: none, about
// one tile in 3, every tile.
INSTANTIATE_TEST_SUITE_P(
    Sizes, PersistentCopy,
    ::testing::Combine(::testing::Values(tut::TileQueueKind::Static, tut::TileQueueKind::Dynamic),
                       ::testing::Values<std::int64_t>(1000, 4 * 4096 - 8, (1 << 22) + 4096 + 8),
                       ::testing::Values(3, 0, 300), ::testing::Values(0, 3, 1)),
    case_name);

// The dynamic copy captured with its counter reset, replayed on new input: each replay starts
// from tile 0 (a counter left at the previous run's end would hand out only invalid tiles).
TEST(PersistentCopyGraph, DynamicQueueCapturedAndReplayed) {
  std::int64_t const n = (1 << 21) + 8;
  std::size_t const bytes = static_cast<std::size_t>(n) * sizeof(std::int16_t);
  std::int64_t const tiles = (n + tut::kPersistentTileElems - 1) / tut::kPersistentTileElems;
  std::vector<std::uint8_t> const mask = skip_mask(tiles, 4, 7);
  wt::DeviceBuffer src(bytes), dst(bytes + 64), counter(sizeof(int));
  wt::DeviceBuffer skip = wt::upload(mask);
  cudaStream_t stream = nullptr;
  WL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  WL_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  tut::persistent_copy(src.as<std::int16_t>(), dst.as<std::int16_t>(), n, skip.as<std::uint8_t>(),
                       tut::TileQueueKind::Dynamic, 0, counter.as<int>(), stream);
  WL_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  WL_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 3; ++round) {
    wt::fill_random(src.get(), bytes, /*seed=*/200 + round, stream);
    wt::poison(dst.get(), bytes + 64, 0xFF, stream);
    WL_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    WL_CUDA_CHECK(cudaStreamSynchronize(stream));
    expect_copied(src.get(), dst.get(), n, mask, "replay " + std::to_string(round));
  }
  WL_CUDA_CHECK(cudaGraphExecDestroy(exec));
  WL_CUDA_CHECK(cudaGraphDestroy(graph));
  WL_CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace
