// bench/half_add.cu
#include "half_add.hpp"

#include <stdexcept>
#include <string>

#include <cuda/std/array>

#include "warploom/cuda_check.hpp"

namespace warploom::bench {
namespace {

constexpr int kThreads = 256;
constexpr int kHalvesPerItem = 8;  // one 16-byte load of each input and one store per item

using Item = cuda::std::array<__nv_bfloat162, kHalvesPerItem / 2>;

__global__ void __launch_bounds__(kThreads)
    half_add_kernel(Item* d, Item const* r, std::int64_t items) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x; i < items;
       i += static_cast<std::int64_t>(gridDim.x) * kThreads) {
    Item v = d[i];
    Item const w = r[i];
    for (int j = 0; j < kHalvesPerItem / 2; ++j) v[j] = __hadd2(v[j], w[j]);
    d[i] = v;
  }
}

}  // namespace

void half_add_inplace(__nv_bfloat16* d, __nv_bfloat16 const* r, std::int64_t n,
                      cudaStream_t stream) {
  if (n <= 0 || n % kHalvesPerItem != 0)
    throw std::invalid_argument("half_add_inplace: n = " + std::to_string(n) +
                                " must be a positive multiple of 8");
  // A grid-stride loop over a few waves, as half_relu: 132 SMs x 8 blocks of 256 threads.
  std::int64_t const items = n / kHalvesPerItem;
  std::int64_t const blocks = (items + kThreads - 1) / kThreads;
  int const grid = static_cast<int>(blocks < 132 * 8 ? blocks : 132 * 8);
  half_add_kernel<<<grid, kThreads, 0, stream>>>(reinterpret_cast<Item*>(d),
                                                 reinterpret_cast<Item const*>(r), items);
  WL_CUDA_CHECK(cudaGetLastError());
}

}  // namespace warploom::bench
