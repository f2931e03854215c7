// kernels/gemm/simt/instances_fp8.cu — the SIMT GEMM instances with fp8 inputs: e4m3 and e5m2,
// D bf16, fp16 or fp32 (instances.hpp says why they have a unit of their own).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "gemm/simt/instances.hpp"
#include "gemm/simt/kernel.cuh"

namespace warploom::gemm::simt {

template void launch_simt_gemm<Instance<__nv_fp8_e4m3, __nv_bfloat16>>(GemmArguments const&,
                                                                       GemmTuning const&,
                                                                       cudaStream_t);
template void launch_simt_gemm<Instance<__nv_fp8_e4m3, __half>>(GemmArguments const&,
                                                                GemmTuning const&, cudaStream_t);
template void launch_simt_gemm<Instance<__nv_fp8_e4m3, float>>(GemmArguments const&,
                                                               GemmTuning const&, cudaStream_t);
template void launch_simt_gemm<Instance<__nv_fp8_e5m2, __nv_bfloat16>>(GemmArguments const&,
                                                                       GemmTuning const&,
                                                                       cudaStream_t);
template void launch_simt_gemm<Instance<__nv_fp8_e5m2, __half>>(GemmArguments const&,
                                                                GemmTuning const&, cudaStream_t);
template void launch_simt_gemm<Instance<__nv_fp8_e5m2, float>>(GemmArguments const&,
                                                               GemmTuning const&, cudaStream_t);

}  // namespace warploom::gemm::simt
