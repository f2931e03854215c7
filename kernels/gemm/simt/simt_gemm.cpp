// kernels/gemm/simt/simt_gemm.cpp — which SIMT GEMM instance runs a call: the operand layouts are
// run-time strides, so twelve kernels cover every type pair gemm.cpp accepts. The kernels are
// compiled in instances_wide.cu and instances_fp8.cu (instances.hpp), their two schedules verified
// in their schedule units.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <stdexcept>
#include <string>

#include "gemm/simt/instances.hpp"
#include "gemm/simt/simt_gemm_dispatch.hpp"

namespace warploom::gemm::simt {
namespace {

// fp8 inputs (either format) with D bf16, fp16 or fp32.
template <class TIn>
void run_fp8_as(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream) {
  switch (args.d_type) {
    case ScalarType::BF16:
      return launch_simt_gemm<Instance<TIn, __nv_bfloat16>>(args, tuning, stream);
    case ScalarType::F16:
      return launch_simt_gemm<Instance<TIn, __half>>(args, tuning, stream);
    case ScalarType::F32:
      return launch_simt_gemm<Instance<TIn, float>>(args, tuning, stream);
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
    launch_simt_gemm<Instance<__half, __half>>(args, tuning, stream);
  } else if (in == ScalarType::F16 && out == ScalarType::F32) {
    launch_simt_gemm<Instance<__half, float>>(args, tuning, stream);
  } else if (in == ScalarType::BF16 && out == ScalarType::BF16) {
    launch_simt_gemm<Instance<__nv_bfloat16, __nv_bfloat16>>(args, tuning, stream);
  } else if (in == ScalarType::BF16 && out == ScalarType::F32) {
    launch_simt_gemm<Instance<__nv_bfloat16, float>>(args, tuning, stream);
  } else if (in == ScalarType::F32 && out == ScalarType::F32) {
    launch_simt_gemm<Instance<float, float>>(args, tuning, stream);
  } else if (in == ScalarType::F64 && out == ScalarType::F64) {
    launch_simt_gemm<Instance<double, double>>(args, tuning, stream);
  } else if (in == ScalarType::E4M3 || in == ScalarType::E5M2) {
    run_fp8(args, tuning, stream);
  } else {
    throw std::logic_error("gemm: internal error: no SIMT GEMM for " + std::string(to_string(in)) +
                           " -> " + std::string(to_string(out)) +
                           " (gemm.cpp should have rejected it)");
  }
}

}  // namespace warploom::gemm::simt
