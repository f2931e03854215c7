// kernels/gemm/sm90_ts_gemm_dispatch.cpp — run-time types and layouts -> a compiled configuration.
#include "sm90_ts_gemm_dispatch.hpp"

#include <stdexcept>
#include <string>

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

// fp8: wgmma reads 8-bit operands K-major only, so only A row-major and B column-major are
// compiled (gemm.cpp sends the other layouts to the SIMT GEMM), with D bf16, fp16 or fp32.
template <ScalarType kIn, ConsumerDesign kDesign>
void run_fp8_for_design(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream) {
  switch (args.d_type) {
    case ScalarType::BF16:
      return run_ts_gemm<kIn, ScalarType::BF16, true, true, kDesign>(args, tuning, stream);
    case ScalarType::F16:
      return run_ts_gemm<kIn, ScalarType::F16, true, true, kDesign>(args, tuning, stream);
    case ScalarType::F32:
      return run_ts_gemm<kIn, ScalarType::F32, true, true, kDesign>(args, tuning, stream);
    default:
      throw std::logic_error("gemm: internal error: no fp8 tensor-core GEMM with D of " +
                             std::string(to_string(args.d_type)));
  }
}
template <ScalarType kIn>
void run_fp8(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream) {
  if (args.a.layout != MatrixLayout::RowMajor || args.b.layout != MatrixLayout::ColMajor)
    throw std::logic_error(
        "gemm: internal error: fp8 tensor-core GEMM given a non-K-major operand "
        "(gemm.cpp should have rejected it)");
  if (tuning.design == ConsumerDesign::PingPong) {
    run_fp8_for_design<kIn, ConsumerDesign::PingPong>(args, tuning, stream);
  } else {
    run_fp8_for_design<kIn, ConsumerDesign::Cooperative>(args, tuning, stream);
  }
}

}  // namespace

void run_ts_gemm(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream) {
  if (args.a.type == ScalarType::E4M3) return run_fp8<ScalarType::E4M3>(args, tuning, stream);
  if (args.a.type == ScalarType::E5M2) return run_fp8<ScalarType::E5M2>(args, tuning, stream);
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
