// warploom/prepared_grouped_gemm.hpp — a grouped GEMM (gemm::grouped_gemm, warploom/gemm.hpp)
// checked and set up once, then run as often as wanted. Host code only: warploom/gemm.hpp is also
// compiled by NVRTC (the JIT's kernels), which has no <memory>.
#pragma once

#include <cstddef>
#include <memory>

#include <cuda_runtime_api.h>

#include "warploom/gemm.hpp"

namespace warploom::gemm {

// A grouped GEMM checked and set up once, then run as often as wanted (CUTLASS's initialize() and
// run()). prepare_grouped_gemm checks the groups as grouped_gemm does and has the setup kernel
// write their kernel parameters (their TMA descriptors among them) into a workspace, once; each
// run() then enqueues the grouped kernel alone, checking nothing per group: one kernel node in a
// captured CUDA graph, a few microseconds of host time eagerly. The setup kernel is a launch of
// its own that every grouped_gemm call pays (~3 us of a graph replay, H100).
//
//   gemm::PreparedGroupedGemm const moe = gemm::prepare_grouped_gemm(groups, count, stream);
//   for (int step = 0; step < steps; ++step) moe.run(stream);  // A, B, C change between runs
//
// What a run reads when it runs: the groups' tensors (their contents may change between runs;
// their addresses must not, nor may they be freed while the prepared GEMM is used), and the device
// scalars alpha_ptr, beta_ptr, scale_a and scale_b; alpha, beta and everything else are the
// prepared values. Runs of one prepared GEMM share its workspace (its kernel parameters and the
// dynamic scheduler's counter): they must not overlap — enqueue them on one stream, or order the
// streams. A captured graph that replays a run needs the prepared GEMM alive.
class PreparedGroupedGemm {
 public:
  PreparedGroupedGemm();  // runs nothing
  // Frees the workspace it allocated (cudaFree, which waits for the device's work on it).
  ~PreparedGroupedGemm();
  PreparedGroupedGemm(PreparedGroupedGemm&&) noexcept;
  PreparedGroupedGemm& operator=(PreparedGroupedGemm&&) noexcept;
  PreparedGroupedGemm(PreparedGroupedGemm const&) = delete;
  PreparedGroupedGemm& operator=(PreparedGroupedGemm const&) = delete;

  // Enqueues every group on `stream` and returns (asynchronous; capturable). Throws
  // std::invalid_argument when the current device is not the one it was prepared on.
  void run(cudaStream_t stream = nullptr) const;
  // The groups a run computes (those prepared with an empty D are not among them).
  std::size_t groups() const;
  // The launches of the grouped kernel a run makes (one per configuration among the groups; the
  // groups only the SIMT GEMM runs are one gemm() each besides).
  std::size_t grouped_launches() const;

  struct State;  // what prepare_grouped_gemm made (src/gemm/grouped_gemm.cpp)
  explicit PreparedGroupedGemm(std::unique_ptr<State> state);

 private:
  std::unique_ptr<State> state_;
};

// Checks groups[0 .. count) as grouped_gemm does (the same errors; `tuning` likewise) and writes
// their kernel parameters into the workspace with the setup kernel on `stream`, then waits for it
// (a one-time step: a capturing stream is refused by name; capture the runs). `workspace` null:
// the prepared GEMM allocates grouped_gemm_workspace_bytes(count) bytes and frees them when
// destroyed; else grouped_gemm's rules for a caller's workspace, which must then stay allocated
// and used by nothing else while the prepared GEMM is.
PreparedGroupedGemm prepare_grouped_gemm(GemmArguments const* groups, std::size_t count,
                                         cudaStream_t stream = nullptr, GemmTuning tuning = {},
                                         void* workspace = nullptr,
                                         std::size_t workspace_bytes = 0);

}  // namespace warploom::gemm
