// tests/gpu/tutorial/pdl_copy_chain_test.cpp — tutorial 04's PDL copy chain on the GPU: c = b = a
// with the second copy launched plainly and as a programmatic dependent, many chains back to back
// (a wait that let the second copy read b early would show as a stale or poisoned c), and the
// chain captured in a CUDA graph and replayed.
#include <cstdint>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "tutorial/pdl_copy_chain.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace tut = warploom::tutorial;
namespace ts = warploom::ts;
namespace wt = warploom::testing;

namespace {

using Case = std::tuple<ts::StreamOrder, std::int64_t, int>;

class PdlCopyChain : public ::testing::TestWithParam<Case> {};

// Each round copies a fresh random `a` through a poisoned `b` into `c`: were the second copy to
// read b before the first finished writing it, c would hold poison or the previous round's data.
TEST_P(PdlCopyChain, TheSecondCopyReadsWhatTheFirstWrote) {
  auto [order, n, blocks] = GetParam();
  std::size_t const bytes = static_cast<std::size_t>(n) * sizeof(std::int16_t);
  wt::DeviceBuffer a(bytes), b(bytes), c(bytes + 64);
  for (int round = 0; round < 4; ++round) {
    wt::fill_random(a.get(), bytes, /*seed=*/static_cast<std::uint64_t>(n) * 8 + round);
    wt::poison(b.get(), bytes);
    wt::poison(c.get(), bytes + 64);
    tut::pdl_copy_chain(a.as<std::int16_t>(), b.as<std::int16_t>(), c.as<std::int16_t>(), n, order,
                        blocks);
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    wt::Comparison const cmp = wt::compare_bytes(a.get(), c.get(), bytes);
    ASSERT_TRUE(cmp.equal()) << "round " << round << ": " << cmp.mismatched_bytes
                             << " bytes differ, first at byte " << cmp.first_mismatch;
  }
  EXPECT_TRUE(wt::compare_with_poison(static_cast<char*>(c.get()) + bytes, 64).equal())
      << "the second copy wrote past element n-1";
}

std::string case_name(::testing::TestParamInfo<Case> const& info) {
  auto [order, n, blocks] = info.param;
  return std::string(order == ts::StreamOrder::Programmatic ? "Programmatic" : "Serial") + "_n" +
         std::to_string(n) + "_blocks" + std::to_string(blocks);
}

// n: less than one item, not a multiple of it, several grid strides; blocks = 0 fills the GPU.
INSTANTIATE_TEST_SUITE_P(Sizes, PdlCopyChain,
                         ::testing::Combine(::testing::Values(ts::StreamOrder::Serial,
                                                              ts::StreamOrder::Programmatic),
                                            ::testing::Values<std::int64_t>(7, 1000, (1 << 22) + 5),
                                            ::testing::Values(3, 0)),
                         case_name);

// A captured chain (the programmatic edge recorded in the graph), replayed with new input.
TEST(PdlCopyChainGraph, CapturedAndReplayed) {
  std::int64_t const n = (1 << 20) + 3;
  std::size_t const bytes = static_cast<std::size_t>(n) * sizeof(std::int16_t);
  wt::DeviceBuffer a(bytes), b(bytes), c(bytes);
  cudaStream_t stream = nullptr;
  WL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  WL_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  tut::pdl_copy_chain(a.as<std::int16_t>(), b.as<std::int16_t>(), c.as<std::int16_t>(), n,
                      ts::StreamOrder::Programmatic, 0, stream);
  WL_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  WL_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  // The inputs are written on the graph's own stream: a non-blocking stream does not wait for the
  // legacy default stream's work (under racecheck's slow kernels a replay overtook the poison).
  for (int round = 0; round < 3; ++round) {
    wt::fill_random(a.get(), bytes, /*seed=*/100 + round, stream);
    wt::poison(b.get(), bytes, 0xFF, stream);
    wt::poison(c.get(), bytes, 0xFF, stream);
    WL_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    WL_CUDA_CHECK(cudaStreamSynchronize(stream));
    EXPECT_TRUE(wt::compare_bytes(a.get(), c.get(), bytes).equal()) << "replay " << round;
  }
  WL_CUDA_CHECK(cudaGraphExecDestroy(exec));
  WL_CUDA_CHECK(cudaGraphDestroy(graph));
  WL_CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace
