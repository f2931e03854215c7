// warploom/harness/ncu.hpp
//
// `warploom bench --prof ncu`: Nsight Compute's numbers for each contender, folded into the
// table. The bench re-runs itself under `ncu` once per contender and shape, with NVTX ranges on
// (every timed launch is in a range "<contender> round <r>"), and profiles the kernels of round 0
// only; this part names the curated metrics and reads ncu's raw CSV back (no GPU needed).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warploom::harness {

// The curated metric set, as ncu names them for sm_90 (comma-joined for --metrics):
//   gpu__time_duration.sum                                         kernel time
//   sm__cycles_elapsed.max                                         kernel cycles (slowest SM)
//   sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active  tensor pipe (wgmma)
//   sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active  tensor pipe (mma.sync)
//   dram__throughput.avg.pct_of_peak_sustained_elapsed             DRAM throughput
//   sm__warps_active.avg.pct_of_peak_sustained_active              achieved occupancy
//   launch__registers_per_thread, launch__shared_mem_per_block_static,
//   launch__shared_mem_per_block_dynamic                           resources per launch
std::vector<std::string> const& ncu_metrics();

// What ncu measured for one contender: the kernels it launched in the profiled range, summed
// (time) or weighted by time (percentages); resources of its longest kernel.
struct NcuSummary {
  int kernels = 0;
  std::string longest_kernel;  // its name as ncu printed it
  double duration_us = 0;      // all kernels
  // Cycles of all kernels (each kernel's slowest SM), and the SM clock they imply: ncu locks the
  // clocks, yet one kernel profiled twice can differ in time (docs/harness.md); these say whether
  // the clock moved or the kernel did.
  double cycles = 0;
  double tensor_pipe_pct = 0;  // wgmma and mma.sync together
  double dram_throughput_pct = 0;
  double achieved_occupancy_pct = 0;
  int registers_per_thread = 0;          // of the longest kernel
  long long shared_bytes_per_block = 0;  // static + dynamic, of the longest kernel

  // Cycles per microsecond; 0 when nothing was timed.
  double sm_clock_mhz() const { return duration_us > 0 ? cycles / duration_us : 0.0; }
};

// Reads the log of `ncu --csv --page raw --print-units base --metrics <ncu_metrics()>`: lines
// before the CSV header (program output, ==PROF== notes) are skipped; a units row is honoured
// for times (ns, us, ms, s). Missing metrics count as 0. nullopt when no kernel was profiled.
// Throws std::invalid_argument when a data row's width differs from the header's.
std::optional<NcuSummary> summarize_ncu_csv(std::string_view log);

// One CSV line split into fields (RFC 4180 quoting).
std::vector<std::string> split_csv_line(std::string_view line);

}  // namespace warploom::harness
