// bench/gemm_stage_variants.cu — the stage-count variants of the sm90 TS GEMM (see the header).
#include "gemm_stage_variants.hpp"

#include <stdexcept>

#include "gemm/sm90_gemm_mainloop.cuh"
#include "gemm/sm90_ts_gemm.cuh"
#include "gemm/sm90_ts_gemm_launch.cuh"
#include "gemm/sm90_ts_gemm_pingpong.cuh"

namespace warploom::bench {
namespace {

namespace sm90 = gemm::sm90;
using bf16 = cute::bfloat16_t;
template <int kStages>
using Cooperative = sm90::TsGemm<bf16, bf16, bf16, true, true, 1, 1, 128, 256, 64, kStages>;
template <int kStages, int kStagingBuffers>
using PingPong = sm90::TsGemmPingpong<bf16, bf16, bf16, true, true, 1, 1, 128, 128, 64, kStages,
                                      kStagingBuffers>;

}  // namespace

std::vector<StageVariant> const& stage_variants() {
  static std::vector<StageVariant> const variants{
      {"coop_s2", &sm90::launch_ts_gemm<Cooperative<2>>},
      {"coop_s3", &sm90::launch_ts_gemm<Cooperative<3>>},
      {"pp_s4", &sm90::launch_ts_gemm<PingPong<4, 1>>},
      {"pp_s5b2", &sm90::launch_ts_gemm<PingPong<5, 2>>},
  };
  return variants;
}

void run_stage_variant(StageVariant const& v, gemm::GemmArguments const& args,
                       gemm::GemmTuning const& tuning, cudaStream_t stream) {
  using gemm::MatrixLayout;
  using gemm::ScalarType;
  bool const supported = args.a.type == ScalarType::BF16 && args.d_type == ScalarType::BF16 &&
                         args.a.layout == MatrixLayout::RowMajor &&
                         args.b.layout == MatrixLayout::ColMajor &&
                         args.d_layout == MatrixLayout::RowMajor;
  if (!supported)
    throw std::invalid_argument("run_stage_variant: `" + v.name +
                                "` is compiled for bf16 \"tn\" with a row-major bf16 D only");
  v.launch(gemm::resolved(args, gemm::GemmKernel::TensorCore), tuning, stream);
}

}  // namespace warploom::bench
