// tests/gpu/tutorial/tutorial_args_test.cpp — bad arguments to the tutorial APIs get clear errors
// before any CUDA call (no GPU needed).
#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "warploom/testing/invalid_argument.hpp"
#include "warploom/ts/verify/verify.hpp"

#include "tutorial/clustered_gemm.hpp"
#include "tutorial/fork_gemm_relu.hpp"
#include "tutorial/fork_relu.hpp"
#include "tutorial/grid_stride_copy.hpp"
#include "tutorial/merge_add.hpp"
#include "tutorial/merge_gemm.hpp"
#include "tutorial/merge_gemm_residual.hpp"
#include "tutorial/pdl_copy_chain.hpp"
#include "tutorial/persistent_copy.hpp"
#include "tutorial/segment_copy.hpp"
#include "tutorial/split_k_gemm.hpp"
#include "tutorial/tma_copy.hpp"

namespace tut = warploom::tutorial;

namespace {

using warploom::testing::invalid_argument_message;

TEST(MergeAddArgs, BadArgumentsAreNamedBeforeAnyLaunch) {
  auto const* a = reinterpret_cast<__half const*>(std::uintptr_t{1} << 20);
  auto const* b = reinterpret_cast<__half const*>(std::uintptr_t{2} << 20);
  auto* d = reinterpret_cast<__half*>(std::uintptr_t{3} << 20);
  auto const add = [](__half const* x, __half const* y, __half* z, int rows, int cols) {
    return invalid_argument_message(
        [&] { tut::merge_add(tut::Implementation::TaskScheduled, x, y, z, rows, cols); });
  };
  EXPECT_EQ(add(a, b, d, 0, 128), "merge_add: `rows` = 0 must be positive");
  EXPECT_EQ(add(a, b, d, 4, 100),
            "merge_add: `cols` = 100 must be a positive multiple of the tile width 128");
  EXPECT_EQ(add(a, b, d, 1 << 20, 1 << 12),
            "merge_add: `rows` x `cols` = 4294967296 elements exceeds 2^31 - 1");
  EXPECT_EQ(add(a, nullptr, d, 4, 128), "merge_add: `b` must not be null");
  EXPECT_EQ(add(a, b, d + 1, 4, 128),
            "merge_add: `d` must be 16-byte aligned (TMA and the 16-byte vectors)");
  EXPECT_EQ(add(a, b, const_cast<__half*>(b) + 64, 4, 128),
            "merge_add: `d` must share no byte with `a` or `b`");
}

TEST(ForkReluArgs, BadArgumentsAreNamedBeforeAnyLaunch) {
  auto const* x = reinterpret_cast<__half const*>(std::uintptr_t{1} << 20);
  auto* d = reinterpret_cast<__half*>(std::uintptr_t{2} << 20);
  auto* r = reinterpret_cast<__half*>(std::uintptr_t{3} << 20);
  auto const fork = [](__half const* in, __half* y, __half* z, int rows, int cols) {
    return invalid_argument_message(
        [&] { tut::fork_relu(tut::Implementation::Baseline, in, y, z, rows, cols); });
  };
  EXPECT_EQ(fork(x, d, r, -3, 128), "fork_relu: `rows` = -3 must be positive");
  EXPECT_EQ(fork(x, d, r, 4, 0),
            "fork_relu: `cols` = 0 must be a positive multiple of the tile width 128");
  EXPECT_EQ(fork(nullptr, d, r, 4, 128), "fork_relu: `x` must not be null");
  EXPECT_EQ(fork(x, d, r + 4, 4, 128),
            "fork_relu: `r` must be 16-byte aligned (TMA and the 16-byte vectors)");
  EXPECT_EQ(fork(x, d, d + 64, 4, 128),
            "fork_relu: `d` and `r` must share no byte with `x` or with each other");
  EXPECT_EQ(fork(x, const_cast<__half*>(x), r, 4, 128),
            "fork_relu: `d` and `r` must share no byte with `x` or with each other");
}

TEST(ForkGemmReluArgs, BadArgumentsAreNamedBeforeAnyLaunch) {
  using Bf16 = __nv_bfloat16;
  auto const* a = reinterpret_cast<Bf16 const*>(std::uintptr_t{1} << 24);
  auto const* b = reinterpret_cast<Bf16 const*>(std::uintptr_t{2} << 24);
  auto* d = reinterpret_cast<Bf16*>(std::uintptr_t{3} << 24);
  auto* r = reinterpret_cast<Bf16*>(std::uintptr_t{4} << 24);
  auto const gemm = [](Bf16 const* x, Bf16 const* y, Bf16* z, Bf16* w, int m, int n, int k) {
    return invalid_argument_message([&] { tut::fork_gemm_relu(x, y, z, w, m, n, k); });
  };
  EXPECT_EQ(gemm(a, b, d, r, 0, 128, 64),
            "fork_gemm_relu: `m` = 0 must be a positive multiple of 128 (the tile height)");
  EXPECT_EQ(gemm(a, b, d, r, 100, 128, 64),
            "fork_gemm_relu: `m` = 100 must be a positive multiple of 128 (the tile height)");
  EXPECT_EQ(gemm(a, b, d, r, 128, 64, 64),
            "fork_gemm_relu: `n` = 64 must be a positive multiple of 128 (the tile width)");
  EXPECT_EQ(gemm(a, b, d, r, 128, 128, 96),
            "fork_gemm_relu: `k` = 96 must be a positive multiple of 64 (the K step)");
  EXPECT_EQ(gemm(a, b, d, r, 128, 128, -64),
            "fork_gemm_relu: `k` = -64 must be a positive multiple of 64 (the K step)");
  EXPECT_EQ(gemm(a, b, d, r, 1 << 17, 128, 1 << 14),
            "fork_gemm_relu: `m` x `k` = 2147483648 elements exceeds 2^31 - 1");
  EXPECT_EQ(gemm(a, b, d, r, 128, 1 << 17, 1 << 14),
            "fork_gemm_relu: `n` x `k` = 2147483648 elements exceeds 2^31 - 1");
  EXPECT_EQ(gemm(a, b, d, r, 1 << 16, 1 << 15, 64),
            "fork_gemm_relu: `m` x `n` = 2147483648 elements exceeds 2^31 - 1");
  EXPECT_EQ(gemm(nullptr, b, d, r, 128, 128, 64), "fork_gemm_relu: `a` must not be null");
  EXPECT_EQ(gemm(a, b, d, nullptr, 128, 128, 64), "fork_gemm_relu: `r` must not be null");
  EXPECT_EQ(gemm(a, b + 1, d, r, 128, 128, 64),
            "fork_gemm_relu: `b` must be 16-byte aligned (TMA and the 16-byte vectors)");
  EXPECT_EQ(gemm(a, b, d, r + 4, 128, 128, 64),
            "fork_gemm_relu: `r` must be 16-byte aligned (TMA and the 16-byte vectors)");
  // Overlaps, with each matrix's own size: d is m x n, r is m x k (128 x 64: 16 KiB).
  EXPECT_EQ(gemm(a, b, const_cast<Bf16*>(a) + 128 * 64 - 8, r, 128, 128, 64),
            "fork_gemm_relu: `d` must share no byte with `a`, `b` or `r`");
  EXPECT_EQ(gemm(a, b, d, d + 128 * 128 - 8, 128, 128, 64),
            "fork_gemm_relu: `d` must share no byte with `a`, `b` or `r`");
  EXPECT_EQ(gemm(a, b, d, const_cast<Bf16*>(b) + 64, 128, 128, 64),
            "fork_gemm_relu: `r` must share no byte with `a`, `b` or `d`");
  // Adjacent is not overlapping; the inputs may be one matrix (both are only read).
  EXPECT_EQ(invalid_argument_message([&] {
              tut::check_fork_gemm_relu_args(a, a, const_cast<Bf16*>(a) + 128 * 64, d + 128 * 128,
                                             128, 128, 64);
            }),
            "(no exception of that type)");
}

TEST(MergeGemmResidualArgs, BadArgumentsAreNamedBeforeAnyLaunch) {
  using Bf16 = __nv_bfloat16;
  auto const* a = reinterpret_cast<Bf16 const*>(std::uintptr_t{1} << 24);
  auto const* b = reinterpret_cast<Bf16 const*>(std::uintptr_t{2} << 24);
  auto const* r = reinterpret_cast<Bf16 const*>(std::uintptr_t{3} << 24);
  auto* d = reinterpret_cast<Bf16*>(std::uintptr_t{4} << 24);
  auto const gemm = [](Bf16 const* x, Bf16 const* y, Bf16 const* w, Bf16* z, int m, int n, int k) {
    return invalid_argument_message([&] { tut::merge_gemm_residual(x, y, w, z, m, n, k); });
  };
  EXPECT_EQ(gemm(a, b, r, d, 100, 128, 64),
            "merge_gemm_residual: `m` = 100 must be a positive multiple of 128 (the tile height)");
  EXPECT_EQ(gemm(a, b, r, d, 128, 64, 64),
            "merge_gemm_residual: `n` = 64 must be a positive multiple of 128 (the tile width)");
  EXPECT_EQ(gemm(a, b, r, d, 128, 128, 96),
            "merge_gemm_residual: `k` = 96 must be a positive multiple of 64 (the K step)");
  EXPECT_EQ(gemm(a, b, r, d, 1 << 16, 1 << 15, 64),
            "merge_gemm_residual: `m` x `n` = 2147483648 elements exceeds 2^31 - 1");
  EXPECT_EQ(gemm(a, b, nullptr, d, 128, 128, 64), "merge_gemm_residual: `r` must not be null");
  EXPECT_EQ(gemm(a, b, r + 4, d, 128, 128, 64),
            "merge_gemm_residual: `r` must be 16-byte aligned (TMA and the 16-byte vectors)");
  // Overlaps, with each matrix's own size: d and r are m x n (128 x 128: 32 KiB).
  EXPECT_EQ(gemm(a, b, r, const_cast<Bf16*>(r) + 128 * 128 - 8, 128, 128, 64),
            "merge_gemm_residual: `d` must share no byte with `a`, `b` or `r`");
  EXPECT_EQ(gemm(a, b, r, const_cast<Bf16*>(b) + 64, 128, 128, 64),
            "merge_gemm_residual: `d` must share no byte with `a`, `b` or `r`");
  // Adjacent is not overlapping; the inputs may overlap one another (all three are only read).
  EXPECT_EQ(invalid_argument_message([&] {
              tut::check_merge_gemm_residual_args(a, a, a, const_cast<Bf16*>(r) + 128 * 128, 128,
                                                  128, 64);
            }),
            "(no exception of that type)");
}

TEST(ClusteredGemmArgs, BadArgumentsAreNamedBeforeAnyLaunch) {
  using Bf16 = __nv_bfloat16;
  auto const* a = reinterpret_cast<Bf16 const*>(std::uintptr_t{1} << 24);
  auto const* b = reinterpret_cast<Bf16 const*>(std::uintptr_t{2} << 24);
  auto* d = reinterpret_cast<Bf16*>(std::uintptr_t{4} << 24);
  auto const gemm = [](Bf16 const* x, Bf16 const* y, Bf16* z, int m, int n, int k) {
    return invalid_argument_message([&] { tut::clustered_gemm(x, y, z, m, n, k, /*pdl=*/true); });
  };
  // M in clusters of two 128-row tiles: 128 is one tile, half a cluster.
  EXPECT_EQ(gemm(a, b, d, 128, 128, 64),
            "clustered_gemm: `m` = 128 must be a positive multiple of 256 (a cluster's two tiles "
            "along M)");
  EXPECT_EQ(gemm(a, b, d, 256, 64, 64),
            "clustered_gemm: `n` = 64 must be a positive multiple of 128 (the tile width)");
  EXPECT_EQ(gemm(a, b, d, 256, 128, 0),
            "clustered_gemm: `k` = 0 must be a positive multiple of 64 (the K step)");
  EXPECT_EQ(gemm(a, b, d, 1 << 16, 1 << 15, 64),
            "clustered_gemm: `m` x `n` = 2147483648 elements exceeds 2^31 - 1");
  EXPECT_EQ(gemm(a, nullptr, d, 256, 128, 64), "clustered_gemm: `b` must not be null");
  EXPECT_EQ(gemm(a, b, d + 4, 256, 128, 64),
            "clustered_gemm: `d` must be 16-byte aligned (TMA and the 16-byte vectors)");
  // Overlaps, with each matrix's own size: a is m x k (256 x 64: 32 KiB).
  EXPECT_EQ(gemm(a, b, const_cast<Bf16*>(a) + 256 * 64 - 8, 256, 128, 64),
            "clustered_gemm: `d` must share no byte with `a` or `b`");
  EXPECT_EQ(gemm(a, b, const_cast<Bf16*>(b) + 64, 256, 128, 64),
            "clustered_gemm: `d` must share no byte with `a` or `b`");
  // Adjacent is not overlapping; the inputs may be one matrix (both are only read).
  EXPECT_EQ(invalid_argument_message([&] {
              tut::check_clustered_gemm_args(a, a, const_cast<Bf16*>(a) + 256 * 64, 256, 128, 64);
            }),
            "(no exception of that type)");
}

// The schedule unit model-checks one CTA and assumes its peer releases B's stages when it does
// (ts::ModelCheckOptions::model_clusters is opt-in). Here both CTAs of the 2 x 1 cluster run, with
// B's multicast copies and the releases that reach the peer's empty barriers, on the schedule with
// 2-stage rings, whose third K step refills a stage both CTAs must have released: the kernel's
// 4-stage rings need 5 steps for that, beyond the state budget with both CTAs (more than 4M states
// a scenario, and 11 GB at 3 minutes without a verdict, 2026-12-04).
TEST(ClusteredGemmModel, BothCtasOfTheClusterThroughARingLap) {
  warploom::ts::ModelCheckOptions options;
  options.model_clusters = true;
  warploom::ts::ModelCheckStats stats;
  warploom::ts::Report const report =
      warploom::ts::model_check(tut::clustered_gemm_two_stage_model(), options, &stats);
  EXPECT_TRUE(report.ok()) << report.violations.front().message;
  EXPECT_TRUE(stats.decided) << stats.states << " states";
  std::cout << "clustered_gemm with 2-stage rings, both CTAs: " << stats.states << " states in "
            << stats.scenarios << " scenarios\n";
}

TEST(MergeGemmArgs, BadArgumentsAreNamedBeforeAnyLaunch) {
  using Bf16 = __nv_bfloat16;
  auto const* a = reinterpret_cast<Bf16 const*>(std::uintptr_t{1} << 24);
  auto const* b = reinterpret_cast<Bf16 const*>(std::uintptr_t{2} << 24);
  auto* d = reinterpret_cast<Bf16*>(std::uintptr_t{4} << 24);
  auto const gemm = [](Bf16 const* x, int lda, Bf16 const* y, Bf16* z, int m, int n, int k) {
    return invalid_argument_message([&] { tut::merge_gemm(x, lda, y, z, m, n, k); });
  };
  EXPECT_EQ(gemm(a, 64, b, d, 100, 128, 64),
            "merge_gemm: `m` = 100 must be a positive multiple of 128 (the tile height)");
  EXPECT_EQ(gemm(a, 64, b, d, 128, 64, 64),
            "merge_gemm: `n` = 64 must be a positive multiple of 128 (the tile width)");
  EXPECT_EQ(gemm(a, 96, b, d, 128, 128, 96),
            "merge_gemm: `k` = 96 must be a positive multiple of 64 (the K step)");
  EXPECT_EQ(gemm(a, 56, b, d, 128, 128, 64),
            "merge_gemm: `lda` = 56 must be at least `k` = 64 (A's rows are lda elements apart and "
            "hold k)");
  EXPECT_EQ(gemm(a, 65, b, d, 128, 128, 64),
            "merge_gemm: `lda` = 65 elements (130 bytes) must be a multiple of 8: the load warps "
            "read A in 16-byte vectors");
  EXPECT_EQ(gemm(a, 1 << 16, b, d, 1 << 15, 128, 64),
            "merge_gemm: `m` x `lda` = 2147483648 elements exceeds 2^31 - 1");
  EXPECT_EQ(gemm(a, 64, nullptr, d, 128, 128, 64), "merge_gemm: `b` must not be null");
  EXPECT_EQ(gemm(a + 4, 64, b, d, 128, 128, 64),
            "merge_gemm: `a` must be 16-byte aligned (TMA and the 16-byte vectors)");
  // Overlaps: A's footprint is (m - 1) x lda + k elements (here 127 x 72 + 64).
  EXPECT_EQ(gemm(a, 72, b, const_cast<Bf16*>(a) + 127 * 72, 128, 128, 64),
            "merge_gemm: `d` must share no byte with `a` or `b`");
  EXPECT_EQ(gemm(a, 64, b, const_cast<Bf16*>(b) + 64, 128, 128, 64),
            "merge_gemm: `d` must share no byte with `a` or `b`");
  // Adjacent is not overlapping: d right after A's last row's k elements.
  EXPECT_EQ(invalid_argument_message([&] {
              tut::check_merge_gemm_args(a, 72, b, const_cast<Bf16*>(a) + 127 * 72 + 64, 128, 128,
                                         64);
            }),
            "(no exception of that type)");
}

TEST(SplitKGemmArgs, BadArgumentsAreNamedBeforeAnyLaunch) {
  using Bf16 = __nv_bfloat16;
  auto const* a = reinterpret_cast<Bf16 const*>(std::uintptr_t{1} << 24);
  auto const* b = reinterpret_cast<Bf16 const*>(std::uintptr_t{2} << 24);
  auto* d = reinterpret_cast<Bf16*>(std::uintptr_t{3} << 24);
  auto const gemm = [](Bf16 const* x, Bf16 const* y, Bf16* z, int m, int n, int k, int split) {
    return invalid_argument_message([&] { tut::split_k_gemm(x, y, z, m, n, k, split); });
  };
  for (int split : {0, 3, 16, -2})
    EXPECT_EQ(
        gemm(a, b, d, 128, 16, 512, split),
        "split_k_gemm: `split_k` = " + std::to_string(split) +
            " must be 1, 2, 4 or 8 (the CTAs of a cluster, each reducing 128 / split_k rows)");
  EXPECT_EQ(gemm(a, b, d, 0, 16, 512, 1),
            "split_k_gemm: `m` = 0 must be a positive multiple of 128 (the tile height)");
  EXPECT_EQ(gemm(a, b, d, 100, 16, 512, 1),
            "split_k_gemm: `m` = 100 must be a positive multiple of 128 (the tile height)");
  EXPECT_EQ(gemm(a, b, d, 128, 24, 512, 1),
            "split_k_gemm: `n` = 24 must be a positive multiple of 16 (the tile width)");
  EXPECT_EQ(gemm(a, b, d, 128, 16 * 65536, 64, 1),
            "split_k_gemm: `n` = 1048576 exceeds 65535 tiles of 16 (the grid's y dimension)");
  // K per CTA must be whole 64-wide steps: 512 splits 8 ways, 256 does not.
  EXPECT_EQ(gemm(a, b, d, 128, 16, 256, 8),
            "split_k_gemm: `k` = 256 must be a positive multiple of 512 (`split_k` x 64: each "
            "CTA's K slice is whole K steps)");
  EXPECT_EQ(gemm(a, b, d, 128, 16, 96, 1),
            "split_k_gemm: `k` = 96 must be a positive multiple of 64 (`split_k` x 64: each "
            "CTA's K slice is whole K steps)");
  EXPECT_EQ(gemm(a, b, d, 128, 16, -128, 2),
            "split_k_gemm: `k` = -128 must be a positive multiple of 128 (`split_k` x 64: each "
            "CTA's K slice is whole K steps)");
  EXPECT_EQ(gemm(a, b, d, 1 << 17, 16, 1 << 14, 1),
            "split_k_gemm: `m` x `k` = 2147483648 elements exceeds 2^31 - 1");
  EXPECT_EQ(gemm(a, b, d, 1 << 24, 1 << 7, 64, 1),
            "split_k_gemm: `m` x `n` = 2147483648 elements exceeds 2^31 - 1");
  EXPECT_EQ(gemm(nullptr, b, d, 128, 16, 512, 1), "split_k_gemm: `a` must not be null");
  EXPECT_EQ(gemm(a, nullptr, d, 128, 16, 512, 1), "split_k_gemm: `b` must not be null");
  EXPECT_EQ(gemm(a, b, nullptr, 128, 16, 512, 1), "split_k_gemm: `d` must not be null");
  EXPECT_EQ(gemm(a + 1, b, d, 128, 16, 512, 1),
            "split_k_gemm: `a` must be 16-byte aligned (TMA and the 16-byte vectors)");
  EXPECT_EQ(gemm(a, b, d + 4, 128, 16, 512, 1),
            "split_k_gemm: `d` must be 16-byte aligned (TMA and the 16-byte vectors)");
  // Overlaps, with each matrix's own size: a is 128 x 512 (128 KiB), b 16 x 512, d 128 x 16.
  EXPECT_EQ(gemm(a, b, const_cast<Bf16*>(a) + 128 * 512 - 8, 128, 16, 512, 1),
            "split_k_gemm: `d` must share no byte with `a` or `b`");
  EXPECT_EQ(gemm(a, b, const_cast<Bf16*>(b) - 128 * 16 + 8, 128, 16, 512, 1),
            "split_k_gemm: `d` must share no byte with `a` or `b`");
  // Adjacent is not overlapping; the inputs may be one matrix (both are only read).
  EXPECT_EQ(invalid_argument_message([&] {
              tut::check_split_k_gemm_args(a, a, const_cast<Bf16*>(a) + 128 * 512, 128, 16, 512, 8);
            }),
            "(no exception of that type)");
  EXPECT_EQ(tut::split_k_gemm_model().name, "split_k_gemm");
}

TEST(PdlCopyChainArgs, BadArgumentsAreNamedBeforeAnyLaunch) {
  auto const* a = reinterpret_cast<std::int16_t const*>(std::uintptr_t{1} << 20);
  auto* b = reinterpret_cast<std::int16_t*>(std::uintptr_t{2} << 20);
  auto* c = reinterpret_cast<std::int16_t*>(std::uintptr_t{3} << 20);
  auto const chain = [&](std::int16_t const* x, std::int16_t* y, std::int16_t* z, std::int64_t n) {
    return invalid_argument_message(
        [&] { tut::pdl_copy_chain(x, y, z, n, warploom::ts::StreamOrder::Programmatic); });
  };
  EXPECT_EQ(chain(a, b, c, -1), "pdl_copy_chain: `n` = -1 must be >= 0");
  EXPECT_EQ(chain(a, nullptr, c, 64), "pdl_copy_chain: `b` must not be null");
  EXPECT_EQ(chain(a, b + 1, c, 64),
            "pdl_copy_chain: `b` must be 16-byte aligned (the copies move 16-byte items)");
  EXPECT_EQ(chain(a, const_cast<std::int16_t*>(a) + 8, c, 64),
            "pdl_copy_chain: `b` must share no byte with `a` or `c`");
  EXPECT_EQ(chain(a, b, b, 64), "pdl_copy_chain: `b` must share no byte with `a` or `c`");
  EXPECT_EQ(chain(nullptr, nullptr, nullptr, 0), "(no exception of that type)");  // nothing to do
}

TEST(PersistentCopyArgs, BadArgumentsAreNamedBeforeAnyLaunch) {
  auto const* src = reinterpret_cast<std::int16_t const*>(std::uintptr_t{1} << 20);
  auto* dst = reinterpret_cast<std::int16_t*>(std::uintptr_t{2} << 20);
  auto* counter = reinterpret_cast<int*>(std::uintptr_t{3} << 20);
  using tut::TileQueueKind;
  auto const copy = [&](std::int16_t const* s, std::int16_t* d, std::int64_t n, TileQueueKind q,
                        int blocks, int* c) {
    return invalid_argument_message(
        [&] { tut::check_persistent_copy_args(s, d, n, nullptr, q, blocks, c); });
  };
  EXPECT_EQ(copy(src, dst, -8, TileQueueKind::Static, 0, nullptr),
            "persistent_copy: `n` = -8 must be >= 0");
  EXPECT_EQ(copy(src, dst, 100, TileQueueKind::Static, 0, nullptr),
            "persistent_copy: `n` = 100 must be a multiple of 8 (the copy moves 16-byte items)");
  EXPECT_EQ(copy(src, dst, std::int64_t{1} << 31, TileQueueKind::Static, 0, nullptr),
            "persistent_copy: `n` = 2147483648 is too large for 32-bit tile indexing");
  EXPECT_EQ(copy(src, dst, 64, TileQueueKind::Static, -1, nullptr),
            "persistent_copy: `blocks` = -1 must be >= 0");
  EXPECT_EQ(copy(nullptr, dst, 64, TileQueueKind::Static, 0, nullptr),
            "persistent_copy: `src` must not be null");
  EXPECT_EQ(copy(src, dst + 1, 64, TileQueueKind::Static, 0, nullptr),
            "persistent_copy: `dst` must be 16-byte aligned (the copy moves 16-byte items)");
  EXPECT_EQ(copy(src, const_cast<std::int16_t*>(src) + 8, 64, TileQueueKind::Static, 0, nullptr),
            "persistent_copy: `dst` must share no byte with `src`");
  EXPECT_EQ(copy(src, dst, 64, TileQueueKind::Dynamic, 0, nullptr),
            "persistent_copy: `counter` must not be null for the dynamic queue (4 bytes of "
            "device memory)");
  EXPECT_EQ(copy(src, dst, 64, TileQueueKind::Dynamic, 0, counter), "(no exception of that type)");
  EXPECT_EQ(copy(nullptr, nullptr, 0, TileQueueKind::Dynamic, 0, nullptr),
            "(no exception of that type)");  // nothing to copy
  // persistent_copy itself refuses before any CUDA call.
  EXPECT_EQ(invalid_argument_message(
                [&] { tut::persistent_copy(src, dst, 12, nullptr, TileQueueKind::Static); }),
            "persistent_copy: `n` = 12 must be a multiple of 8 (the copy moves 16-byte items)");
}

TEST(SegmentCopyArgs, BadArgumentsAreNamedBeforeAnyLaunch) {
  auto const* packed = reinterpret_cast<std::int16_t const*>(std::uintptr_t{1} << 20);
  auto const* lengths = reinterpret_cast<int const*>(std::uintptr_t{2} << 20);
  auto* padded = reinterpret_cast<std::int16_t*>(std::uintptr_t{3} << 20);
  auto* offsets = reinterpret_cast<int*>(std::uintptr_t{4} << 20);
  auto const check = [&](std::int16_t const* p, int const* l, int segments, int row,
                         std::int16_t* out, int* o) {
    return invalid_argument_message(
        [&] { tut::check_segment_copy_args(p, l, segments, row, out, o); });
  };
  EXPECT_EQ(check(packed, lengths, -1, 8, padded, offsets),
            "segment_copy: `num_segments` = -1 must be >= 0");
  EXPECT_EQ(check(packed, lengths, 4, -8, padded, offsets),
            "segment_copy: `row_elems` = -8 must be >= 0");
  EXPECT_EQ(check(nullptr, lengths, 4, 8, padded, offsets),
            "segment_copy: `packed` must not be null");
  EXPECT_EQ(check(packed, nullptr, 4, 8, padded, offsets),
            "segment_copy: `lengths` must not be null");
  EXPECT_EQ(check(packed, lengths, 4, 8, nullptr, offsets),
            "segment_copy: `padded` must not be null");
  EXPECT_EQ(check(packed, lengths, 4, 8, padded, nullptr),
            "segment_copy: `offsets` must not be null (num_segments ints of device memory for "
            "the start offsets)");
  EXPECT_EQ(check(packed, lengths, 4, 8, padded, offsets), "(no exception of that type)");
  EXPECT_EQ(check(nullptr, nullptr, 0, 8, nullptr, nullptr), "(no exception of that type)");
  EXPECT_EQ(invalid_argument_message(
                [&] { tut::segment_copy(packed, lengths, 4, 8, padded, offsets, -2); }),
            "segment_copy: `blocks` must be >= 0");
}

TEST(TmaCopyArgs, RowsMustBePositive) {
  EXPECT_EQ(invalid_argument_message([] { tut::check_tma_copy_shape(0, 128); }),
            "rows_cols: rows = 0 must be positive");
  EXPECT_EQ(invalid_argument_message([] { tut::check_tma_copy_shape(-3, 128); }),
            "rows_cols: rows = -3 must be positive");
}

TEST(TmaCopyArgs, ColumnsMustBeAPositiveMultipleOf128) {
  EXPECT_EQ(invalid_argument_message([] { tut::check_tma_copy_shape(4, 100); }),
            "rows_cols: cols = 100 must be a positive multiple of the tile width 128");
  EXPECT_EQ(invalid_argument_message([] { tut::check_tma_copy_shape(4, 0); }),
            "rows_cols: cols = 0 must be a positive multiple of the tile width 128");
  EXPECT_EQ(invalid_argument_message([] { tut::check_tma_copy_shape(4, 256); }),
            "(no exception of that type)");
}

TEST(TmaCopyArgs, NullPointersAreRejected) {
  EXPECT_EQ(invalid_argument_message([] {
              tut::tma_copy(tut::TmaCopyVariant::Seed, tut::Implementation::TaskScheduled, nullptr,
                            nullptr, 4, 128);
            }),
            "tma_copy: `src` and `dst` must not be null");
}

TEST(GridStrideCopyArgs, NegativeCountIsRejected) {
  EXPECT_EQ(invalid_argument_message([] {
              tut::grid_stride_copy(tut::GridStrideVariant::Scalar,
                                    tut::Implementation::TaskScheduled, nullptr, nullptr, -1);
            }),
            "grid_stride_copy: `n` = -1 must be >= 0");
}

TEST(GridStrideCopyArgs, NullPointersAreRejected) {
  EXPECT_EQ(invalid_argument_message([] {
              tut::grid_stride_copy(tut::GridStrideVariant::Scalar, tut::Implementation::Baseline,
                                    nullptr, nullptr, 10);
            }),
            "grid_stride_copy: `src` and `dst` must not be null");
}

TEST(GridStrideCopyArgs, CountTooLargeForIntIndexingIsRejected) {
  std::int16_t dummy = 0;
  EXPECT_NE(invalid_argument_message([&] {
              tut::grid_stride_copy(tut::GridStrideVariant::Scalar,
                                    tut::Implementation::TaskScheduled, &dummy, &dummy,
                                    std::int64_t{1} << 31, 4);
            }).find("too large for 32-bit grid-stride indexing"),
            std::string::npos);
}

TEST(GridStrideCopyArgs, VectorVariantNeedsAlignedPointers) {
  alignas(16) std::int16_t buf[16] = {};
  EXPECT_EQ(invalid_argument_message([&] {
              tut::grid_stride_copy(tut::GridStrideVariant::Vector,
                                    tut::Implementation::TaskScheduled, buf + 1, buf, 4);
            }),
            "grid_stride_copy: `src` must be 16-byte aligned for the vector variant (use "
            "GridStrideVariant::Scalar "
            "for unaligned data)");
  EXPECT_EQ(invalid_argument_message([&] {
              tut::grid_stride_copy(tut::GridStrideVariant::Vector, tut::Implementation::Baseline,
                                    buf, buf + 3, 4);
            }),
            "grid_stride_copy: `dst` must be 16-byte aligned for the vector variant (use "
            "GridStrideVariant::Scalar "
            "for unaligned data)");
}

TEST(TmaCopyArgs, RowsPerCtaIsValidated) {
  EXPECT_EQ(invalid_argument_message([] {
              tut::tma_copy(tut::TmaCopyVariant::MultiStage, tut::Implementation::TaskScheduled,
                            reinterpret_cast<__half const*>(16), reinterpret_cast<__half*>(16), 64,
                            128, nullptr, 96);
            }),
            "tma_copy: `rows_per_cta` = 96 must be a non-negative multiple of the tile height 64");
  EXPECT_EQ(invalid_argument_message([] {
              tut::tma_copy(tut::TmaCopyVariant::Seed, tut::Implementation::TaskScheduled,
                            reinterpret_cast<__half const*>(16), reinterpret_cast<__half*>(16), 64,
                            128, nullptr, 64);
            }),
            "tma_copy: `rows_per_cta` applies to the multi-stage variant only");
}

TEST(TutorialModels, BothTutorialsVerify) {
  // The schedule tables the examples print come from these models; they must pass verification.
  EXPECT_EQ(tut::grid_stride_copy_model(tut::GridStrideVariant::Scalar).tasks.size(), 1u);
  EXPECT_EQ(tut::grid_stride_copy_model(tut::GridStrideVariant::Vector).name,
            "grid_stride_copy_vector");
  EXPECT_EQ(tut::tma_copy_model(tut::TmaCopyVariant::Seed).tasks.size(), 3u);
  EXPECT_EQ(tut::tma_copy_model(tut::TmaCopyVariant::MultiStage).resources.size(), 3u);
}

}  // namespace
