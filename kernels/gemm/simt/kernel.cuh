// kernels/gemm/simt/kernel.cuh
//
// One SIMT TS GEMM instance — the schedule (schedule.hpp) of the shape its accumulator runs
// (shape.hpp: DefaultShape) with the works of one type pair (config.cuh, works.cuh) — as a kernel
// and its host launcher: operand views and the tile raster from GemmArguments (already checked and
// resolved by src/gemm), the persistent grid, and the launch with the proof that the schedule was
// verified when it was built (ts::verified<Schedule>: no check at run time, and none in this
// translation unit).
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "gemm/simt/config.cuh"
#include "gemm/simt/instances.hpp"
#include "gemm/simt/schedule.hpp"
#include "gemm/simt/schedule_only.hpp"
#include "gemm/simt/shape.hpp"
#include "gemm/simt/works.cuh"
#include "gemm/tile_raster.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/gemm.hpp"
#include "warploom/ts/launch.hpp"
#include "warploom/ts/schedule_unit.hpp"

namespace warploom::gemm::simt {

// TIn x TIn -> TOut on the default shape of its accumulator.
template <class TIn, class TOut>
struct Instance {
  using Shape = DefaultShape<sizeof(AccumulatorOf<TIn>)>;
  using Schedule = simt::Schedule<Shape, ScheduleOnly>;  // what the schedule unit verified
  using Cfg = GemmConfig<TIn, TOut, Shape>;
  using Kernel = simt::Schedule<Shape, Works<Cfg>>;
  using Manager = typename Kernel::Manager;
  using Params = typename Cfg::Params;
};

template <class I>
__global__ void __launch_bounds__(I::Manager::num_threads, 1)
    simt_gemm_kernel(__grid_constant__ typename I::Params const p) {
  extern __shared__ __align__(128) char smem[];
  I::Kernel::run(p, smem);
}

// An operand as the load task's (rows, K) view: A (M x K) is K-contiguous when row-major, B (K x N)
// when column-major (`k_layout`).
template <class T>
Operand<T> operand_view(Matrix const& x, int rows, MatrixLayout k_layout) {
  bool const k_contiguous = x.layout == k_layout;
  return {.data = static_cast<T const*>(x.data),
          .stride_rows = k_contiguous ? x.ld : 1,
          .stride_k = k_contiguous ? 1 : x.ld,
          .stride_batch = x.batch_stride,
          .rows = rows,
          .k_contiguous = k_contiguous};
}

// The fused epilogue of resolved, row-major-D arguments, for the kernel.
inline EpilogueMatrix epilogue_matrix(Matrix const& x) {
  bool const row_major = x.layout == MatrixLayout::RowMajor;
  return {x.data, row_major ? x.ld : 1, row_major ? 1 : x.ld, x.batch_stride};
}
inline FusedEpilogue fused_epilogue(GemmArguments const& args) {
  GemmEpilogue const& e = args.epilogue;
  FusedEpilogue f{.activation = e.activation,
                  .slope = e.leaky_slope,
                  .bias = e.bias,
                  .bias_fp32 = e.bias_type == ScalarType::F32,
                  .bias_per_row = e.bias_broadcast == Broadcast::PerRow,
                  .row_scale = e.row_scale,
                  .col_scale = e.col_scale,
                  .residual = epilogue_matrix(e.residual),
                  .pre_activation = epilogue_matrix(e.pre_activation)};
  f.finish = e.activation != Activation::Identity || e.residual.data != nullptr ||
             e.pre_activation.data != nullptr;
  f.fused = f.finish || e.bias != nullptr || e.row_scale != nullptr || e.col_scale != nullptr;
  return f;
}

// `args` has its leading dimensions and batch strides resolved and row-major C and D (gemm.cpp's
// normalisation, the epilogue transposed with D); the types are the instance's.
template <class I>
void launch_simt_gemm(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream) {
  using Cfg = typename I::Cfg;
  using Params = typename I::Params;
  using TAcc = typename Cfg::TAcc;
  Params p{};
  p.a = operand_view<typename Cfg::TIn>(args.a, args.m, MatrixLayout::RowMajor);
  p.b = operand_view<typename Cfg::TIn>(args.b, args.n, MatrixLayout::ColMajor);
  p.c = static_cast<typename Cfg::TOut const*>(args.c.data);
  p.ldc = args.c.ld;
  p.batch_stride_c = args.c.batch_stride;
  p.d = static_cast<typename Cfg::TOut*>(args.d);
  p.ldd = args.ldd;
  p.batch_stride_d = args.batch_stride_d;
  p.m = args.m;
  p.n = args.n;
  p.k = args.k;
  p.alpha = static_cast<TAcc>(args.alpha);
  p.beta = static_cast<TAcc>(args.beta);
  p.alpha_ptr = args.alpha_ptr;
  p.beta_ptr = args.beta_ptr;
  p.scale_a = args.scale_a;
  p.scale_b = args.scale_b;
  p.epilogue = fused_epilogue(args);
  std::int64_t const tiles_m = (std::int64_t{args.m} + Cfg::kTileM - 1) / Cfg::kTileM;
  std::int64_t const tiles_n = (std::int64_t{args.n} + Cfg::kTileN - 1) / Cfg::kTileN;
  std::int64_t const num_tiles = tiles_m * tiles_n * args.batch;
  if (num_tiles > INT_MAX)
    throw std::invalid_argument("gemm: m x n x batch = " + std::to_string(num_tiles) +
                                " tiles of " + std::to_string(Cfg::kTileM) + " x " +
                                std::to_string(Cfg::kTileN) +
                                " exceed the 32-bit tile index of the SIMT GEMM");
  p.raster = TileRaster{.tiles_m = static_cast<int>(tiles_m),
                        .tiles_n = static_cast<int>(tiles_n),
                        .panel = std::max(1, tuning.raster_panel)};
  p.num_tiles = static_cast<int>(num_tiles);
  // Rounded up in 64 bits, so that no K overflows it (gemm.cpp caps K at kMaxExtent; before that
  // cap, a K within a K tile of 2^31 overflowed here and the loop ran no K tile at all).
  p.k_tiles = static_cast<int>((std::int64_t{args.k} + Cfg::kTileK - 1) / Cfg::kTileK);

  // Persistent grid: as many CTAs as fit on the device at once (one per SM in practice: the
  // math threads' registers fill the register file), capped by the tile count and max_ctas.
  using Manager = typename I::Manager;
  auto const kernel = simt_gemm_kernel<I>;
  int device = 0, sms = 0, per_sm = 0;
  WL_CUDA_CHECK(cudaGetDevice(&device));
  WL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  WL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(Manager::smem_bytes)));
  WL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, kernel, Manager::num_threads, static_cast<std::size_t>(Manager::smem_bytes)));
  int resident = sms * std::max(per_sm, 1);
  if (tuning.max_ctas > 0) resident = std::min(resident, tuning.max_ctas);
  dim3 const grid(static_cast<unsigned>(std::min(p.num_tiles, resident)));
  ts::launch<Manager>(ts::verified<typename I::Schedule>(), kernel, grid, stream, p);
}

}  // namespace warploom::gemm::simt
