// kernels/gemm/sm90_ts_gemm_f16_f16.cu — the sm90 TS GEMM for f16 A and B, f16 C and D.
#include "sm90_ts_gemm_dispatch.hpp"
#include "sm90_ts_gemm_launch.cuh"

namespace warploom::gemm::sm90 {

void run_ts_gemm_f16_f16(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream) {
  run_ts_gemm<cute::half_t, cute::half_t>(args, tuning, stream);
}

}  // namespace warploom::gemm::sm90
