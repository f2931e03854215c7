// bench/group_plans.hpp
//
// Tutorial 07's pipeline-group kernels for the benchmark harness (`warploom bench merge_add`,
// `warploom bench fork_relu`): each TS kernel beside its hand-written baseline, and the fork relu
// beside the unfused pair it replaces (a copy, then a relu that reads x again).
#pragma once

#include "warploom/harness/kernel_plan.hpp"

namespace warploom::tutorial {

// Extents: {rows, cols} of row-major fp16 matrices, cols a positive multiple of 128.
harness::PlanFamily merge_add_plan_family();
harness::PlanFamily fork_relu_plan_family();

}  // namespace warploom::tutorial
