// kernels/gemm/simt/instances_wide.cu — the SIMT GEMM instances with 16-, 32- and 64-bit inputs:
// fp16 and bf16 with D of the input type or fp32, fp32 -> fp32, fp64 -> fp64 (instances.hpp says
// why they have a unit of their own).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gemm/simt/instances.hpp"
#include "gemm/simt/kernel.cuh"

namespace warploom::gemm::simt {

template void launch_simt_gemm<Instance<__half, __half>>(GemmArguments const&, GemmTuning const&,
                                                         cudaStream_t);
template void launch_simt_gemm<Instance<__half, float>>(GemmArguments const&, GemmTuning const&,
                                                        cudaStream_t);
template void launch_simt_gemm<Instance<__nv_bfloat16, __nv_bfloat16>>(GemmArguments const&,
                                                                       GemmTuning const&,
                                                                       cudaStream_t);
template void launch_simt_gemm<Instance<__nv_bfloat16, float>>(GemmArguments const&,
                                                               GemmTuning const&, cudaStream_t);
template void launch_simt_gemm<Instance<float, float>>(GemmArguments const&, GemmTuning const&,
                                                       cudaStream_t);
template void launch_simt_gemm<Instance<double, double>>(GemmArguments const&, GemmTuning const&,
                                                         cudaStream_t);

}  // namespace warploom::gemm::simt
