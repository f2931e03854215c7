// warploom/ts/verify/structural.hpp
//
// All structural checks of a TaskManager, run before its kernel can launch. Each check adds its
// findings to one ts::Report; none stops the others, so one run shows every problem.
#pragma once

#include "warploom/ts/model.hpp"
#include "warploom/ts/verify/arrivals.hpp"
#include "warploom/ts/verify/bracketing.hpp"
#include "warploom/ts/verify/diagnostic.hpp"
#include "warploom/ts/verify/graph.hpp"
#include "warploom/ts/verify/pdl.hpp"
#include "warploom/ts/verify/schedule_rules.hpp"
#include "warploom/ts/verify/smem.hpp"
#include "warploom/ts/verify/warps.hpp"
#include "warploom/ts/verify/work_queue.hpp"

namespace warploom::ts {

constexpr Report verify_structure(ManagerModel const& m) {
  Report r;
  verify::check_warp_ranges(m, r);
  verify::check_registers(m, r);
  verify::check_schedule_structure(m, r);
  verify::check_work_queues(m, r);
  verify::check_stage_roles(m, r);
  verify::check_group_ops(m, r);
  verify::check_divergent_counts(m, r);
  verify::check_dependency_graph(m, r);
  verify::check_pdl_wait_order(m, r);
  verify::check_bracketing(m, r);
  verify::check_arrival_counts(m, r);
  verify::check_smem_capacity(m, r);
  verify::check_tma_bytes(m, r);
  return r;
}

}  // namespace warploom::ts
