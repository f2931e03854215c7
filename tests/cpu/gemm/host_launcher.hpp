// tests/cpu/gemm/host_launcher.hpp — what host_launcher.cpp (compiled by the host compiler alone)
// tells nvrtc_kernel_test.cu (compiled by nvcc).
#pragma once

#include <cstddef>
#include <vector>

namespace warploom::gemm::sm90 {

// params_layout of bf16_bf16_tn_pingpong_s6_b1_1x1's Params, as the host compiler lays them out.
std::vector<std::size_t> host_compiler_params_layout();

}  // namespace warploom::gemm::sm90
