// bench/half_relu.cu
#include "half_relu.hpp"

#include <stdexcept>
#include <string>

#include <cuda/std/array>

#include "warploom/cuda_check.hpp"

namespace warploom::bench {
namespace {

constexpr int kThreads = 256;
constexpr int kHalvesPerItem = 8;  // one 16-byte load and store per item

using Item = cuda::std::array<__half2, kHalvesPerItem / 2>;

__global__ void __launch_bounds__(kThreads)
    half_relu_kernel(Item const* x, Item* r, std::int64_t items) {
  __half2 const zero = __float2half2_rn(0.0f);
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x; i < items;
       i += static_cast<std::int64_t>(gridDim.x) * kThreads) {
    Item v = x[i];
    for (__half2& h : v) h = __hmax2(h, zero);
    r[i] = v;
  }
}

}  // namespace

void half_relu(__half const* x, __half* r, std::int64_t n, cudaStream_t stream) {
  if (n <= 0 || n % kHalvesPerItem != 0)
    throw std::invalid_argument("half_relu: n = " + std::to_string(n) +
                                " must be a positive multiple of 8");
  // A grid-stride loop over a grid of a few waves: 132 SMs x 8 blocks of 256 threads keep every
  // SM's memory pipe full without a block per item.
  std::int64_t const items = n / kHalvesPerItem;
  std::int64_t const blocks = (items + kThreads - 1) / kThreads;
  int const grid = static_cast<int>(blocks < 132 * 8 ? blocks : 132 * 8);
  half_relu_kernel<<<grid, kThreads, 0, stream>>>(reinterpret_cast<Item const*>(x),
                                                  reinterpret_cast<Item*>(r), items);
  WL_CUDA_CHECK(cudaGetLastError());
}

}  // namespace warploom::bench
