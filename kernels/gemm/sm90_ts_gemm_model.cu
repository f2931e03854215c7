// kernels/gemm/sm90_ts_gemm_model.cu — the sm90 TS GEMMs' TaskManagers as `warploom verify` sees
// them (bf16, both operands K-major, a 2x1 cluster; the schedules are the same for every
// configuration).
#include "sm90_ts_gemm.cuh"
#include "sm90_ts_gemm_dispatch.hpp"
#include "sm90_ts_gemm_pingpong.cuh"

namespace warploom::gemm::sm90 {

using cute::bfloat16_t;

ts::ManagerModel ts_gemm_model() {
  return TsGemm<bfloat16_t, bfloat16_t, bfloat16_t, true, true, 2, 1>::Manager::model(
      "sm90_ts_gemm");
}

ts::ManagerModel ts_gemm_pingpong_model() {
  return TsGemmPingpong<bfloat16_t, bfloat16_t, bfloat16_t, true, true, 2, 1>::Manager::model(
      "sm90_ts_gemm_pingpong");
}

}  // namespace warploom::gemm::sm90
