// kernels/tutorial/01_grid_stride_copy.cu
//
// Tutorial 01: grid-stride copy. The TS kernel, its resources, schedule and TaskManager are in
// grid_stride_copy_schedule.cuh (read it first); this file holds what runs it: the seed's naive
// kernel as the baseline, and the host launchers, which launch the TS kernel with the proof its
// schedule unit gives.
#include "grid_stride_copy.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "grid_stride_copy_schedule.cuh"
#include "grid_stride_launch.hpp"
#include "warploom/ts/launch.hpp"

namespace warploom::tutorial {
namespace {

// ---- Baseline: the seed's naive kernel, with the same item width and unroll --------------------
template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    grid_stride_copy_baseline_kernel(std::int16_t const* src, std::int16_t* dst, int n) {
  using Item = typename Cfg::Item;
  constexpr int kElems = Cfg::kElems;
  int const threads_per_block = kGridStrideWarps * 32;
  int const gid = static_cast<int>(blockIdx.x) * threads_per_block + static_cast<int>(threadIdx.x);
  int const step = static_cast<int>(gridDim.x) * threads_per_block;
  int const full_items = n / kElems;
#pragma unroll(Cfg::kUnroll)
  for (int i = gid; i < full_items; i += step)
    reinterpret_cast<Item*>(dst)[i] = __ldg(reinterpret_cast<Item const*>(src) + i);
  if constexpr (kElems > 1) {  // the elements after the last whole item
    for (int e = full_items * kElems + gid; e < n; e += step) dst[e] = src[e];
  }
}

template <class Cfg>
void launch_variant(Implementation impl, std::int16_t const* src, std::int16_t* dst, std::int64_t n,
                    int blocks, cudaStream_t stream) {
  using Manager = typename Cfg::Manager;
  if (blocks == 0)
    blocks = blocks_filling_the_gpu(grid_stride_copy_ts_kernel<Cfg>, Manager::num_threads);
  check_grid_stride_extent("grid_stride_copy", n, Cfg::kElems, blocks, Manager::num_threads);
  if (n == 0) return;
  if (impl == Implementation::TaskScheduled) {
    ts::launch<Manager>(ts::verified<Cfg>(), grid_stride_copy_ts_kernel<Cfg>, dim3(blocks), stream,
                        src, dst, static_cast<int>(n));
  } else {
    grid_stride_copy_baseline_kernel<Cfg>
        <<<blocks, Manager::num_threads, 0, stream>>>(src, dst, static_cast<int>(n));
    WL_CUDA_CHECK(cudaGetLastError());
  }
}

}  // namespace

std::vector<std::string> grid_stride_copy_tunings() {
  std::vector<std::string> out;
  [&]<class... Cs>(ts::list<Cs...>) {
    (out.push_back("vector unroll" + std::to_string(Cs::kUnroll)), ...);
  }(VectorTunings{});
  return out;
}

void grid_stride_copy_tuned(int tuning, std::int16_t const* src, std::int16_t* dst, std::int64_t n,
                            cudaStream_t stream) {
  int i = 0;
  bool launched = false;
  [&]<class... Cs>(ts::list<Cs...>) {
    (((i++ == tuning) ? (launch_variant<Cs>(Implementation::TaskScheduled, src, dst, n, 0, stream),
                         launched = true)
                      : false),
     ...);
  }(VectorTunings{});
  if (!launched)
    throw std::invalid_argument("grid_stride_copy_tuned: `tuning` = " + std::to_string(tuning) +
                                " is not in [0, " + std::to_string(i) + ")");
}

std::string_view to_string(GridStrideVariant v) {
  return v == GridStrideVariant::Scalar ? "scalar (1 int16 per item)" : "vector (8 int16 per item)";
}

void grid_stride_copy(GridStrideVariant variant, Implementation impl, std::int16_t const* src,
                      std::int16_t* dst, std::int64_t n, int blocks, cudaStream_t stream) {
  if (n < 0)
    throw std::invalid_argument("grid_stride_copy: `n` = " + std::to_string(n) + " must be >= 0");
  if (n > 0 && (src == nullptr || dst == nullptr))
    throw std::invalid_argument("grid_stride_copy: `src` and `dst` must not be null");
  if (blocks < 0) throw std::invalid_argument("grid_stride_copy: `blocks` must be >= 0");
  if (variant == GridStrideVariant::Scalar)
    return launch_variant<ScalarCopy>(impl, src, dst, n, blocks, stream);
  for (auto [name, p] : {std::pair{"src", static_cast<void const*>(src)},
                         std::pair{"dst", static_cast<void const*>(dst)}})
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
      throw std::invalid_argument(std::string("grid_stride_copy: `") + name +
                                  "` must be 16-byte aligned for the vector variant (use "
                                  "GridStrideVariant::Scalar for unaligned data)");
  launch_variant<VectorCopy>(impl, src, dst, n, blocks, stream);
}

ts::ManagerModel grid_stride_copy_model(GridStrideVariant variant) {
  return variant == GridStrideVariant::Scalar ? ScalarCopy::Manager::model(ScalarCopy::kName)
                                              : VectorCopy::Manager::model(VectorCopy::kName);
}

}  // namespace warploom::tutorial
