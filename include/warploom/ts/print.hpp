// warploom/ts/print.hpp
//
// The schedule table: what a kernel author reads to see what TS will run. Lists resources and
// their pipelines, the dependency graph, the tasks on their warps, each task's schedule tree with
// its data-flow values, the shared-memory layout, and the verifier's findings.
//
//   task load            warp 4      regs 40   src input_gmem   dst smem
//     smem.init_load_state                      [producer aux]
//     for [0, dyn) step 1
//       %3 = input_gmem.compute_coords()        [consumer]
//       smem.acquire()
//       smem.tma_load(%3)                       [producer]
//       smem.commit()
#pragma once

#include <cstdio>
#include <string>

#include "warploom/ts/model.hpp"
#include "warploom/ts/verify/diagnostic.hpp"

namespace warploom::ts {

// The whole schedule table of a TaskManager, with the verifier's findings when `report` is given.
// (Defined in src/ts/print.cpp: host-only, so kernels' translation units stay free of fmt.)
std::string schedule_table(ManagerModel const& m, Report const* report = nullptr);

// The seed's print_and_verify: runs the structural checks, prints the schedule table with the
// verdict to `out`, and returns whether the TaskManager passed.
bool print_and_verify(ManagerModel const& m, std::FILE* out = stdout);

}  // namespace warploom::ts
