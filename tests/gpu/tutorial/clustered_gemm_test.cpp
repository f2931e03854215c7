// tests/gpu/tutorial/clustered_gemm_test.cpp — tutorial 04/01's clustered GEMM (2 x 1 clusters
// sharing B's tiles by TMA multicast, loads behind a PDL wait) on the GPU: D = A . B^T against a
// float64 reference, launched plainly and as a programmatic dependent; and the chain
// D1 = A . B^T, D2 = D1 . C^T back to back with PDL on one stream, directly and in a CUDA graph,
// where the second GEMM reads what the first writes.
#include <cstddef>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include "half_matrices.hpp"
#include "tutorial/clustered_gemm.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace tut = warploom::tutorial;
namespace wt = warploom::testing;
using namespace tutorial_test;

namespace {

using Bf16 = __nv_bfloat16;

// D2's bound: the fp32 accumulation of its k products in wgmma's order, each addition off by at
// most one ulp of its result (2^-23 relative: truncation as well as rounding), counted k times
// where expect_gemm counts k - 1: the bound this test had, which is the looser one for the chain's
// K below 257.
GemmExpectation d2_accumulation(int k) {
  return {.additions = k};
}

class ClusteredGemm : public ::testing::TestWithParam<GemmShape> {};

// Random multiples of 1/8 (random_eighths): every product is a multiple of 1/64 of magnitude at
// most 1, so every partial sum of K <= 4096 of them is an integer number of sixty-fourths below
// 2^18, exact in fp32's 24 bits: the one rounding, to bf16, is the only error (expect_gemm's bound
// allows for an inexact accumulation besides). A wrong tile (the cluster's rank mapping), a B half
// multicast to the wrong rows, a stale stage (a peer refilling before both CTAs released) or a
// swizzle mismatch gives errors of the order of the values.
TEST_P(ClusteredGemm, MultipliesRandomMatricesIntoAPoisonedOutput) {
  auto [m, n, k] = GetParam();
  GemmOperands g(m, n, k);
  for (bool const pdl : {false, true}) {
    std::string const what = g.what() + (pdl ? " pdl" : " plain");
    wt::poison(g.d_d.get(), g.d_d.bytes());
    tut::clustered_gemm(g.d_a.as<Bf16>(), g.d_b.as<Bf16>(), g.d_d.as<Bf16>(), m, n, k, pdl);
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    expect_gemm(g.d_d, g.a, g.b, m, n, k, what + " d");
  }
}

// One cluster and one K step; two clusters down and three tile columns with two laps of the
// 4-stage rings (8 K steps); a K that is no multiple of 4 x 64 (5 steps: a lap and one stage);
// a long K (64 steps, 16 laps); and a wide grid of clusters.
INSTANTIATE_TEST_SUITE_P(Shapes, ClusteredGemm,
                         ::testing::Values(GemmShape{256, 128, 64}, GemmShape{512, 384, 512},
                                           GemmShape{256, 256, 320}, GemmShape{256, 256, 4096},
                                           GemmShape{1024, 1024, 128}),
                         gemm_case_name);

// The chain's operands, their reference and the GPU's buffers: D1 = A . B^T (m x n), then
// D2 = D1 . C^T (m x n, C n x n: the second GEMM's K is n).
struct Chain {
  int m, n, k;
  std::vector<Bf16> a, b, c;
  wt::DeviceBuffer d_a, d_b, d_c, d_d1, d_d2;
  Chain(int m_, int n_, int k_)
      : m(m_),
        n(n_),
        k(k_),
        a(random_eighths(std::size_t{1} * m * k, 21u)),
        b(random_eighths(std::size_t{1} * n * k, 22u)),
        c(random_eighths(std::size_t{1} * n * n, 23u)),
        d_a(a.size() * sizeof(Bf16)),
        d_b(b.size() * sizeof(Bf16)),
        d_c(c.size() * sizeof(Bf16)),
        d_d1(std::size_t{1} * m * n * sizeof(Bf16) + kGuardBytes),
        d_d2(std::size_t{1} * m * n * sizeof(Bf16) + kGuardBytes) {
    upload(d_a, a);
    upload(d_b, b);
    upload(d_c, c);
  }
  void launch(cudaStream_t stream) {
    tut::clustered_gemm(d_a.as<Bf16>(), d_b.as<Bf16>(), d_d1.as<Bf16>(), m, n, k, true, stream);
    tut::clustered_gemm(d_d1.as<Bf16>(), d_c.as<Bf16>(), d_d2.as<Bf16>(), m, n, n, true, stream);
  }
  // D1 as in the single GEMM (exact accumulation). D2 against the float64 product of the D1 the
  // GPU wrote: D1's bf16 values are no multiples of 1/8, so its products with C (8 + 4 significant
  // bits) are exact in fp32 but their sums are not, hence d2_accumulation. A second GEMM that
  // read D1 before the first finished writing it reads the poison (NaN) or a partial tile.
  void expect_right(std::string const& what) {
    std::size_t const size_d = std::size_t{1} * m * n;
    std::vector<Bf16> const d1 = download<Bf16>(d_d1, size_d);
    expect_gemm(d1, a, b, m, n, k, what + " d1");
    expect_gemm(download<Bf16>(d_d2, size_d), d1, c, m, n, n, what + " d2", d2_accumulation(n));
    expect_guard_untouched<Bf16>(d_d1, size_d, what + " d1");
    expect_guard_untouched<Bf16>(d_d2, size_d, what + " d2");
  }
};

// Back to back on one stream, the second GEMM a programmatic dependent of the first: its CTAs may
// start while the first runs, and only its PDL wait keeps it from reading D1 early. Repeated, so
// that each round's first GEMM also follows the previous round's second (and writes the D1 that
// one reads).
TEST(ClusteredGemmChain, SecondGemmReadsWhatTheFirstWrote) {
  for (auto [m, n, k] :
       {GemmShape{256, 128, 64}, GemmShape{512, 256, 256}, GemmShape{1024, 512, 1024}}) {
    Chain chain(m, n, k);
    cudaStream_t stream = nullptr;
    WL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    wt::poison(chain.d_d1.get(), chain.d_d1.bytes(), 0xFF, stream);
    wt::poison(chain.d_d2.get(), chain.d_d2.bytes(), 0xFF, stream);
    for (int round = 0; round < 3; ++round) chain.launch(stream);
    WL_CUDA_CHECK(cudaStreamSynchronize(stream));
    WL_CUDA_CHECK(cudaStreamDestroy(stream));
    chain.expect_right("chain m=" + std::to_string(m) + " n=" + std::to_string(n) +
                       " k=" + std::to_string(k));
  }
}

// The same chain captured in a CUDA graph (the programmatic edge becomes a graph edge of that
// kind) and replayed with fresh poison each time.
TEST(ClusteredGemmChain, CapturedInAGraphAndReplayed) {
  Chain chain(512, 256, 512);
  cudaStream_t stream = nullptr;
  WL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  WL_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  chain.launch(stream);
  WL_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  WL_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  // The poison is written on the graph's own stream: a non-blocking stream does not wait for the
  // legacy default stream's work.
  for (int round = 0; round < 3; ++round) {
    wt::poison(chain.d_d1.get(), chain.d_d1.bytes(), 0xFF, stream);
    wt::poison(chain.d_d2.get(), chain.d_d2.bytes(), 0xFF, stream);
    WL_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    WL_CUDA_CHECK(cudaStreamSynchronize(stream));
    chain.expect_right("graph round " + std::to_string(round));
  }
  WL_CUDA_CHECK(cudaGraphExecDestroy(exec));
  WL_CUDA_CHECK(cudaGraphDestroy(graph));
  WL_CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace
