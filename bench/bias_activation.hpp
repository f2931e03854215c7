// bench/bias_activation.hpp
//
// The second kernel of an unfused GEMM + bias + activation chain: D = activation(D + bias) in
// place, as a framework without a fused epilogue runs it after its GEMM (PyTorch: addmm's output,
// then F.gelu). What the fused epilogue is measured against, with the activations' device code of
// the fused epilogue itself (kernels/gemm/activation.cuh), so the two compute the same function.
#pragma once

#include <cuda_runtime_api.h>

#include "warploom/gemm.hpp"

namespace warploom::bench {

// Applies `args.epilogue`'s bias (per column of D, of D's type) and activation to D (row-major,
// 16-bit, batch 1) on `stream`. Throws std::invalid_argument for any other epilogue or D.
void bias_activation(gemm::GemmArguments const& args, cudaStream_t stream);

// `args` without its epilogue: the GEMM of the chain's first kernel.
gemm::GemmArguments without_epilogue(gemm::GemmArguments args);

}  // namespace warploom::bench
