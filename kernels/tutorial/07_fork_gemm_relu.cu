// kernels/tutorial/07_fork_gemm_relu.cu
//
// Tutorial 07, the Fork GEMM: D = A . B^T and R = max(A, 0) from one TMA read of each A tile,
// through a ts::Fork group. The TS kernel, its resources, schedules, tasks and TaskManager are in
// fork_gemm_relu_schedule.cuh (read it first); this file holds the argument checks and the host
// launcher, which builds the TMA descriptors and launches the kernel with the proof its schedule
// unit gives.
#include "fork_gemm_relu.hpp"

#include <cstdint>

#include "fork_gemm_relu_schedule.cuh"
#include "tutorial/argument_check.hpp"
#include "warploom/ts/launch.hpp"

namespace warploom::tutorial {
void check_fork_gemm_relu_args(__nv_bfloat16 const* a, __nv_bfloat16 const* b,
                               __nv_bfloat16 const* d, __nv_bfloat16 const* r, int m, int n,
                               int k) {
  ArgumentCheck const check("fork_gemm_relu");
  check.gemm_tiles(m, n, k, kForkGemmReluTileM, kForkGemmReluTileN, kForkGemmReluTileK);
  check.gemm_elements_below_2_31(m, n, k);
  check.device_pointers({{"a", a}, {"b", b}, {"d", d}, {"r", r}});
  std::uint64_t const bytes_a = std::uint64_t{2} * m * k, bytes_b = std::uint64_t{2} * n * k;
  std::uint64_t const bytes_d = std::uint64_t{2} * m * n, bytes_r = bytes_a;
  if (overlap(d, bytes_d, a, bytes_a) || overlap(d, bytes_d, b, bytes_b) ||
      overlap(d, bytes_d, r, bytes_r))
    check.fail("`d` must share no byte with `a`, `b` or `r`");
  if (overlap(r, bytes_r, a, bytes_a) || overlap(r, bytes_r, b, bytes_b))
    check.fail("`r` must share no byte with `a`, `b` or `d`");
}

void fork_gemm_relu(__nv_bfloat16 const* a, __nv_bfloat16 const* b, __nv_bfloat16* d,
                    __nv_bfloat16* r, int m, int n, int k, cudaStream_t stream) {
  using Cfg = TutorialForkGemmRelu;
  using Bf16 = Cfg::Bf16;
  check_fork_gemm_relu_args(a, b, d, r, m, n, k);
  typename Cfg::Params const p{.tma_a = Cfg::make_tma_load<Cfg::kTileM, Cfg::SmemLayoutA>(
                                   reinterpret_cast<Bf16 const*>(a), m, k),
                               .tma_b = Cfg::make_tma_load<Cfg::kTileN, Cfg::SmemLayoutB>(
                                   reinterpret_cast<Bf16 const*>(b), n, k),
                               .d = d,
                               .r = r,
                               .m = m,
                               .n = n,
                               .k = k};
  // One CTA per tile of D, n fastest (k_major::OutputTile::of_cta).
  dim3 const grid((m / Cfg::kTileM) * (n / Cfg::kTileN));
  ts::launch<Cfg::Manager>(ts::verified<Cfg>(), fork_gemm_relu_ts_kernel<Cfg>, grid, stream, p);
}

ts::ManagerModel fork_gemm_relu_model() {
  return TutorialForkGemmRelu::Manager::model(TutorialForkGemmRelu::kName);
}

}  // namespace warploom::tutorial
