// bench/copy_plans.hpp
//
// The copy family for the benchmark harness (`warploom bench copy`): the tutorial copies (TS and
// hand-written baseline, grid-stride and multi-stage TMA) and cudaMemcpy, all copying the same
// bytes between the same buffers.
#pragma once

#include "warploom/harness/kernel_plan.hpp"

namespace warploom::tutorial {

// Extents: {bytes}, a positive multiple of 64 KiB (the 2-D copies move rows of 32768 fp16).
harness::PlanFamily copy_plan_family();

}  // namespace warploom::tutorial
