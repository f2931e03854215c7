// warploom/ts/compile_time_check.hpp
//
// The compile-time gate: a TaskManager that violates a rule does not compile. The schedules are
// captured, checked and model-checked (within a state budget) in a constant expression; on a
// violation the evaluation calls
// a non-constexpr function named after the rule, so the compiler's error names it, e.g.
//
//   error: static assertion expression is not an integral constant expression
//   note: non-constexpr function 'R_D2_all_warps_of_a_warpgroup_need_the_same_num_registers'
//
// `warploom verify` and ts::TaskManager::verify() print the full finding with task, resource, op
// and fix.
#pragma once

#include "warploom/ts/describe.hpp"
#include "warploom/ts/verify/verify.hpp"

namespace warploom::ts {

namespace violation {
// Never called at run time; only named in compile errors. Defined so that a stray run-time call
// links.
inline void R_A10_one_work_tile_loop_at_the_top_over_a_work_queue_in_src() {}
inline void R_A11_the_skip_predicate_belongs_to_the_loops_queue() {}
inline void R_A13_skippable_needs_a_skip_predicate_no_nesting_no_queue_ops() {}
inline void R_B3_domain_loop_step_must_not_be_zero() {}
inline void R_B4_a_task_takes_tiles_from_at_most_one_work_queue() {}
inline void R_B6_iteration_blocks_belong_inside_their_loop() {}
inline void R_B7_num_registers_must_be_a_multiple_of_8_in_24_to_256() {}
inline void R_D1_a_consumer_takes_more_or_fewer_stages_than_are_filled() {}
inline void R_D2_all_warps_of_a_warpgroup_need_the_same_num_registers() {}
inline void R_D23_a_value_is_read_before_the_work_producing_it_ran() {}
inline void R_D3_register_budgets_exceed_the_register_file() {}
inline void R_D5_op_on_the_wrong_side_of_a_resource() {}
inline void R_D6_dependency_edge_not_realised_by_any_task() {}
inline void R_D8_task_resource_missing_from_the_dependency_graph() {}
inline void R_D9_declared_resource_unused_by_the_schedule() {}
inline void R_D10_work_outside_its_acquire_commit_or_wait_release_bracket() {}
inline void R_D11_try_op_not_followed_by_its_blocking_op() {}
inline void R_D12_queue_op_misplaced_or_tasks_not_all_persistent() {}
inline void R_D15_pipeline_group_size_does_not_match_the_arriving_tasks() {}
inline void R_D20_work_call_names_no_declared_work() {}
inline void R_D21_shared_memory_layout_exceeds_capacity() {}
inline void R_D7_work_on_the_previous_grids_data_before_waiting_for_it() {}
inline void R_W1_task_warp_ranges_overlap() {}
inline void R_W2_task_warp_range_outside_the_block() {}
inline void R_W3_a_warpgroup_below_the_highest_task_holds_no_task() {}
inline void R_D16_tma_bytes_differ_from_the_stage_buffer() {}
inline void R_D13_stage_released_while_its_asynchronous_reads_are_in_flight() {}
inline void R_D22_multicast_pipeline_without_a_tma_producer_or_cluster_too_large() {}
inline void R_D24_pipeline_op_count_depends_on_the_thread_index() {}
inline void R_D25_release_a_merge_member_or_commit_a_fork_member_through_its_group() {}
inline void R_M1_deadlock() {}
inline void R_M2_a_barrier_phase_is_left_incomplete_at_exit() {}
inline void R_M3_stage_accessed_without_owning_it() {}
inline void R_M4_stage_written_while_read() {}
inline void R_M5_producer_laps_consumer_or_wait_passes_early() {}
inline void R_M6_more_arrivals_than_the_phase_expects() {}
inline void R_M7_model_check_undecided_within_its_state_budget() {}
}  // namespace violation

constexpr void fail_at_compile_time(Rule r) {
  switch (r) {
    case Rule::A10_TileLoop:
      violation::R_A10_one_work_tile_loop_at_the_top_over_a_work_queue_in_src();
      break;
    case Rule::A11_SkipOwner:
      violation::R_A11_the_skip_predicate_belongs_to_the_loops_queue();
      break;
    case Rule::A13_Skippable:
      violation::R_A13_skippable_needs_a_skip_predicate_no_nesting_no_queue_ops();
      break;
    case Rule::B3_LoopStep:
      violation::R_B3_domain_loop_step_must_not_be_zero();
      break;
    case Rule::B4_WorkQueue:
      violation::R_B4_a_task_takes_tiles_from_at_most_one_work_queue();
      break;
    case Rule::B6_BlockStructure:
      violation::R_B6_iteration_blocks_belong_inside_their_loop();
      break;
    case Rule::B7_RegisterValue:
      violation::R_B7_num_registers_must_be_a_multiple_of_8_in_24_to_256();
      break;
    case Rule::D1_FillsTaken:
      violation::R_D1_a_consumer_takes_more_or_fewer_stages_than_are_filled();
      break;
    case Rule::D2_WarpGroupRegisters:
      violation::R_D2_all_warps_of_a_warpgroup_need_the_same_num_registers();
      break;
    case Rule::D3_RegisterBudget:
      violation::R_D3_register_budgets_exceed_the_register_file();
      break;
    case Rule::D5_StageRoles:
      violation::R_D5_op_on_the_wrong_side_of_a_resource();
      break;
    case Rule::D6_GraphRealizable:
      violation::R_D6_dependency_edge_not_realised_by_any_task();
      break;
    case Rule::D7_PdlWaitOrder:
      violation::R_D7_work_on_the_previous_grids_data_before_waiting_for_it();
      break;
    case Rule::D8_GraphCoverage:
      violation::R_D8_task_resource_missing_from_the_dependency_graph();
      break;
    case Rule::D9_ScheduleCoverage:
      violation::R_D9_declared_resource_unused_by_the_schedule();
      break;
    case Rule::D10_WorkBracketing:
      violation::R_D10_work_outside_its_acquire_commit_or_wait_release_bracket();
      break;
    case Rule::D11_TryBeforeBlocking:
      violation::R_D11_try_op_not_followed_by_its_blocking_op();
      break;
    case Rule::D12_QueuePlacement:
      violation::R_D12_queue_op_misplaced_or_tasks_not_all_persistent();
      break;
    case Rule::D15_ArrivalCounts:
      violation::R_D15_pipeline_group_size_does_not_match_the_arriving_tasks();
      break;
    case Rule::D24_DivergentCount:
      violation::R_D24_pipeline_op_count_depends_on_the_thread_index();
      break;
    case Rule::D25_GroupOps:
      violation::R_D25_release_a_merge_member_or_commit_a_fork_member_through_its_group();
      break;
    case Rule::D20_WorkLabels:
      violation::R_D20_work_call_names_no_declared_work();
      break;
    case Rule::D21_SmemCapacity:
      violation::R_D21_shared_memory_layout_exceeds_capacity();
      break;
    case Rule::D22_Multicast:
      violation::R_D22_multicast_pipeline_without_a_tma_producer_or_cluster_too_large();
      break;
    case Rule::D23_ValueOrder:
      violation::R_D23_a_value_is_read_before_the_work_producing_it_ran();
      break;
    case Rule::W1_WarpOverlap:
      violation::R_W1_task_warp_ranges_overlap();
      break;
    case Rule::D13_DmaOrdering:
      violation::R_D13_stage_released_while_its_asynchronous_reads_are_in_flight();
      break;
    case Rule::D16_TmaBytes:
      violation::R_D16_tma_bytes_differ_from_the_stage_buffer();
      break;
    case Rule::M1_Deadlock:
      violation::R_M1_deadlock();
      break;
    case Rule::M2_UnbalancedExit:
      violation::R_M2_a_barrier_phase_is_left_incomplete_at_exit();
      break;
    case Rule::M3_StageOwnership:
      violation::R_M3_stage_accessed_without_owning_it();
      break;
    case Rule::M4_StageRace:
      violation::R_M4_stage_written_while_read();
      break;
    case Rule::M5_PhaseAliasing:
      violation::R_M5_producer_laps_consumer_or_wait_passes_early();
      break;
    case Rule::M6_OverArrival:
      violation::R_M6_more_arrivals_than_the_phase_expects();
      break;
    case Rule::M7_Undecided:
      violation::R_M7_model_check_undecided_within_its_state_budget();
      break;
    case Rule::W2_WarpRange:
      violation::R_W2_task_warp_range_outside_the_block();
      break;
    case Rule::W3_EmptyWarpgroup:
      violation::R_W3_a_warpgroup_below_the_highest_task_holds_no_task();
      break;
  }
}

// True when the TaskManager described by `Traits` passes every structural check; otherwise not a
// constant expression, with the first violated rule named in the compiler's note.
template <class Traits>
constexpr bool verified_at_compile_time() {
  // The compile-time model check explores the small scenarios only (run-time loops running 0, 1
  // and 2 times) within a state budget: constant evaluation is slow, so larger schedules are
  // decided by `warploom verify` (ctest warploom_verify_all). A cluster is modelled CTA by CTA
  // (one copy of the tasks per CTA, every CTA's empty barrier, remote releases), as `warploom
  // verify` does by default: a clustered schedule that deadlocks or races across CTAs does not
  // compile. The search grows persistent sets for one CTA as for a cluster (docs/verification/
  // README.md §7): every bundled manager without pipeline groups is decided within the budget, and
  // the 53 bundled schedule units compile in 960 s against 1,144 s without them (2-core build
  // machine, 2026-12-05; tools/schedule_unit_times.py).
  Report r =
      verify_manager(describe<Traits>(),
                     compile_time_check_options(Traits::options.compile_time_model_check_states));
  if (!r.ok()) fail_at_compile_time(r.violations.front().rule);
  return true;
}

}  // namespace warploom::ts
