// kernels/gemm/sm90_ts_gemm_dispatch.cpp — run-time types and layouts -> a compiled configuration.
#include "sm90_ts_gemm_dispatch.hpp"

namespace warploom::gemm::sm90 {
namespace {

template <ScalarType kIn, ScalarType kOut, ConsumerDesign kDesign>
void run_for_layouts(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream) {
  bool const a_k_major = args.a.layout == MatrixLayout::RowMajor;
  bool const b_k_major = args.b.layout == MatrixLayout::ColMajor;
  if (a_k_major && b_k_major) {
    run_ts_gemm<kIn, kOut, true, true, kDesign>(args, tuning, stream);
  } else if (a_k_major) {
    run_ts_gemm<kIn, kOut, true, false, kDesign>(args, tuning, stream);
  } else if (b_k_major) {
    run_ts_gemm<kIn, kOut, false, true, kDesign>(args, tuning, stream);
  } else {
    run_ts_gemm<kIn, kOut, false, false, kDesign>(args, tuning, stream);
  }
}

template <ScalarType kIn, ScalarType kOut>
void run_for_design(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream) {
  if (tuning.design == ConsumerDesign::PingPong) {
    run_for_layouts<kIn, kOut, ConsumerDesign::PingPong>(args, tuning, stream);
  } else {
    run_for_layouts<kIn, kOut, ConsumerDesign::Cooperative>(args, tuning, stream);
  }
}

}  // namespace

void run_ts_gemm(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream) {
  bool const f32_out = args.d_type == ScalarType::F32;
  if (args.a.type == ScalarType::F16) {
    f32_out ? run_for_design<ScalarType::F16, ScalarType::F32>(args, tuning, stream)
            : run_for_design<ScalarType::F16, ScalarType::F16>(args, tuning, stream);
  } else {
    f32_out ? run_for_design<ScalarType::BF16, ScalarType::F32>(args, tuning, stream)
            : run_for_design<ScalarType::BF16, ScalarType::BF16>(args, tuning, stream);
  }
}

}  // namespace warploom::gemm::sm90
