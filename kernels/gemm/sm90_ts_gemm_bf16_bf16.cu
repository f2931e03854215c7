// kernels/gemm/sm90_ts_gemm_bf16_bf16.cu — the sm90 TS GEMM for bf16 A and B, bf16 C and D.
#include "sm90_ts_gemm_dispatch.hpp"
#include "sm90_ts_gemm_launch.cuh"

namespace warploom::gemm::sm90 {

void run_ts_gemm_bf16_bf16(GemmArguments const& args, GemmTuning const& tuning,
                           cudaStream_t stream) {
  run_ts_gemm<cute::bfloat16_t, cute::bfloat16_t>(args, tuning, stream);
}

ts::ManagerModel ts_gemm_model() {
  return TsGemm<cute::bfloat16_t, cute::bfloat16_t, cute::bfloat16_t, true, true, 2,
                1>::Manager::model("sm90_ts_gemm");
}

}  // namespace warploom::gemm::sm90
