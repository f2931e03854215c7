// bench/group_plans.hpp
//
// Tutorial 07's elementwise pipeline-group kernels for the benchmark harness (`warploom bench
// merge_add`, `fork_relu`): each TS kernel beside its hand-written baseline, and the fork beside
// the unfused pair it replaces (a copy, then a relu that reads x again). The fork with its GEMM is
// in tutorial_gemm_plans.hpp.
#pragma once

#include "warploom/harness/kernel_plan.hpp"

namespace warploom::tutorial {

// Extents: {rows, cols} of row-major fp16 matrices, cols a positive multiple of 128.
harness::PlanFamily merge_add_plan_family();
harness::PlanFamily fork_relu_plan_family();

}  // namespace warploom::tutorial
