// warploom/arch/sm90/setmaxnreg.hpp
//
// setmaxnreg: moves registers between the warpgroups of a CTA (sm_90a).
// PTX ISA §9.7.19.5
// (https://docs.nvidia.com/cuda/parallel-thread-execution/#miscellaneous-instructions-setmaxnreg).
// cuda::ptx (CCCL 3.0) has no wrapper yet, so this forwards to CUTLASS's reg_reconfig.h.
// The instruction is warpgroup-wide: all four warps of a group must execute it with the same value,
// which is what the TS rule R-D2 (warp-group registers) guarantees for task code.
#pragma once

#include <cutlass/arch/reg_reconfig.h>  // warpgroup_reg_alloc, warpgroup_reg_dealloc

#include "warploom/config.hpp"

namespace warploom::sm90 {

#if defined(__CUDACC__)

// Sets this warpgroup's per-thread register count to `kRegisters`, raising it when the kernel was
// entered with fewer and lowering it otherwise. `kEntryRegisters` is the count the kernel was
// launched with (its __launch_bounds__ cap).
template <int kRegisters, int kEntryRegisters>
WL_DEVICE void set_max_registers() {
  static_assert(kRegisters % 8 == 0 && kRegisters >= 24 && kRegisters <= 256,
                "setmaxnreg takes a multiple of 8 in [24, 256]");
  if constexpr (kRegisters > kEntryRegisters) {
    cutlass::arch::warpgroup_reg_alloc<kRegisters>();
  } else if constexpr (kRegisters < kEntryRegisters) {
    cutlass::arch::warpgroup_reg_dealloc<kRegisters>();
  }
}

#endif  // __CUDACC__

}  // namespace warploom::sm90
