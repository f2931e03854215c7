// tests/cpu/gemm/host_launcher.hpp — what host_launcher.cpp (compiled by the host compiler alone)
// offers the tests compiled by nvcc: its layout of Params (nvrtc_kernel_test.cu) and its launch
// (tests/gpu/gemm/nvrtc_kernel_gpu_test.cu).
#pragma once

#include <cstddef>
#include <vector>

#include <cuda_runtime_api.h>

#include "warploom/gemm.hpp"

namespace warploom::gemm::sm90 {

// params_layout of bf16_bf16_tn_pingpong_s6_b1_1x1's Params, as the host compiler lays them out.
std::vector<std::size_t> host_compiler_params_layout();

// Launches that configuration's `kernel` (a cudaKernel_t of ts_gemm_kernel for it, e.g. one NVRTC
// compiled) as a JIT launcher would: Params and their TMA descriptors built by the host compiler.
void host_compiler_launch(GemmArguments const& args, cudaStream_t stream, cudaKernel_t kernel);

}  // namespace warploom::gemm::sm90
