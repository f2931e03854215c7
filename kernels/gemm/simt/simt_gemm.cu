// kernels/gemm/simt/simt_gemm.cu — every SIMT GEMM configuration, in one translation unit: the
// operand layouts are run-time strides, so twelve kernels cover every type pair gemm.cpp accepts.
#include <stdexcept>
#include <string>
#include <type_traits>

#include "gemm/simt/simt_gemm.cuh"
#include "gemm/simt/simt_gemm_dispatch.hpp"

namespace warploom::gemm::simt {
namespace {

// K tile and stages, measured on the H200 at 4096³ (TFLOP/s, A and B row-major / both
// column-major; fp32 peak about 67, fp64 about 33): fp32 K16 x 4 stages 30.8 / 30.6, K32 x 4
// 33.2 / 33.4, K32 x 3 32.8 / 32.9, K8 x 4 26.0 / 27.9, K16 x 8 30.3 / 30.2; bf16 K16 x 4 25.5,
// K32 x 4 28.0; fp64 K8, K16 x 4 and K32 x 3 all 18.0-18.5. Longer K tiles halve the per-stage
// barrier and pipeline-restart overhead of the math warps; more stages buy nothing. K32 x 3 keeps
// fp32 stages at 101 KiB of shared memory; fp64 stays at K16 x 4 (100 KiB).
template <class TIn, class TOut>
using Config = std::conditional_t<std::is_same_v<TIn, double>, SimtGemm<TIn, TOut, 16, 4>,
                                  SimtGemm<TIn, TOut, 32, 3>>;

// fp8 inputs (either format) with D bf16, fp16 or fp32.
template <class TIn>
void run_fp8_as(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream) {
  switch (args.d_type) {
    case ScalarType::BF16:
      return launch_simt_gemm<Config<TIn, __nv_bfloat16>>(args, tuning, stream);
    case ScalarType::F16:
      return launch_simt_gemm<Config<TIn, __half>>(args, tuning, stream);
    case ScalarType::F32:
      return launch_simt_gemm<Config<TIn, float>>(args, tuning, stream);
    default:
      throw std::logic_error("gemm: internal error: no SIMT GEMM for fp8 -> " +
                             std::string(to_string(args.d_type)) +
                             " (gemm.cpp should have rejected it)");
  }
}
void run_fp8(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream) {
  if (args.a.type == ScalarType::E4M3) {
    run_fp8_as<__nv_fp8_e4m3>(args, tuning, stream);
  } else {
    run_fp8_as<__nv_fp8_e5m2>(args, tuning, stream);
  }
}

}  // namespace

void run_simt_gemm(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream) {
  ScalarType const in = args.a.type;
  ScalarType const out = args.d_type;
  if (in == ScalarType::F16 && out == ScalarType::F16) {
    launch_simt_gemm<Config<__half, __half>>(args, tuning, stream);
  } else if (in == ScalarType::F16 && out == ScalarType::F32) {
    launch_simt_gemm<Config<__half, float>>(args, tuning, stream);
  } else if (in == ScalarType::BF16 && out == ScalarType::BF16) {
    launch_simt_gemm<Config<__nv_bfloat16, __nv_bfloat16>>(args, tuning, stream);
  } else if (in == ScalarType::BF16 && out == ScalarType::F32) {
    launch_simt_gemm<Config<__nv_bfloat16, float>>(args, tuning, stream);
  } else if (in == ScalarType::F32 && out == ScalarType::F32) {
    launch_simt_gemm<Config<float, float>>(args, tuning, stream);
  } else if (in == ScalarType::F64 && out == ScalarType::F64) {
    launch_simt_gemm<Config<double, double>>(args, tuning, stream);
  } else if (in == ScalarType::E4M3 || in == ScalarType::E5M2) {
    run_fp8(args, tuning, stream);
  } else {
    throw std::logic_error("gemm: internal error: no SIMT GEMM for " + std::string(to_string(in)) +
                           " -> " + std::string(to_string(out)) +
                           " (gemm.cpp should have rejected it)");
  }
}

}  // namespace warploom::gemm::simt
