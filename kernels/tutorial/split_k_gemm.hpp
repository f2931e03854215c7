// kernels/tutorial/split_k_gemm.hpp
//
// Host API of tutorial 06, split-K over distributed shared memory (06_split_k_gemm.cu,
// split_k_gemm_schedule.cuh): D = A . B^T for bf16 matrices, each output tile computed by a
// cluster of split_k CTAs along K whose fp32 partial tiles are summed through DSMEM in the
// epilogue. Built for skinny problems (M = 1024, N = 16, K up to 8192), where one CTA per output
// tile would leave most of the GPU idle and the K loop long.
//
// Layouts: A row-major M x K, B stored N x K row-major (both K-major: the "tn" GEMM), D row-major
// M x N (fp32 accumulation, rounded to bf16 once, after the cluster's sum).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "warploom/ts/model.hpp"

namespace warploom::tutorial {

// A cluster of split_k CTAs per kSplitKGemmTileM x kSplitKGemmTileN tile of D; each CTA takes
// K / split_k of K, in steps of kSplitKGemmTileK.
inline constexpr int kSplitKGemmTileM = 128;
inline constexpr int kSplitKGemmTileN = 16;
inline constexpr int kSplitKGemmTileK = 64;
inline constexpr int kSplitKGemmMaxSplit = 8;  // the portable cluster size limit

// Throws std::invalid_argument naming the argument and the rule: split_k one of 1, 2, 4, 8; m a
// positive multiple of 128; n a positive multiple of 16 of at most 65535 tiles (the grid's y); k a
// positive multiple of split_k x 64;
// m x k, n x k and m x n below 2^31; every pointer non-null and 16-byte aligned; d sharing no
// byte with a or b.
void check_split_k_gemm_args(__nv_bfloat16 const* a, __nv_bfloat16 const* b, __nv_bfloat16 const* d,
                             int m, int n, int k, int split_k);

// How the CTAs of a cluster tell each other that their partial tiles are written (the `ready`
// handshake, before the peers read them through DSMEM). Both give the same order and the same D:
//   kOnePerCta    the warpgroup meets at its barrier, then one thread arrives on every CTA's
//                 mbarrier with release at cluster scope, which is cumulative: it publishes what
//                 the whole warpgroup did before the barrier. split_k remote arrivals per CTA.
//   kEveryThread  every thread arrives on every CTA's mbarrier: 128 x split_k remote arrivals
//                 per CTA, each a GPU-scope memory barrier in SASS. compute-sanitizer's racecheck
//                 follows only this form (it does not model cumulativity through a barrier), so
//                 the tests run it to check the DSMEM exchange.
enum class SplitKHandshake { kOnePerCta, kEveryThread };

// d = a . b^T (fp32 accumulation; the split_k partial sums added in fp32 in a fixed order, so the
// result does not depend on which CTA finishes first), rounded once to bf16.
void split_k_gemm(__nv_bfloat16 const* a, __nv_bfloat16 const* b, __nv_bfloat16* d, int m, int n,
                  int k, int split_k, cudaStream_t stream = nullptr,
                  SplitKHandshake handshake = SplitKHandshake::kOnePerCta);

// The TaskManager, as the verifier sees it (one schedule for every split_k: the cluster only
// changes what the epilogue's work bodies read).
ts::ManagerModel split_k_gemm_model();

}  // namespace warploom::tutorial
