// kernels/gemm/split_k_fold.hpp
//
// Split-K whose slices add themselves up (GemmTuning::split_k_reduction, src/gemm/split_k.cpp): no
// reduction kernel after the slices. Every slice's CTA writes its tile's fp32 partial sums to a
// slot of the workspace and counts itself in for the tile (an atomic add); the one that counts
// last — it waits for nothing, the others having written theirs — reads every slice's slot back,
// adds them in slice order and writes D (split_k_output.hpp). The order is fixed, so D has the same
// bits on every run, and the same as the reduction kernel's (split_k_reduce.cu), which adds the
// same values in the same order.
//
// Why a count and not flags: no CTA waits for another, so nothing can hang whatever the grid's
// residency, and a slice split over two launches (a shorter last slice: split_k.hpp) needs no
// more than both counting into the same counters. The counters are zeroed on the stream before the
// first launch (a memset node in a captured graph); the last arrival at each also sets it back to
// zero.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gemm/split_k_output.hpp"
#include "warploom/config.hpp"

namespace warploom::gemm {

struct SplitKFold {
  // One counter per output tile of a slice (tile m, n: m * tiles_n + n); null: the slices write
  // their partial sums as the GEMM's D, for the reduction kernel.
  int* arrivals = nullptr;
  // Slot (tile * slices + slice) holds that slice's partial sums of the tile, tile_m x tile_n
  // floats laid out by thread (sm90/split_k_fold.cuh).
  float* slots = nullptr;
  int slices = 0;       // of K, over every launch that shares `arrivals`
  int first_slice = 0;  // the slice of this launch's batch 0
  SplitKOutput out;

  WL_HOST_DEVICE constexpr bool active() const { return arrivals != nullptr; }

  // Bytes of workspace for `tiles` output tiles of tile_m x tile_n in `slices` slices: the slots,
  // then the counters.
  static constexpr std::size_t workspace_bytes(std::int64_t tiles, int slices, int tile_m,
                                               int tile_n) {
    return static_cast<std::size_t>(tiles * slices * tile_m * tile_n) * sizeof(float) +
           static_cast<std::size_t>(tiles) * sizeof(int);
  }
  // The fold over `workspace` (of workspace_bytes(tiles, slices, ...) bytes or more); its counters
  // are still to be zeroed.
  static SplitKFold in(void* workspace, std::int64_t tiles, int slices, int tile_m, int tile_n,
                       SplitKOutput const& out) {
    auto* const slots = static_cast<float*>(workspace);
    return {.arrivals = reinterpret_cast<int*>(slots + tiles * slices * tile_m * tile_n),
            .slots = slots,
            .slices = slices,
            .first_slice = 0,
            .out = out};
  }
};

}  // namespace warploom::gemm
