// kernels/gemm/sm90/launch.cuh
//
// The host side of an sm90 TS GEMM instance (kernel.cuh): TMA descriptors and the tile raster from
// GemmArguments (already checked and resolved by src/gemm), the persistent grid, and the launch
// with the proof that the schedule was verified when it was built (ts::verified<Schedule>: no
// check at run time, and none in this translation unit). Apart from the kernel, so that NVRTC,
// which compiles device code only, can compile kernel.cuh alone (src/jit/nvrtc.hpp), and a host
// compiler alone this file: without nvcc it launches a kernel it is given by handle.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "gemm/sm90/instance.hpp"
#include "warploom/arch/sm90/tensor_map.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/gemm.hpp"
#include "warploom/ts/launch.hpp"
#include "warploom/ts/schedule_unit.hpp"

#if defined(__CUDACC__)
#include "gemm/sm90/kernel.cuh"
#endif

#if !defined(__CUDACC__)
// The host compiler alone (a JIT launcher of a kernel NVRTC compiles) must see nvcc's version
// (WARPLOOM_HOST_LAUNCHER_DEFINITIONS, cmake/WarploomFlags.cmake): without it CuTe never encodes a
// TMA descriptor (copy_traits_sm90_tma.hpp) and the kernel's first TMA faults.
static_assert(std::is_same_v<cute::TmaDescriptor, CUtensorMap>,
              "compile with -D__CUDACC_VER_MAJOR__=<nvcc's major> (and _MINOR__, _BUILD__): "
              "CuTe encodes TMA descriptors only where it sees a CUDA compiler's version");
#endif

