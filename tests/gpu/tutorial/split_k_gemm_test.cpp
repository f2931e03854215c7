// tests/gpu/tutorial/split_k_gemm_test.cpp — tutorial 06's split-K GEMM (a cluster of split_k
// CTAs along K per output tile, the partial tiles summed through DSMEM in staging that aliases the
// A/B stages) on the GPU: D = A . B^T against a float64 reference, into a poisoned output with a
// guard after it.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include "half_matrices.hpp"
#include "tutorial/split_k_gemm.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace tut = warploom::tutorial;
namespace wt = warploom::testing;
using namespace tutorial_test;

namespace {

using Bf16 = __nv_bfloat16;

// Random bf16 in [-1, 1): a uniform float truncated (toward zero) to bf16's 8 significant bits,
// so that no value rounds up to 1.
std::vector<Bf16> random_bf16(std::size_t n, unsigned seed) {
  std::vector<Bf16> out(n);
  std::uint32_t state = seed * 2654435761u + 1u;
  for (auto& x : out) {
    state = state * 1664525u + 1013904223u;
    float const f = static_cast<float>(state >> 8) / static_cast<float>(1u << 23) - 1.0f;
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    x = __ushort_as_bfloat16(static_cast<unsigned short>(bits >> 16));
  }
  return out;
}

using Handshake = tut::SplitKHandshake;
using Case = std::tuple<int, int, int, int, Handshake>;  // m, n, k, split_k, handshake

class SplitKGemm : public ::testing::TestWithParam<Case> {};

TEST_P(SplitKGemm, SumsTheClustersPartialTilesIntoAPoisonedOutput) {
  auto [m, n, k, split_k, handshake] = GetParam();
  std::string const what = "m=" + std::to_string(m) + " n=" + std::to_string(n) +
                           " k=" + std::to_string(k) + " split_k=" + std::to_string(split_k) +
                           (handshake == Handshake::kEveryThread ? " every thread arrives" : "");
  std::size_t const size_a = static_cast<std::size_t>(m) * k, size_b = std::size_t{1} * n * k;
  std::size_t const size_d = static_cast<std::size_t>(m) * n;
  std::vector<Bf16> const a = random_bf16(size_a, 7u + m + k);
  std::vector<Bf16> const b = random_bf16(size_b, 11u + n + k);
  wt::DeviceBuffer d_a(size_a * sizeof(Bf16)), d_b(size_b * sizeof(Bf16));
  wt::DeviceBuffer d_d(size_d * sizeof(Bf16) + kGuardBytes);
  upload(d_a, a);
  upload(d_b, b);
  wt::poison(d_d.get(), d_d.bytes());  // 0xFFFF: a NaN in bf16, never a correct value here
  tut::split_k_gemm(d_a.as<Bf16>(), d_b.as<Bf16>(), d_d.as<Bf16>(), m, n, k, split_k, nullptr,
                    handshake);
  WL_CUDA_CHECK(cudaDeviceSynchronize());

  // The bound is expect_gemm's: for K = 1024 its accumulation term is about 0.03 where the values
  // are about 10; a missing or doubled partial tile, a peer's rows read at the wrong offset or a
  // stale stage give errors of the order of the values themselves.
  expect_gemm(d_d, a, b, m, n, k, what);
}

std::string case_name(::testing::TestParamInfo<Case> const& info) {
  auto [m, n, k, split_k, handshake] = info.param;
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + "_Split" +
         std::to_string(split_k) + (handshake == Handshake::kEveryThread ? "_EveryThread" : "");
}

constexpr Handshake kOne = Handshake::kOnePerCta;

// The seed's skinny shape at every cluster size (16 K steps per CTA without a split, two laps of
// the 8-stage ring; 2 with split 8); two column tiles and a long K (16 steps a CTA); and one K step
// per CTA (split 8 of K = 512: the stages are drained after a single fill).
INSTANTIATE_TEST_SUITE_P(
    Shapes, SplitKGemm,
    ::testing::Values(Case{1024, 16, 1024, 1, kOne}, Case{1024, 16, 1024, 2, kOne},
                      Case{1024, 16, 1024, 4, kOne}, Case{1024, 16, 1024, 8, kOne},
                      Case{256, 32, 4096, 4, kOne}, Case{128, 16, 512, 8, kOne}),
    case_name);

// Every thread arriving on the handshakes: the same exchange in the form compute-sanitizer's
// racecheck follows (split_k_gemm.hpp), so these are the cases it runs.
constexpr Handshake kEvery = Handshake::kEveryThread;
INSTANTIATE_TEST_SUITE_P(EveryThreadArrives, SplitKGemm,
                         ::testing::Values(Case{1024, 16, 1024, 8, kEvery},
                                           Case{256, 32, 4096, 4, kEvery},
                                           Case{128, 16, 512, 2, kEvery}),
                         case_name);

}  // namespace
