// kernels/tutorial/06_split_k_gemm.cu
//
// Tutorial 06, split-K over distributed shared memory: D = A . B^T with each output tile computed
// by a cluster of split_k CTAs along K and their partial tiles summed through DSMEM. The TS
// kernel, its resources, schedules, tasks and TaskManager are in split_k_gemm_schedule.cuh (read
// it first); this file holds the argument checks and the host launcher, which builds the TMA
// descriptors and launches the clusters with the proof the schedule unit gives.
#include "split_k_gemm.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

#include "split_k_gemm_schedule.cuh"
#include "tutorial/argument_check.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/ts/launch.hpp"

namespace warploom::tutorial {
void check_split_k_gemm_args(__nv_bfloat16 const* a, __nv_bfloat16 const* b, __nv_bfloat16 const* d,
                             int m, int n, int k, int split_k) {
  ArgumentCheck const check("split_k_gemm");
  // First: k's rule depends on it.
  if (split_k != 1 && split_k != 2 && split_k != 4 && split_k != 8)
    check.fail("`split_k` = " + std::to_string(split_k) +
               " must be 1, 2, 4 or 8 (the CTAs of a cluster, each reducing 128 / split_k rows)");
  check.positive_multiple("m", m, kSplitKGemmTileM, "the tile height");
  check.positive_multiple("n", n, kSplitKGemmTileN, "the tile width");
  check.positive_multiple("k", k, split_k * kSplitKGemmTileK,
                          "`split_k` x 64: each CTA's K slice is whole K steps");
  // N's tiles are the grid's y, which has at most 65535 blocks.
  if (n / kSplitKGemmTileN > 65535)
    check.fail("`n` = " + std::to_string(n) + " exceeds 65535 tiles of " +
               std::to_string(kSplitKGemmTileN) + " (the grid's y dimension)");
  check.gemm_elements_below_2_31(m, n, k);
  check.device_pointers({{"a", a}, {"b", b}, {"d", d}});
  std::uint64_t const bytes_a = std::uint64_t{2} * m * k, bytes_b = std::uint64_t{2} * n * k;
  std::uint64_t const bytes_d = std::uint64_t{2} * m * n;
  if (overlap(d, bytes_d, a, bytes_a) || overlap(d, bytes_d, b, bytes_b))
    check.fail("`d` must share no byte with `a` or `b`");
}

void split_k_gemm(__nv_bfloat16 const* a, __nv_bfloat16 const* b, __nv_bfloat16* d, int m, int n,
                  int k, int split_k, cudaStream_t stream, SplitKHandshake handshake) {
  using Cfg = TutorialSplitKGemm;
  using Manager = Cfg::Manager;
  using Bf16 = Cfg::Bf16;
  check_split_k_gemm_args(a, b, d, m, n, k, split_k);
  typename Cfg::Params const p{
      .tma_a =
          Cfg::make_tma_load<Cfg::kTileM, Cfg::SmemLayoutA>(reinterpret_cast<Bf16 const*>(a), m, k),
      .tma_b =
          Cfg::make_tma_load<Cfg::kTileN, Cfg::SmemLayoutB>(reinterpret_cast<Bf16 const*>(b), n, k),
      .d = d,
      .m = m,
      .n = n,
      .k = k,
      .split_k = split_k,
      .handshake_threads = handshake == SplitKHandshake::kEveryThread ? Cfg::kMmaThreads : 1};

  // The proof that the schedule unit verified this schedule (it does not link without one).
  // ts::launch cannot take it here: it launches clusters along x, of the TaskManager's own
  // cluster_size (its multicast width, 1: the pipelines are CTA-local). This cluster is the
  // epilogue's and spans z, so the launch is written out: the same opt-in into dynamic shared
  // memory, then cudaLaunchKernelEx with the cluster dimension.
  [[maybe_unused]] ts::Verified<Cfg> const proof = ts::verified<Cfg>();
  auto* const kernel = split_k_gemm_ts_kernel<Cfg>;
  ts::detail::allow_dynamic_smem<Manager>(kernel);  // once per kernel and device, as ts::launch

  // One cluster per tile of D: x along M, y along N, the split_k CTAs of the cluster along z.
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim = {1, 1, static_cast<unsigned>(split_k)};
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(m / Cfg::kTileM),
                        static_cast<unsigned>(n / Cfg::kTileN), static_cast<unsigned>(split_k));
  config.blockDim = dim3(Manager::num_threads);
  config.dynamicSmemBytes = static_cast<std::size_t>(Manager::smem_bytes);
  config.stream = stream;
  config.attrs = &cluster;
  config.numAttrs = 1;
  WL_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, p));
  WL_CUDA_CHECK(cudaGetLastError());
}

ts::ManagerModel split_k_gemm_model() {
  return TutorialSplitKGemm::Manager::model(TutorialSplitKGemm::kName);
}

}  // namespace warploom::tutorial
