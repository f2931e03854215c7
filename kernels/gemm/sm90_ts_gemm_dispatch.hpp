// kernels/gemm/sm90_ts_gemm_dispatch.hpp
//
// The compiled sm90 TS GEMM configurations. Each (input type, output type, A major, B major) is
// explicitly instantiated in a translation unit of its own per consumer design, generated from
// sm90_ts_gemm_instance.cu.in by kernels/CMakeLists.txt, so they build in parallel: fp16 and bf16
// inputs with D of the input type or fp32 in all four operand majors (16), and e4m3 and e5m2
// inputs with D bf16, fp16 or fp32, both operands K-major (6); each in both designs;
// each picks its cluster shape at run time. All take arguments normalised by gemm.cpp (row-major C
// and D, leading dimensions and batch strides resolved).
#pragma once

#include <cuda_runtime_api.h>

#include "gemm.hpp"

namespace warploom::gemm::sm90 {

// One configuration (defined in sm90_ts_gemm_launch.cuh). A is K-major when row-major, B (K x N)
// when column-major; kDesign is Cooperative or PingPong.
template <ScalarType kIn, ScalarType kOut, bool kAKMajor, bool kBKMajor, ConsumerDesign kDesign>
void run_ts_gemm(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream);

// Picks the configuration for the types and operand layouts of `args` and tuning.design (not
// Auto: gemm.cpp resolved it).
void run_ts_gemm(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream);

// The TaskManager models of the two designs (identical across configurations up to types).
ts::ManagerModel ts_gemm_model();
ts::ManagerModel ts_gemm_pingpong_model();

}  // namespace warploom::gemm::sm90