namespace warploom::gemm::sm90 {

// The (M, K, L) or (N, K, L) view of an operand for CuTe's TMA descriptor; `rows` is M or N. An
// operand broadcast across the batch (batch stride 0) is described as one batch, and the main
// loop reads batch 0 of it (Params::batch_step_a, _b): TMA's rules for a stride of 0 on a
// dimension longer than 1 are not documented, and a descriptor holding one batch needs none.
// Its batch stride is then that of one packed batch, as for batch == 1 (src/gemm/gemm.cpp's
// tma_violation checks it).
template <bool kKMajor, class T>
WL_HOST_DEVICE auto operand_tensor(Matrix const& x, int rows, int k, int batch) {
  using namespace cute;
  std::int64_t const ld = x.ld;
  bool const broadcast = x.batch_stride == 0;
  std::int64_t const bs = broadcast ? ld * (kKMajor ? rows : k) : x.batch_stride;
  auto const shape = make_shape(rows, k, broadcast ? 1 : batch);
  auto const* ptr = static_cast<T const*>(x.data);
  if constexpr (kKMajor) {
    return make_tensor(ptr, make_layout(shape, make_stride(ld, _1{}, bs)));
  } else {
    return make_tensor(ptr, make_layout(shape, make_stride(_1{}, ld, bs)));
  }
}

// Division rounded up, in 64 bits: in int, an M near 2^31 rounded up to a negative tile count and
// the launch failed with a raw cudaErrorInvalidValue, a K near 2^31 to no K tile at all. (gemm.cpp
// caps M, N and K at kMaxExtent and the tiles of M x N x batch below 2^30: the counts fit an int.)
inline std::int64_t ceil_div64(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// The kernel parameters of one problem. `args` has its leading dimensions and batch strides
// resolved, row-major C and D, and A (M x K) and B (K x N, seen as N x K) in the majors of the
// instance; its epilogue is the instance's (gemm.cpp transposed it with D).
template <class I>
typename I::Params make_params(GemmArguments const& args, GemmTuning const& tuning) {
  using namespace cute;
  using Cfg = typename I::Cfg;
  using Params = typename I::Params;
  constexpr std::int64_t kBytes = sizeof(typename Cfg::TD);
  Params p{
      .tma_a = Cfg::template make_tma_load<Cfg::kTileM, Cfg::kClusterN, typename Cfg::SmemLayoutA>(
          operand_tensor<Cfg::kAKMajor, typename Cfg::TA>(args.a, args.m, args.k, args.batch)),
      .tma_b = Cfg::template make_tma_load<Cfg::kTileN, Cfg::kClusterM, typename Cfg::SmemLayoutB>(
          operand_tensor<Cfg::kBKMajor, typename Cfg::TB>(args.b, args.n, args.k, args.batch)),
      .tma_d = warploom::sm90::make_tensor_map_3d<typename Cfg::TD>(
          args.d, {args.n, args.m, args.batch}, {args.ldd * kBytes, args.batch_stride_d * kBytes},
          Cfg::kEpiN, Cfg::kTileM, CU_TENSOR_MAP_SWIZZLE_128B),
      .m = args.m,
      .n = args.n,
      .k = args.k,
      .batch = args.batch,
      .d = static_cast<typename Cfg::TD*>(args.d),
      .c = static_cast<typename Cfg::TD const*>(args.c.data),
      .stride_c = {},
      .stride_d = {},
      .alpha = args.alpha,
      .beta = args.beta,
      .alpha_ptr = args.alpha_ptr,
      .beta_ptr = args.beta_ptr,
      .scale_a = args.scale_a,
      .scale_b = args.scale_b,
      .scale_d = args.scale_d,
      .amax_d = args.amax_d,
      .raster = {},
      .num_tiles = 0,
      .k_tiles = static_cast<int>(ceil_div64(args.k, Cfg::kTileK)),
      .batch_step_a = args.a.batch_stride == 0 ? 0 : 1,
      .batch_step_b = args.b.batch_stride == 0 ? 0 : 1,
      .stream_k = {},
      .split_k = {},
      .epilogue = Cfg::Epilogue::params(args),
  };
  p.stride_c = make_stride(args.c.ld, _1{}, args.c.batch_stride);
  p.stride_d = make_stride(args.ldd, _1{}, args.batch_stride_d);
  // The raster walks cluster tiles: kClusterM x kClusterN output tiles each.
  p.raster = TileRaster{
      .tiles_m = static_cast<int>(ceil_div64(ceil_div64(args.m, Cfg::kTileM), Cfg::kClusterM)),
      .tiles_n = static_cast<int>(ceil_div64(ceil_div64(args.n, Cfg::kTileN), Cfg::kClusterN)),
      .panel = std::max(1, tuning.raster_panel)};
  p.num_tiles = static_cast<int>(std::int64_t{p.raster.tiles_per_batch()} * args.batch);
  return p;
}

// The current device's SMs.
inline int device_sm_count() {
  int device = 0, sms = 0;
  WL_CUDA_CHECK(cudaGetDevice(&device));
  WL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// The persistent grid of instance I for `tiles` cluster tiles: as many clusters as can be resident
// (or tuning.max_ctas CTAs), at most one per cluster tile.
template <class I, class KernelFn>
dim3 persistent_grid(int tiles, GemmTuning const& tuning, KernelFn kernel) {
  using Cfg = typename I::Cfg;
  int clusters = 0;
  if constexpr (Cfg::kClusterSize == 1) {
    clusters = device_sm_count();
  } else {
    clusters = ts::max_active_clusters<typename I::Manager>(kernel);
  }
  if (tuning.max_ctas > 0)
    clusters = std::min(clusters, std::max(1, tuning.max_ctas / Cfg::kClusterSize));
  clusters = std::min(clusters, tiles);
  return dim3(static_cast<unsigned>(clusters * Cfg::kClusterSize));
}

// Params `p` made a stream-K walk (gemm/stream_k_decomposition.hpp) over `ctas` CTAs, in
// `workspace` (its partial sums, then its flags, which are zeroed on `stream`); the grid it needs.
// A problem stream-K does not change (whole waves of tiles, one K tile) keeps the persistent walk.
template <class I>
dim3 with_stream_k(typename I::Params& p, int ctas, void* workspace, cudaStream_t stream) {
  using Cfg = typename I::Cfg;
  // Groups of neighbouring tiles in one column of the raster's panel (they share B's K slices).
  int const max_groups = std::min({8, p.raster.panel, p.raster.tiles_m});
  StreamKDecomposition const walk =
      StreamKDecomposition::make(p.num_tiles, p.k_tiles, ctas, max_groups);
  if (!walk.active()) return dim3(static_cast<unsigned>(std::min(ctas, p.num_tiles)));
  if (workspace == nullptr)
    throw std::logic_error("launch_ts_gemm: a stream-K launch without its workspace");
  p.stream_k = StreamKRun::in(workspace, walk, Cfg::kTileM, Cfg::kTileN);
  WL_CUDA_CHECK(cudaMemsetAsync(p.stream_k.flags, 0,
                                sizeof(int) * static_cast<std::size_t>(walk.ctas), stream));
  p.num_tiles = walk.units();
  return dim3(static_cast<unsigned>(walk.ctas));
}

// Launches instance I's kernel: `kernel` is ts_gemm_kernel<I> or, for a kernel compiled apart
// (NVRTC), its handle, ts::KernelHandle<typename I::Params>. With tuning.tile_scheduling StreamK
// (a cooperative 1x1 instance; gemm.cpp checks it) `args.workspace` holds the walk's workspace.
// An active `fold` (a kSplitKFold instance; split_k.cpp checks it): the batches are split-K's
// slices, which add themselves up into fold.out instead of writing args.d.
template <class I, class Kernel>
void launch_ts_gemm(GemmArguments const& args, GemmTuning const& tuning, SplitKFold const& fold,
                    cudaStream_t stream, Kernel kernel) {
  typename I::Params p = make_params<I>(args, tuning);
  if (fold.active()) {
    if constexpr (I::Cfg::kSplitKFold) {
      p.split_k = fold;
    } else {
      throw std::logic_error("launch_ts_gemm: split-K's fold asked of a configuration without it");
    }
  }
  dim3 grid;
  if (tuning.tile_scheduling == TileScheduling::StreamK) {
    if constexpr (I::Cfg::kStreamK) {
      grid = with_stream_k<I>(p, stream_k_grid(device_sm_count(), tuning.max_ctas), args.workspace,
                              stream);
    } else {
      throw std::logic_error("launch_ts_gemm: stream-K asked of a configuration that has none");
    }
  } else {
    grid = persistent_grid<I>(p.num_tiles, tuning, kernel);
  }
  // Every CTA atomically maxes into *amax_d, so it starts at 0: set on the stream (a memset node
  // in a captured graph), as cuBLASLt sets its amax rather than accumulating into it.
  if (args.amax_d != nullptr) WL_CUDA_CHECK(cudaMemsetAsync(args.amax_d, 0, sizeof(float), stream));
  ts::launch<typename I::Manager>(ts::verified<typename I::Schedule>(), kernel, grid, stream, p);
}

#if defined(__CUDACC__)
template <class I>
void launch_ts_gemm(GemmArguments const& args, GemmTuning const& tuning, SplitKFold const& fold,
                    cudaStream_t stream) {
  launch_ts_gemm<I>(args, tuning, fold, stream, ts_gemm_kernel<I>);
}
#endif

}  // namespace warploom::gemm::sm90
