// kernels/gemm/simt/simt_gemm_dispatch.hpp
//
// The compiled SIMT GEMM configurations (kernels/gemm/simt/simt_gemm.cpp, instances.hpp):
// fp16 and bf16 inputs with D of the input type or fp32, e4m3 and e5m2 inputs with D bf16, fp16 or
// fp32, fp32 -> fp32 and fp64 -> fp64. Each takes
// arguments normalised by gemm.cpp (row-major C and D, leading dimensions and batch strides
// resolved); the operand layouts are run-time strides, not configurations.
#pragma once

#include <cuda_runtime_api.h>

#include "warploom/gemm.hpp"

namespace warploom::gemm::simt {

// Runs the configuration of (args.a.type, args.d_type); any other pair is an internal error
// (gemm.cpp rejects it first).
void run_simt_gemm(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream);

}  // namespace warploom::gemm::simt
