// kernels/tutorial/07_merge_gemm.cu
//
// Tutorial 07, merge GEMM: D = relu(A . B^T) in one kernel, A through load warps' registers and
// B by TMA, one ts::Merge for both rings. The TS kernel, its resources, schedules, tasks and
// TaskManager are in merge_gemm_schedule.cuh (read it first); this file holds the argument checks
// and the host launcher, which builds B's TMA descriptor and launches the kernel with the proof
// its schedule unit gives.
#include "merge_gemm.hpp"

#include <cstdint>
#include <string>

#include "merge_gemm_schedule.cuh"
#include "tutorial/argument_check.hpp"
#include "warploom/ts/launch.hpp"

namespace warploom::tutorial {
void check_merge_gemm_args(__nv_bfloat16 const* a, int lda, __nv_bfloat16 const* b,
                           __nv_bfloat16 const* d, int m, int n, int k) {
  ArgumentCheck const check("merge_gemm");
  check.gemm_tiles(m, n, k, kMergeGemmTileM, kMergeGemmTileN, kMergeGemmTileK);
  if (lda < k)
    check.fail("`lda` = " + std::to_string(lda) + " must be at least `k` = " + std::to_string(k) +
               " (A's rows are lda elements apart and hold k)");
  if (lda % 8 != 0)
    check.fail("`lda` = " + std::to_string(lda) + " elements (" + std::to_string(2 * lda) +
               " bytes) must be a multiple of 8: the load warps read A in 16-byte vectors");
  // 32-bit tile and grid arithmetic in the kernel (A's addresses are 64-bit).
  check.elements_below_2_31("m", m, "lda", lda);
  check.elements_below_2_31("n", n, "k", k);
  check.elements_below_2_31("m", m, "n", n);
  check.device_pointers({{"a", a}, {"b", b}, {"d", d}});
  // A's footprint ends with its last row's k elements; D is written while A and B are read.
  std::uint64_t const bytes_a = std::uint64_t{2} * (static_cast<std::uint64_t>(m - 1) * lda + k);
  std::uint64_t const bytes_b = std::uint64_t{2} * n * k, bytes_d = std::uint64_t{2} * m * n;
  if (overlap(d, bytes_d, a, bytes_a) || overlap(d, bytes_d, b, bytes_b))
    check.fail("`d` must share no byte with `a` or `b`");
}

void merge_gemm(__nv_bfloat16 const* a, int lda, __nv_bfloat16 const* b, __nv_bfloat16* d, int m,
                int n, int k, cudaStream_t stream) {
  using Cfg = TutorialMergeGemm;
  using Bf16 = Cfg::Bf16;
  check_merge_gemm_args(a, lda, b, d, m, n, k);
  typename Cfg::Params const p{
      .a = reinterpret_cast<Bf16 const*>(a),
      .lda = lda,
      .tma_b = Cfg::make_tma_load_b(reinterpret_cast<Bf16 const*>(b), n, k),
      .d = d,
      .m = m,
      .n = n,
      .k = k};
  // One CTA per tile of D, n fastest (k_major::OutputTile::of_cta).
  dim3 const grid((m / Cfg::kTileM) * (n / Cfg::kTileN));
  ts::launch<Cfg::Manager>(ts::verified<Cfg>(), merge_gemm_ts_kernel<Cfg>, grid, stream, p);
}

ts::ManagerModel merge_gemm_model() {
  return TutorialMergeGemm::Manager::model(TutorialMergeGemm::kName);
}

}  // namespace warploom::tutorial
