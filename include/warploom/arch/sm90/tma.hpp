// warploom/arch/sm90/tma.hpp
//
// TMA (the bulk tensor copy engine): global -> shared tile loads that complete on an mbarrier,
// and shared -> global tile stores.
// PTX ISA §9.7.9.25.5.1 cp.async.bulk.tensor
// (https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor).
// The instruction comes from cuda::ptx; the descriptor prefetch from CuTe.
#pragma once

#include <cstdint>

#if !defined(__CUDACC_RTC__)
#include <cuda.h>  // CUtensorMap (NVRTC has no cuda.h)
#endif
#include <cuda/ptx>                      // cuda::ptx::cp_async_bulk_tensor
#include <cute/arch/copy_sm90_desc.hpp>  // cute::prefetch_tma_descriptor

#include "warploom/arch/sm90/mbarrier.hpp"
#include "warploom/config.hpp"

namespace warploom::sm90 {

// A TMA descriptor as kernel parameters hold it: CUtensorMap, and under NVRTC, which cannot include
// cuda.h, CuTe's 128-byte stand-in for it. CUDA 13 aligns CUtensorMap to 128 bytes, the stand-in
// to 64 (CuTe 4.2): a structure shared by both compilers aligns its descriptors itself.
using TensorMap = cute::TmaDescriptor;
static_assert(sizeof(TensorMap) == 128 && alignof(TensorMap) >= 64);

#if defined(__CUDACC__)

// Loads the box at (x, y) (x innermost) of `map` into `dst`; the transfer's bytes complete on
// `bar`. Issued by one thread.
WL_DEVICE void tma_load_2d(void* dst, TensorMap const* map, int x, int y, Mbarrier* bar) {
  std::int32_t const coords[2] = {x, y};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map,
                                  coords, bar);
}

// Stores `src` (one box) to the box at (x, y, z) of `map`, clipped to the tensor; completes in
// this thread's bulk async-group (commit with cute::tma_store_arrive, retire with
// cute::tma_store_wait). Issued by one thread after a fence.proxy.async of the box's writes.
WL_DEVICE void tma_store_3d(TensorMap const* map, void const* src, int x, int y, int z) {
  std::int32_t const coords[3] = {x, y, z};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, map, coords,
                                  src);
}

// Pulls the descriptor into the constant cache before its first use.
WL_DEVICE void tma_prefetch_descriptor(TensorMap const* map) {
  cute::prefetch_tma_descriptor(map);
}

#endif  // __CUDACC__

}  // namespace warploom::sm90
