// kernels/gemm/sm90_ts_gemm_launch.cuh
//
// The kernel entry of a TS GEMM configuration (cooperative TsGemm or TsGemmPingpong) and its host
// launcher (the generated sm90_ts_gemm_instance.cu.in units instantiate it for one design each):
// builds the TMA descriptors and the tile raster from GemmArguments (already checked), sizes the
// persistent grid and launches through ts::launch (verification once per configuration).
#pragma once

#include <algorithm>
#include <string>

#include "gemm.hpp"
#include "sm90_gemm_mainloop.cuh"
#include "sm90_ts_gemm_dispatch.hpp"
#include "warploom/arch/sm90/tensor_map.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/ts/launch.hpp"

namespace warploom::gemm::sm90 {

template <class Cfg>
__global__ void __launch_bounds__(Cfg::Manager::num_threads, 1)
    ts_gemm_kernel(__grid_constant__ typename Cfg::Params const p) {
  extern __shared__ __align__(1024) char smem[];
  if (threadIdx.x == Cfg::LoadTask::spec.warp_idx * 32) {
    cute::prefetch_tma_descriptor(p.tma_a.get_tma_descriptor());
    cute::prefetch_tma_descriptor(p.tma_b.get_tma_descriptor());
    cute::prefetch_tma_descriptor(&p.tma_d);
  }
  Cfg::run(p, smem);
}

// The (M, K, L) or (N, K, L) view of an operand for CuTe; `rows` is M or N.
template <bool kKMajor, class T>
auto operand_tensor(Matrix const& x, int rows, int k, int batch) {
  using namespace cute;
  std::int64_t const ld = x.ld;
  std::int64_t const bs = x.batch_stride;
  auto const shape = make_shape(rows, k, batch);
  auto const* ptr = static_cast<T const*>(x.data);
  if constexpr (kKMajor) {
    return make_tensor(ptr, make_layout(shape, make_stride(ld, _1{}, bs)));
  } else {
    return make_tensor(ptr, make_layout(shape, make_stride(_1{}, ld, bs)));
  }
}

// `args` has its leading dimensions and batch strides resolved, row-major C and D, and A (M x K)
// and B (K x N, seen as N x K) in the majors of Cfg.
template <class Cfg>
void launch_ts_gemm(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream) {
  using namespace cute;
  using Params = typename Cfg::Params;
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
      .scale_a = args.scale_a,
      .scale_b = args.scale_b,
      .raster = {},
      .num_tiles = 0,
      .k_tiles = (args.k + Cfg::kTileK - 1) / Cfg::kTileK,
  };
  p.stride_c = make_stride(args.c.ld, _1{}, args.c.batch_stride);
  p.stride_d = make_stride(args.ldd, _1{}, args.batch_stride_d);
  // The raster walks cluster tiles: kClusterM x kClusterN output tiles each.
  auto const ceil_div = [](int a, int b) { return (a + b - 1) / b; };
  p.raster = TileRaster{.tiles_m = ceil_div(ceil_div(args.m, Cfg::kTileM), Cfg::kClusterM),
                        .tiles_n = ceil_div(ceil_div(args.n, Cfg::kTileN), Cfg::kClusterN),
                        .panel = std::max(1, tuning.raster_panel)};
  p.num_tiles = p.raster.tiles_per_batch() * args.batch;

  // Persistent grid: as many clusters as can be resident (or tuning.max_ctas CTAs), at most one
  // per cluster tile.
  int clusters = 0;
  if constexpr (Cfg::kClusterSize == 1) {
    int device = 0;
    WL_CUDA_CHECK(cudaGetDevice(&device));
    WL_CUDA_CHECK(cudaDeviceGetAttribute(&clusters, cudaDevAttrMultiProcessorCount, device));
  } else {
    clusters = ts::max_active_clusters<typename Cfg::Manager>(ts_gemm_kernel<Cfg>);
  }
  if (tuning.max_ctas > 0)
    clusters = std::min(clusters, std::max(1, tuning.max_ctas / Cfg::kClusterSize));
  clusters = std::min(clusters, p.num_tiles);
  dim3 const grid(static_cast<unsigned>(clusters * Cfg::kClusterSize));
  ts::launch<typename Cfg::Manager>(Cfg::kName, ts_gemm_kernel<Cfg>, grid, stream, p);
}

// `Kernel` (TsGemm or TsGemmPingpong with the cluster shape last) for the cluster shape
// tuning.cluster_m x tuning.cluster_n (gemm.cpp checked it is one of 1x1, 2x1, 1x2).
template <template <class, class, class, bool, bool, int, int> class Kernel, class TIn, class TOut,
          bool kAKMajor, bool kBKMajor>
void launch_with_cluster(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream) {
  if (tuning.cluster_m == 2) {
    launch_ts_gemm<Kernel<TIn, TIn, TOut, kAKMajor, kBKMajor, 2, 1>>(args, tuning, stream);
  } else if (tuning.cluster_n == 2) {
    launch_ts_gemm<Kernel<TIn, TIn, TOut, kAKMajor, kBKMajor, 1, 2>>(args, tuning, stream);
  } else {
    launch_ts_gemm<Kernel<TIn, TIn, TOut, kAKMajor, kBKMajor, 1, 1>>(args, tuning, stream);
  }
}

// The CuTe element type of a ScalarType (fp8: the types cute::GMMA::ss_op_selector maps to the
// fp8 wgmma).
template <ScalarType kType>
using cute_type_t = std::conditional_t<
    kType == ScalarType::F16, cute::half_t,
    std::conditional_t<kType == ScalarType::BF16, cute::bfloat16_t,
                       std::conditional_t<kType == ScalarType::E4M3, cute::float_e4m3_t,
                                          std::conditional_t<kType == ScalarType::E5M2,
                                                             cute::float_e5m2_t, float>>>>;

}  // namespace warploom::gemm::sm90
