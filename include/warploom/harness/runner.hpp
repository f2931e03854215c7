// warploom/harness/runner.hpp
//
// The measurement: every contender's inputs rotated through enough sets to exceed 2x L2, each
// contender checked against its reference on a poisoned output, warmed up, then timed in rounds
// in which every contender runs once, in order (interleaved, so that clock and temperature drift
// hit all alike), each run on its next input set; medians and spreads; the roofline against
// ceilings measured in the same process.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "warploom/harness/kernel_plan.hpp"
#include "warploom/harness/roofline.hpp"
#include "warploom/harness/statistics.hpp"

namespace warploom::harness {

// Burst: after a short warm-up, at whatever clock the GPU reaches. Sustained: after the
// contenders ran back to back for a while, at the clock the power cap allows (700 W on the H200).
enum class Regime { Burst, Sustained };
std::string_view to_string(Regime r);

// Times one launch. CudaEventTimer on the GPU; tests supply their own.
class LaunchTimer {
 public:
  virtual ~LaunchTimer() = default;
  // Milliseconds of what `launch` enqueues on the default stream, waited for.
  virtual double milliseconds(std::function<void()> const& launch) = 0;
  // A monotonic clock in seconds (the sustained regime's pre-run).
  virtual double now_seconds() = 0;
  // What `enqueue` puts on the stream it is given, captured once, as a function that replays it
  // on the default stream (RunOptions::graph_replays). The capture runs nothing.
  virtual std::function<void()> captured(std::function<void(cudaStream_t)> const& enqueue) = 0;
};

class CudaEventTimer final : public LaunchTimer {
 public:
  CudaEventTimer();
  ~CudaEventTimer() override;
  CudaEventTimer(CudaEventTimer const&) = delete;
  CudaEventTimer& operator=(CudaEventTimer const&) = delete;
  double milliseconds(std::function<void()> const& launch) override;
  double now_seconds() override;
  // A CUDA graph captured on a stream of the timer's own (kept, with the graph, for the timer's
  // life).
  std::function<void()> captured(std::function<void(cudaStream_t)> const& enqueue) override;

 private:
  cudaEvent_t start_{}, stop_{};
  cudaStream_t capture_stream_{};
  std::vector<cudaGraphExec_t> graphs_;
};

struct RunOptions {
  int reps = 30;   // timed rounds
  int warmup = 3;  // untimed runs per contender first
  Regime regime = Regime::Burst;
  double sustain_seconds = 5.0;  // sustained: back-to-back runs before timing
  bool check = true;
  // 0: each timed launch calls the plan (its host work counted, as a caller's would be). N > 0:
  // each contender's run on each input set is captured once as a CUDA graph (after the check and
  // warm-up), and each timed sample replays N of them back to back, per replay: the GPU's time
  // alone, each launch's latency hidden behind the one before, as in a captured training step.
  int graph_replays = 0;
  // NVTX ranges around each phase and each timed launch ("<contender> round <r>"), for Nsight
  // Systems / Compute to attribute their samples (annotation mode; no-ops without a tool).
  bool nvtx = false;
  std::size_t l2_bytes = 0;                         // for the rotation
  std::optional<Ceilings> ceilings = std::nullopt;  // for the roofline; none: no roofline
  std::uint64_t seed = 1;
};

struct Contender {
  std::string name;
  std::unique_ptr<KernelPlan> plan;
  Tuning tuning;
};

struct ContenderResult {
  std::string name;
  Tuning tuning;
  int input_sets = 0;
  std::optional<CheckResult> check;  // when RunOptions::check
  Summary milliseconds;
  std::optional<RooflinePoint> roofline;
};

// Measures `contenders` (in their order) as described at the top. Throws std::invalid_argument
// for no contenders or reps / warmup / graph_replays out of range.
std::vector<ContenderResult> run_contenders(std::vector<Contender>& contenders,
                                            RunOptions const& options, LaunchTimer& timer);

}  // namespace warploom::harness
