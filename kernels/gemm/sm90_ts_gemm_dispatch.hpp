// kernels/gemm/sm90_ts_gemm_dispatch.hpp
//
// The compiled sm90 TS GEMM configurations, one translation unit per (input, output) type pair so
// they build in parallel. Each takes arguments normalised by gemm.cpp (row-major C and D, leading
// dimensions and batch strides resolved) and picks the configuration for the operand layouts.
#pragma once

#include <cuda_runtime_api.h>

#include "gemm.hpp"

namespace warploom::gemm::sm90 {

void run_ts_gemm_f16_f16(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream);
void run_ts_gemm_f16_f32(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream);
void run_ts_gemm_bf16_bf16(GemmArguments const& args, GemmTuning const& tuning,
                           cudaStream_t stream);
void run_ts_gemm_bf16_f32(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream);

// The TaskManager model (identical across configurations up to types).
ts::ManagerModel ts_gemm_model();

}  // namespace warploom::gemm::sm90
