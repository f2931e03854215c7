// kernels/tutorial/clustered_gemm.hpp
//
// Host API of tutorial 04/01 (04_clustered_gemm.cu, clustered_gemm_schedule.cuh), the seed's
// clustered GEMM with programmatic dependent launch: D = A . B^T for bf16 matrices, 2 x 1 clusters
// of CTAs sharing B's tiles by TMA multicast, the loads waiting for the previous grid on the
// stream and signalling the next.
//
// Layouts: A row-major M x K, B stored N x K row-major (both K-major: the "tn" GEMM), D row-major
// M x N. A . B^T is accumulated in fp32 and rounded to bf16 once.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "warploom/ts/model.hpp"

namespace warploom::tutorial {

// One CTA per kClusteredGemmTileM x kClusteredGemmTileN tile of D, K in steps of
// kClusteredGemmTileK, kClusteredGemmClusterM CTAs along M per cluster.
inline constexpr int kClusteredGemmTileM = 128;
inline constexpr int kClusteredGemmTileN = 128;
inline constexpr int kClusteredGemmTileK = 64;
inline constexpr int kClusteredGemmClusterM = 2;

// Throws std::invalid_argument naming the argument and the rule: m a positive multiple of 256 (a
// cluster's two tiles), n a positive multiple of 128, k a positive multiple of 64, m x k, n x k
// and m x n below 2^31, every pointer non-null and 16-byte aligned, and d sharing no byte with a
// or b.
void check_clustered_gemm_args(__nv_bfloat16 const* a, __nv_bfloat16 const* b,
                               __nv_bfloat16 const* d, int m, int n, int k);

// d = a . b^T on `stream`. With `pdl` the kernel is launched as a programmatic dependent of the
// kernel before it on the stream (cudaLaunchAttributeProgrammaticStreamSerialization): its CTAs may
// start while that kernel runs and wait for its end before reading a or b. Without, it is launched
// plainly; the kernel is the same (its wait and signal do nothing then).
void clustered_gemm(__nv_bfloat16 const* a, __nv_bfloat16 const* b, __nv_bfloat16* d, int m, int n,
                    int k, bool pdl, cudaStream_t stream = nullptr);

// The TaskManager, as the verifier sees it.
ts::ManagerModel clustered_gemm_model();
// The same schedule with 2-stage rings: small enough for the model checker to run both CTAs of a
// cluster (ModelCheckOptions::model_clusters) through a lap of the rings and beyond (3 K steps).
ts::ManagerModel clustered_gemm_two_stage_model();

}  // namespace warploom::tutorial
