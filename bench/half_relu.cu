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

// Pair: __half2 or __nv_bfloat162, whose __hmax2 against +0 is the relu.
template <class Pair>
using Item = cuda::std::array<Pair, kHalvesPerItem / 2>;

template <class Pair>
__global__ void __launch_bounds__(kThreads)
    half_relu_kernel(Item<Pair> const* x, Item<Pair>* r, std::int64_t items) {
  Pair const zero{};  // +0 in both formats
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x; i < items;
       i += static_cast<std::int64_t>(gridDim.x) * kThreads) {
    Item<Pair> v = x[i];
    for (Pair& h : v) h = __hmax2(h, zero);
    r[i] = v;
  }
}

template <class Pair>
void launch_relu(void const* x, void* r, std::int64_t n, cudaStream_t stream) {
  if (n <= 0 || n % kHalvesPerItem != 0)
    throw std::invalid_argument("half_relu: n = " + std::to_string(n) +
                                " must be a positive multiple of 8");
  // A grid-stride loop over a grid of a few waves: 132 SMs x 8 blocks of 256 threads keep every
  // SM's memory pipe full without a block per item.
  std::int64_t const items = n / kHalvesPerItem;
  std::int64_t const blocks = (items + kThreads - 1) / kThreads;
  int const grid = static_cast<int>(blocks < 132 * 8 ? blocks : 132 * 8);
  half_relu_kernel<Pair><<<grid, kThreads, 0, stream>>>(static_cast<Item<Pair> const*>(x),
                                                        static_cast<Item<Pair>*>(r), items);
  WL_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void half_relu(__half const* x, __half* r, std::int64_t n, cudaStream_t stream) {
  launch_relu<__half2>(x, r, n, stream);
}

void half_relu(__nv_bfloat16 const* x, __nv_bfloat16* r, std::int64_t n, cudaStream_t stream) {
  launch_relu<__nv_bfloat162>(x, r, n, stream);
}

}  // namespace warploom::bench
