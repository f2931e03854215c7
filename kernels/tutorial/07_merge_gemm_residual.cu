// kernels/tutorial/07_merge_gemm_residual.cu
//
// Tutorial 07, GEMM + residual: D = A . B^T + R in one kernel, through two ts::Merge groups. The
// TS kernel, its resources, schedules, tasks and TaskManager are in
// merge_gemm_residual_schedule.cuh (read it first); this file holds the argument checks and the
// host launcher, which builds the TMA descriptors and launches the kernel with the proof its
// schedule unit gives.
#include "merge_gemm_residual.hpp"

#include <cstdint>

#include "merge_gemm_residual_schedule.cuh"
#include "tutorial/argument_check.hpp"
#include "warploom/ts/launch.hpp"

namespace warploom::tutorial {
void check_merge_gemm_residual_args(__nv_bfloat16 const* a, __nv_bfloat16 const* b,
                                    __nv_bfloat16 const* r, __nv_bfloat16 const* d, int m, int n,
                                    int k) {
  ArgumentCheck const check("merge_gemm_residual");
  check.gemm_tiles(m, n, k, kMergeGemmResidualTileM, kMergeGemmResidualTileN,
                   kMergeGemmResidualTileK);
  check.gemm_elements_below_2_31(m, n, k);
  check.device_pointers({{"a", a}, {"b", b}, {"r", r}, {"d", d}});
  std::uint64_t const bytes_a = std::uint64_t{2} * m * k, bytes_b = std::uint64_t{2} * n * k;
  std::uint64_t const bytes_d = std::uint64_t{2} * m * n, bytes_r = bytes_d;
  // R may overlap A or B (all three are only read); D is written while the others are read.
  if (overlap(d, bytes_d, a, bytes_a) || overlap(d, bytes_d, b, bytes_b) ||
      overlap(d, bytes_d, r, bytes_r))
    check.fail("`d` must share no byte with `a`, `b` or `r`");
}

void merge_gemm_residual(__nv_bfloat16 const* a, __nv_bfloat16 const* b, __nv_bfloat16 const* r,
                         __nv_bfloat16* d, int m, int n, int k, cudaStream_t stream) {
  using Cfg = TutorialMergeGemmResidual;
  using Bf16 = Cfg::Bf16;
  check_merge_gemm_residual_args(a, b, r, d, m, n, k);
  typename Cfg::Params const p{
      .tma_a = Cfg::make_tma_load<Cfg::kTileM, Cfg::kTileK, Cfg::SmemLayoutA>(
          reinterpret_cast<Bf16 const*>(a), m, k),
      .tma_b = Cfg::make_tma_load<Cfg::kTileN, Cfg::kTileK, Cfg::SmemLayoutB>(
          reinterpret_cast<Bf16 const*>(b), n, k),
      .tma_r = Cfg::make_tma_load<Cfg::kTileM, Cfg::kHalfN, Cfg::SmemLayoutR>(
          reinterpret_cast<Bf16 const*>(r), m, n),
      .d = d,
      .m = m,
      .n = n,
      .k = k};
  // One CTA per tile of D, n fastest (k_major::OutputTile::of_cta).
  dim3 const grid((m / Cfg::kTileM) * (n / Cfg::kTileN));
  ts::launch<Cfg::Manager>(ts::verified<Cfg>(), merge_gemm_residual_ts_kernel<Cfg>, grid, stream,
                           p);
}

ts::ManagerModel merge_gemm_residual_model() {
  return TutorialMergeGemmResidual::Manager::model(TutorialMergeGemmResidual::kName);
}

}  // namespace warploom::tutorial
