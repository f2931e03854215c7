// warploom/ts/device/grid_dependency.hpp
//
// The device side of a programmatic dependent launch (ts::StreamOrder::Programmatic, launch.hpp):
// the kernel before signals that the next may start, the next waits for its results. Both are
// no-ops for a kernel launched without the attribute (PTX ISA: griddepcontrol), so a kernel can
// call them whichever way it was launched.
#pragma once

#include "warploom/config.hpp"

namespace warploom::ts {

// Blocks until the grid this one depends on has completed and its memory operations are visible
// (returns at once when there is none). Call it before the first read of what that grid writes.
WL_DEVICE void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets the grid launched after this one programmatically start its CTAs (they still wait for this
// grid's completion in wait_for_prior_grid before reading its results).
WL_DEVICE void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

}  // namespace warploom::ts
