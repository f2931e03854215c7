// src/gemm/split_k.hpp — split-K for the tensor-core GEMM (GemmTuning::split_k, gemm.cpp).
//
// A problem whose output tiles would leave most SMs idle, and whose K is long, is cut along K into
// slices: one batched launch of the tensor-core GEMM computes them (each slice a batch: A and B
// offset by the slice's K, the batch stride being that offset; the slice count is lowered to one
// that divides K's tiles where that keeps more than half of it, else a shorter last slice is one
// launch more), each writing fp32 partial sums to a workspace taken on the stream from the
// library's pool (cudaMallocFromPoolAsync: a captured graph gets a node for it); then
// kernels/gemm/split_k_reduce.cu adds the slices in slice order and applies alpha, beta and C. The
// order is fixed: the same bits on every run.
#pragma once

#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "current_device.hpp"  // current_sm_count, for its users
#include "warploom/gemm.hpp"

namespace warploom::gemm {

// The most slices a call takes.
inline constexpr int kMaxSplitK = 32;

// K cut into `count` slices of `slice_k` elements (whole K tiles), the last one `last_k` long.
struct KSlices {
  std::int64_t slice_k = 0;
  int count = 0;
  std::int64_t last_k = 0;
  bool even() const { return last_k == slice_k; }
};

// At most `wanted` slices of `k` in tiles of `k_tile` elements, preferring equal ones: equal
// slices are the batches of one launch, while a shorter last slice is a launch of its own after the
// others (on one stream the two do not overlap, so it costs as long as all the others together).
// Fewer equal slices therefore win while they are more than half of those wanted.
KSlices split_k_slices(std::int64_t k, int k_tile, int wanted);

// Why split-K cannot run the resolved arguments `r` on `kernel` (gemm.cpp); empty when it can.
std::string split_k_violation(GemmArguments const& r, GemmKernel kernel);

// Auto's tile width for resolved, row-major-D arguments (GemmTuning::tile_n; 0: the design's
// own) on a device of `sms` SMs: the design's where its tiles fill at least half the SMs; else the
// widest cooperative width whose tiles do; else (split-K's regime) 64 where N <= 64, else 128 (as
// measured: fewer slices to add than at 256, fewer operand reads than at 64).
int selected_tile_n(GemmArguments const& r, int sms);

// Auto's slices for resolved, row-major-D arguments that split-K runs (1: no split) in tiles
// `tile_n` wide (0: 256): as many as fill the current device's SMs with those 128-row tiles, each
// slice at least twice the width's stages in K tiles (8 for 256, 12 for 128, 16 for 64); none
// where the tiles already fill half the SMs.
int auto_split_k(GemmArguments const& r, int tile_n, int sms = current_sm_count());

// Whether Auto adds `slices` slices of an m x n problem (the slices' own) in tiles of
// tile_m x tile_n inside the GEMM (SplitKReduction::InKernel, where the slices' design can) rather
// than in a kernel after it: on D^T (`swap_ab`: the reduction kernel there is a transpose through
// shared memory, 8 us of a decode step under ncu) where each tile's last slice reads at most one
// tile of partial sums, slices x the tile's part inside the output (the fold skips the rest). The
// last arrival adds its tile alone, on as few SMs as there are tiles, where the reduction kernel
// spreads the reads over every SM for the price of a launch. Measured in one process (H200,
// 2026-12-07, bench/results/h200_check_2026-12-07/, graphs, fold / kernel): 32x8192x8192 in two
// slices of half-filled tiles 42.4 / 43.9 us, 16x4096x4096 in four quarters 17.4 / 18.2, in two
// 18.3 / 19.8; behind where more is read: 64x4096x16384 (D^T, whole tiles) in two 45.2 / 43.9 and
// four 45.3 / 43.6, and on D's own tiles everywhere (1024x16x8192 in 16 quarters 14.7 / 13.5,
// in 4 17.5 / 16.8; 512x512x65536 in 8 whole 69.0 / 54.8).
bool auto_folds(bool swap_ab, std::int64_t m, std::int64_t n, int slices, int tile_m, int tile_n);

// Runs `r` (resolved, row-major D, split-K applicable) in at most `slices` slices of K, each a
// whole number of K tiles (fewer slices where K is short). `swap_ab`: the slices compute the
// partial sums of D^T = B^T . A^T (operands_swapped(r), `tuning` in its terms) and the reduction
// writes their transpose.
void run_split_k(GemmArguments const& r, GemmTuning tuning, int slices, cudaStream_t stream,
                 bool swap_ab = false);

// How gemm() splits resolved, row-major-D arguments `r` that split-K runs, under `tuning` as the
// caller gave it (its width not yet settled, its cluster in r's terms), on a device of `sms` SMs:
// the slices asked for (tuning.split_k > 1) or Auto's (0; 1: none, where Auto's tiles fill the
// SMs). Where D has at most 64 rows and more columns, and Auto picks the width, the slices run on
// D^T = B^T . A^T wherever its tiles leave SMs idle (even where D's own would not): its 128-row
// tiles lie along N and its narrowest width, 64, along M, where D's own tiles would leave at least
// half of every 128 rows empty (and the tensor cores computing them).
struct SplitChoice {
  int slices = 1;
  bool swap_ab = false;  // the slices compute D^T: run_split_k's swap_ab
  GemmTuning tuning;     // the width settled, in the slices' terms (D^T's where swapped)
};
// Unsplit (slices 1), `tuning` is with_tile_width's: what the single launch runs. `splittable`:
// whether split-K may run `r` at all (split_k_violation empty); if not, unsplit.
SplitChoice split_k_choice(GemmArguments const& r, GemmTuning const& tuning, int sms,
                           bool splittable = true);

}  // namespace warploom::gemm
