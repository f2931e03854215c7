// bench/plans.hpp
//
// The plan families warploom bundles for its benchmark harness (`warploom bench <family>`).
#pragma once

#include <vector>

#include "warploom/harness/kernel_plan.hpp"

namespace warploom {

std::vector<harness::PlanFamily> const& bench_families();

}  // namespace warploom
