// kernels/tutorial/04_clustered_gemm.cu
//
// Tutorial 04/01: the clustered GEMM with programmatic dependent launch. The TS kernel, its
// resources, schedules, tasks and TaskManager are in clustered_gemm_schedule.cuh (read it first);
// this file holds the argument checks and the host launcher, which builds the TMA descriptors and
// launches clusters of two CTAs, plainly or as a programmatic dependent, with the proof its
// schedule unit gives.
#include "clustered_gemm.hpp"

#include <cstdint>

#include "clustered_gemm_schedule.cuh"
#include "tutorial/argument_check.hpp"
#include "warploom/ts/launch.hpp"

namespace warploom::tutorial {

void check_clustered_gemm_args(__nv_bfloat16 const* a, __nv_bfloat16 const* b,
                               __nv_bfloat16 const* d, int m, int n, int k) {
  ArgumentCheck const check("clustered_gemm");
  check.positive_multiple("m", m, kClusteredGemmClusterM * kClusteredGemmTileM,
                          "a cluster's two tiles along M");
  check.positive_multiple("n", n, kClusteredGemmTileN, "the tile width");
  check.positive_multiple("k", k, kClusteredGemmTileK, "the K step");
  check.gemm_elements_below_2_31(m, n, k);
  check.device_pointers({{"a", a}, {"b", b}, {"d", d}});
  std::uint64_t const bytes_a = std::uint64_t{2} * m * k, bytes_b = std::uint64_t{2} * n * k;
  std::uint64_t const bytes_d = std::uint64_t{2} * m * n;
  // A and B may overlap (both are only read); D is written while they are read.
  if (overlap(d, bytes_d, a, bytes_a) || overlap(d, bytes_d, b, bytes_b))
    check.fail("`d` must share no byte with `a` or `b`");
}

void clustered_gemm(__nv_bfloat16 const* a, __nv_bfloat16 const* b, __nv_bfloat16* d, int m, int n,
                    int k, bool pdl, cudaStream_t stream) {
  using Cfg = TutorialClusteredGemm;
  using Bf16 = Cfg::Bf16;
  check_clustered_gemm_args(a, b, d, m, n, k);
  typename Cfg::Params const p{
      .tma_a = Cfg::make_tma_load<Cfg::kTileM, 1, Cfg::SmemLayoutA>(
          reinterpret_cast<Bf16 const*>(a), m, k),
      .tma_b = Cfg::make_tma_load<Cfg::kTileN, Cfg::kClusterM, Cfg::SmemLayoutB>(
          reinterpret_cast<Bf16 const*>(b), n, k),
      .d = d,
      .m = m,
      .n = n,
      .k = k};
  // One CTA per tile of D, in clusters of Manager::cluster_size along x (Cfg::tile_of).
  dim3 const grid((m / Cfg::kTileM) * (n / Cfg::kTileN));
  ts::launch<Cfg::Manager>(ts::verified<Cfg>(),
                           pdl ? ts::StreamOrder::Programmatic : ts::StreamOrder::Serial,
                           clustered_gemm_ts_kernel<Cfg>, grid, stream, p);
}

ts::ManagerModel clustered_gemm_model() {
  return TutorialClusteredGemm::Manager::model(TutorialClusteredGemm::kName);
}

ts::ManagerModel clustered_gemm_two_stage_model() {
  return ClusteredGemm</*stages=*/2>::Manager::model("clustered_gemm_two_stages");
}

}  // namespace warploom::tutorial
