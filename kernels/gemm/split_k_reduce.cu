// kernels/gemm/split_k_reduce.cu — split-K's reduction kernel (split_k_reduce.hpp).
//
// Where the partial sums are D's own: one thread per four consecutive elements of a row of D,
// consecutive threads on consecutive columns: the partial sums (as float4), C and D are read and
// written in whole rows (coalesced). Where they are D^T's: a tile transpose through shared memory.
// Either is a pass over slices x M x N floats: split-K is chosen where M x N is small and K long,
// so this pass is small beside the GEMM's.
#include "gemm/split_k_reduce.hpp"

#include <algorithm>
#include <stdexcept>

#include "warploom/config.hpp"  // WL_DEVICE
#include "warploom/cuda_check.hpp"

namespace warploom::gemm {
namespace {

// Columns per thread: one float4 of each slice's partial sums (the workspace's rows are whole
// 16-byte units, so every group of four starts aligned).
constexpr int kColumns = 4;

WL_DEVICE void accumulate(float& sum, float v) {
  sum += v;
}
WL_DEVICE void accumulate(float4& sum, float4 v) {
  sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
}

// The partial sums at `partial` (V: one float, or a float4 of four columns) of every slice, added
// in slice order. Read once: streamed past the caches (__ldcs). Four slices' loads issued before
// their adds: one load in flight at a time left a small output's few threads waiting on memory
// (1024x16 in 16 slices: 6.1 us against cuBLASLt's 4.1, ncu, H200).
template <class V>
WL_DEVICE V sum_of_slices(SplitKReduce const& p, float const* partial) {
  V sum{};
  int s = 0;
  for (; s + 4 <= p.slices; s += 4) {
    V v[4];
    for (int i = 0; i < 4; ++i)
      v[i] = __ldcs(reinterpret_cast<V const*>(partial + (s + i) * p.slice_stride));
    for (int i = 0; i < 4; ++i) accumulate(sum, v[i]);
  }
  for (; s < p.slices; ++s)
    accumulate(sum, __ldcs(reinterpret_cast<V const*>(partial + s * p.slice_stride)));
  return sum;
}

template <class T>
__global__ void split_k_reduce_kernel(SplitKReduce p) {
  std::int64_t const groups_per_row = (p.out.n + kColumns - 1) / kColumns;
  std::int64_t const count = p.out.m * groups_per_row;
  std::int64_t const stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    std::int64_t const row = i / groups_per_row;
    int const col = static_cast<int>(i - row * groups_per_row) * kColumns;
    float4 const sum = sum_of_slices<float4>(p, p.partials + row * p.ld + col);
    float const sums[kColumns] = {sum.x, sum.y, sum.z, sum.w};
    for (int j = 0; j < kColumns && col + j < p.out.n; ++j)
      write_d<T>(p.out, row, col + j, sums[j]);
  }
}

// The partial sums of D^T, D written: a 32 x 32 tile of them per block (32 x 8 threads), read
// along their rows (coalesced), added in slice order, turned through shared memory and written
// along D's rows (coalesced; C read there too). The swapped slices have few columns (D's M <= 64),
// so reading them along D's rows instead would touch one float of each 128-byte line.
constexpr int kTile = 32, kTileRowsPerPass = 8;

template <class T>
__global__ void split_k_reduce_transposed_kernel(SplitKReduce p) {
  __shared__ float tile[kTile][kTile + 1];  // +1: the transposed reads fall on distinct banks
  std::int64_t const tiles_m = (p.out.m + kTile - 1) / kTile;
  std::int64_t const tiles_n = (p.out.n + kTile - 1) / kTile;
  int const x = static_cast<int>(threadIdx.x), y = static_cast<int>(threadIdx.y);
  for (std::int64_t t = blockIdx.x; t < tiles_m * tiles_n; t += gridDim.x) {
    std::int64_t const i0 = t / tiles_n * kTile;  // rows of the partial sums: D's columns
    int const j0 = static_cast<int>(t % tiles_n) * kTile;
    for (int r = y; r < kTile; r += kTileRowsPerPass) {
      std::int64_t const i = i0 + r;
      int const j = j0 + x;
      tile[r][x] =
          i < p.out.m && j < p.out.n ? sum_of_slices<float>(p, p.partials + i * p.ld + j) : 0.0f;
    }
    __syncthreads();
    for (int r = y; r < kTile; r += kTileRowsPerPass) {
      int const row = j0 + r;           // D's row: a column of the partial sums
      std::int64_t const col = i0 + x;  // D's column
      if (row < p.out.n && col < p.out.m) write_d<T>(p.out, row, col, tile[x][r]);
    }
    __syncthreads();  // the tile is read before the next one is written
  }
}

template <class T>
void launch(SplitKReduce const& p, cudaStream_t stream) {
  if (p.out.transposed) {
    std::int64_t const tiles =
        ((p.out.m + kTile - 1) / kTile) * static_cast<std::int64_t>((p.out.n + kTile - 1) / kTile);
    auto const blocks = static_cast<unsigned>(std::min<std::int64_t>(tiles, 8192));
    split_k_reduce_transposed_kernel<T><<<blocks, dim3(kTile, kTileRowsPerPass), 0, stream>>>(p);
    WL_CUDA_CHECK(cudaGetLastError());
    return;
  }
  // Small blocks: a small output still spreads over many SMs.
  constexpr int kThreads = 128;
  std::int64_t const count =
      static_cast<std::int64_t>(p.out.m) * ((p.out.n + kColumns - 1) / kColumns);
  // Enough blocks for every SM several times over; the grid-stride loop covers the rest.
  auto const blocks =
      static_cast<unsigned>(std::min<std::int64_t>((count + kThreads - 1) / kThreads, 8192));
  split_k_reduce_kernel<T><<<blocks, kThreads, 0, stream>>>(p);
  WL_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void launch_split_k_reduce(SplitKReduce const& p, cudaStream_t stream) {
  if (static_cast<std::int64_t>(p.out.m) * p.out.n == 0) return;
  switch (p.out.d_type) {
    case SplitKOutputType::F16:
      return launch<cutlass::half_t>(p, stream);
    case SplitKOutputType::BF16:
      return launch<cutlass::bfloat16_t>(p, stream);
    case SplitKOutputType::F32:
      return launch<float>(p, stream);
  }
  throw std::logic_error("gemm: internal error: split-K reduces into fp16, bf16 or fp32 only");
}

}  // namespace warploom::gemm
