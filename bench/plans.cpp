// bench/plans.cpp
#include "plans.hpp"

#include "attention_plans.hpp"
#include "copy_plans.hpp"
#include "gemm_plans.hpp"
#include "group_plans.hpp"
#include "grouped_plans.hpp"
#include "tutorial_gemm_plans.hpp"

namespace warploom {

std::vector<harness::PlanFamily> const& bench_families() {
  static std::vector<harness::PlanFamily> const families{
      tutorial::copy_plan_family(),
      tutorial::merge_add_plan_family(),
      tutorial::fork_relu_plan_family(),
      tutorial::fork_gemm_relu_plan_family(),
      tutorial::merge_gemm_residual_plan_family(),
      tutorial::merge_gemm_plan_family(),
      tutorial::split_k_gemm_plan_family(),
      tutorial::pdl_gemm_chain_plan_family(),
      bench::gemm_plan_family(),
      bench::grouped_plan_family(),
      bench::attention_plan_family()};
  return families;
}

}  // namespace warploom
