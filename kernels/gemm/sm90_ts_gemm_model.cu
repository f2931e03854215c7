// kernels/gemm/sm90_ts_gemm_model.cu — the sm90 TS GEMM's TaskManager as `warploom verify` sees it
// (bf16, both operands K-major, a 2x1 cluster; the schedule is the same for every configuration).
#include "sm90_ts_gemm.cuh"
#include "sm90_ts_gemm_dispatch.hpp"

namespace warploom::gemm::sm90 {

ts::ManagerModel ts_gemm_model() {
  return TsGemm<cute::bfloat16_t, cute::bfloat16_t, cute::bfloat16_t, true, true, 2,
                1>::Manager::model("sm90_ts_gemm");
}

}  // namespace warploom::gemm::sm90
