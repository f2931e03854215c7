// src/gemm/stream_k.hpp — stream-K for the tensor-core GEMM (TileScheduling::StreamK, gemm.cpp).
//
// The decomposition and the fix-up run in the kernel (kernels/gemm/stream_k_decomposition.hpp,
// kernels/gemm/sm90/stream_k.cuh); this side checks the tuning, sizes the workspace and takes it
// (the caller's GemmArguments::workspace, or one from the library's pool on the stream).
#pragma once

#include <cstddef>
#include <string>

#include <cuda_runtime_api.h>

#include "warploom/gemm.hpp"

namespace warploom::gemm {

// Why stream-K cannot run with `tuning` (tile_scheduling StreamK), naming the field; empty when
// it can: the tensor-core GEMM, the cooperative design (or Auto), 1x1 clusters, no split-K.
std::string stream_k_violation(GemmTuning const& tuning);

// The workspace of a stream-K launch on a device of `sms` SMs with `tuning` (its max_ctas).
std::size_t stream_k_workspace_bytes(GemmTuning const& tuning, int sms);

// Runs resolved, row-major-D arguments `r` with stream-K (`tuning` checked: stream_k_violation),
// in r.workspace (checked by the caller) or a workspace from the pool.
void run_stream_k(GemmArguments const& r, GemmTuning tuning, cudaStream_t stream);

}  // namespace warploom::gemm
