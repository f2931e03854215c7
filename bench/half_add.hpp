// bench/half_add.hpp
//
// The second kernel of the unfused pair tutorial 07/03's GEMM + residual is measured against:
// d += r over n bf16 values, as a framework runs it after a GEMM whose epilogue cannot add a
// residual (PyTorch: `d = a @ b.T; d += r`), reading d back and writing it again. The fused
// kernels add r in their epilogue, before d is first written.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace warploom::bench {

// d = d + r (__hadd2: rounded once to bf16), n a multiple of 8, d and r 16-byte aligned.
void half_add_inplace(__nv_bfloat16* d, __nv_bfloat16 const* r, std::int64_t n,
                      cudaStream_t stream);

}  // namespace warploom::bench
