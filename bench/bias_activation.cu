// bench/bias_activation.cu
#include "bias_activation.hpp"

#include <cstdint>
#include <stdexcept>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gemm/activation.cuh"
#include "warploom/cuda_check.hpp"

namespace warploom::bench {
namespace {

namespace wg = warploom::gemm;

// Eight elements (16 bytes) per thread and step: a memory-bound pass reads and writes D at full
// width. A row's contiguous extent and ld are multiples of 8 (GemmOperands pads ld to 16 bytes;
// the host checks), so no vector crosses a row.
constexpr int kVector = 8;

template <class T, wg::Activation kA>
__global__ void bias_activation_kernel(T* d, T const* bias, int m, int n, std::int64_t ldd,
                                       float slope) {
  std::int64_t const vectors_per_row = n / kVector;
  std::int64_t const total = m * vectors_per_row;
  for (std::int64_t v = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; v < total;
       v += std::int64_t{gridDim.x} * blockDim.x) {
    std::int64_t const row = v / vectors_per_row;
    std::int64_t const col = (v % vectors_per_row) * kVector;
    auto* const at = reinterpret_cast<uint4*>(d + row * ldd + col);
    uint4 packed = *at;
    uint4 const packed_bias = *reinterpret_cast<uint4 const*>(bias + col);
    T* const x = reinterpret_cast<T*>(&packed);
    T const* const b = reinterpret_cast<T const*>(&packed_bias);
#pragma unroll
    for (int j = 0; j < kVector; ++j) x[j] = T(wg::activate<kA>(float(x[j]) + float(b[j]), slope));
    *at = packed;
  }
}

template <class T, wg::Activation kA>
void launch(wg::GemmArguments const& r, cudaStream_t stream) {
  int sms = 0, device = 0;
  WL_CUDA_CHECK(cudaGetDevice(&device));
  WL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  std::int64_t const vectors = std::int64_t{r.m} * (r.n / kVector);
  int const threads = 256;
  int const blocks =
      static_cast<int>(std::min<std::int64_t>((vectors + threads - 1) / threads, 8 * sms));
  bias_activation_kernel<T, kA>
      <<<blocks, threads, 0, stream>>>(static_cast<T*>(r.d), static_cast<T const*>(r.epilogue.bias),
                                       r.m, r.n, r.ldd, r.epilogue.leaky_slope);
  WL_CUDA_CHECK(cudaGetLastError());
}

template <class T>
void launch(wg::GemmArguments const& r, cudaStream_t stream) {
  switch (r.epilogue.activation) {
    case wg::Activation::Identity:
      return launch<T, wg::Activation::Identity>(r, stream);
    case wg::Activation::ReLU:
      return launch<T, wg::Activation::ReLU>(r, stream);
    case wg::Activation::GELU:
      return launch<T, wg::Activation::GELU>(r, stream);
    case wg::Activation::GELUTanh:
      return launch<T, wg::Activation::GELUTanh>(r, stream);
    case wg::Activation::SiLU:
      return launch<T, wg::Activation::SiLU>(r, stream);
    default:
      throw std::invalid_argument(
          "bias_activation: activation: identity, relu, gelu, gelu_tanh or silu only");
  }
}

}  // namespace

void bias_activation(wg::GemmArguments const& r, cudaStream_t stream) {
  wg::GemmEpilogue const& e = r.epilogue;
  bool const shape_ok = r.batch == 1 && r.d_layout == wg::MatrixLayout::RowMajor &&
                        r.n % kVector == 0 && r.ldd % kVector == 0;
  bool const bias_ok = e.bias != nullptr && e.bias_type == r.d_type &&
                       e.bias_broadcast == wg::Broadcast::PerColumn &&
                       reinterpret_cast<std::uintptr_t>(e.bias) % 16 == 0;
  bool const nothing_else = e.row_scale == nullptr && e.col_scale == nullptr &&
                            e.residual.data == nullptr && e.pre_activation.data == nullptr;
  if (!shape_ok || !bias_ok || !nothing_else)
    throw std::invalid_argument(
        "bias_activation: a row-major D of one batch with N and ldd multiples of 8, a 16-byte "
        "aligned column bias of D's type, and no other epilogue op");
  if (r.d_type == wg::ScalarType::BF16) return launch<__nv_bfloat16>(r, stream);
  if (r.d_type == wg::ScalarType::F16) return launch<__half>(r, stream);
  throw std::invalid_argument("bias_activation: D must be bf16 or fp16");
}

wg::GemmArguments without_epilogue(wg::GemmArguments args) {
  args.epilogue = {};
  return args;
}

}  // namespace warploom::bench
