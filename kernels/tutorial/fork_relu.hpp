// kernels/tutorial/fork_relu.hpp
//
// Host API of tutorial 07's Fork kernel (07_fork_relu.cu, fork_relu_schedule.cuh), the seed's
// 07/04 without the GEMM: one TMA read of a row-major rows x cols fp16 matrix x feeds two consumer
// tasks, one writing d = x and one writing r = max(x, 0), through a ts::Fork group
// (warploom/ts/pipeline_group.hpp) whose members alias one shared-memory buffer.
//
// The TS kernel and the hand-written kernel it must match (the baseline) are both here.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "tutorial/tma_copy.hpp"  // Implementation
#include "warploom/ts/model.hpp"

namespace warploom::tutorial {

inline constexpr int kForkReluTileCols = 128;

// Throws std::invalid_argument naming the argument: rows > 0, cols a positive multiple of 128 (the
// tile width), rows * cols below 2^31, x, d and r non-null and 16-byte aligned, and neither output
// overlapping x or the other output.
void check_fork_relu_args(__half const* x, __half const* d, __half const* r, int rows, int cols);

// d = x and r = max(x, 0) (__hmax2 with +0), reading x once.
void fork_relu(Implementation impl, __half const* x, __half* d, __half* r, int rows, int cols,
               cudaStream_t stream = nullptr);

// The TaskManager, as the verifier sees it.
ts::ManagerModel fork_relu_model();

}  // namespace warploom::tutorial
