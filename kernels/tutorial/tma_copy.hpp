// kernels/tutorial/tma_copy.hpp
//
// Host API of tutorial 02 (02_tma_copy.cu): a row-major rows x cols fp16 matrix copied GMEM -> SMEM
// (TMA) -> registers -> GMEM by a load task and a store task, in two shapes:
//
//   TmaCopyVariant::Seed        the seed's kernel: 1 stage of 128 x 1 tiles, every CTA walks all
//                               rows of its 128 columns.
//   TmaCopyVariant::MultiStage  4 stages of 128 x 64 tiles, each CTA a band of 256 rows, for
//                               bandwidth.
//
// Each variant exists as a TS kernel and as the hand-written kernel it must match (the baseline).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "warploom/ts/model.hpp"

namespace warploom::tutorial {

enum class TmaCopyVariant { Seed, MultiStage };
enum class Implementation { TaskScheduled, Baseline };

inline constexpr int kTmaCopyTileCols = 128;

std::string_view to_string(TmaCopyVariant v);

// Throws std::invalid_argument naming `rows_cols` unless rows > 0 and cols is a positive multiple
// of 128 (the tile width).
void check_tma_copy_shape(int rows, int cols);

// dst = src for row-major rows x cols matrices (16-byte aligned, not overlapping).
// `rows_per_cta` (MultiStage only, a multiple of 64) overrides the band height; 0 keeps 256.
void tma_copy(TmaCopyVariant variant, Implementation impl, __half const* src, __half* dst, int rows,
              int cols, cudaStream_t stream = nullptr, int rows_per_cta = 0);

// The multi-stage copy's tuning space (stages, tile rows, store kind) and a launcher for one of its
// points (TS kernel, bands of 4 tiles).
std::vector<std::string> tma_copy_tunings();
void tma_copy_tuned(int tuning, __half const* src, __half* dst, int rows, int cols,
                    cudaStream_t stream = nullptr);

// The TaskManager of a variant, as the verifier sees it.
ts::ManagerModel tma_copy_model(TmaCopyVariant variant);

}  // namespace warploom::tutorial
