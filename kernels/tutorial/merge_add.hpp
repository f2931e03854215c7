// kernels/tutorial/merge_add.hpp
//
// Host API of tutorial 07's first kernel (07_merge_add.cu, merge_add_schedule.cuh), the seed's
// "merge copy" (07/01): d = a + b for row-major rows x cols fp16 matrices, where a arrives through
// TMA and b through one warp's loads, in two pipelines that one consumer releases together: a
// ts::Merge group (warploom/ts/pipeline_group.hpp).
//
// The TS kernel and the hand-written kernel it must match (the baseline) are both here.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "tutorial/tma_copy.hpp"  // Implementation
#include "warploom/ts/model.hpp"

namespace warploom::tutorial {

inline constexpr int kMergeAddTileCols = 128;

// Throws std::invalid_argument naming the argument: rows > 0, cols a positive multiple of 128 (the
// tile width), rows * cols below 2^31, a, b and d non-null and 16-byte aligned, and d overlapping
// neither input (the loads run stages ahead of the stores).
void check_merge_add_args(__half const* a, __half const* b, __half const* d, int rows, int cols);

// d = a + b (fp16 addition, rounded to nearest even, as __hadd2).
void merge_add(Implementation impl, __half const* a, __half const* b, __half* d, int rows, int cols,
               cudaStream_t stream = nullptr);

// The TaskManager, as the verifier sees it.
ts::ManagerModel merge_add_model();

}  // namespace warploom::tutorial
