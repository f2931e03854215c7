// kernels/plans.cpp
#include "plans.hpp"

#include "tutorial/copy_plans.hpp"

namespace warploom {

std::vector<harness::PlanFamily> const& bench_families() {
  static std::vector<harness::PlanFamily> const families{tutorial::copy_plan_family()};
  return families;
}

}  // namespace warploom
