// bench/group_plans.hpp
//
// Tutorial 07's pipeline-group kernels for the benchmark harness (`warploom bench merge_add`,
// `fork_relu`, `fork_gemm_relu`): each TS kernel beside its hand-written baseline, and each fork
// beside the unfused pair it replaces (a copy or a GEMM, then a relu that reads x again).
#pragma once

#include "warploom/harness/kernel_plan.hpp"

namespace warploom::tutorial {

// Extents: {rows, cols} of row-major fp16 matrices, cols a positive multiple of 128.
harness::PlanFamily merge_add_plan_family();
harness::PlanFamily fork_relu_plan_family();
// Extents: {m, n, k}, m and n multiples of 128, k of 64 (the fork GEMM's tile).
harness::PlanFamily fork_gemm_relu_plan_family();

}  // namespace warploom::tutorial
