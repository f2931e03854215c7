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
};

class CudaEventTimer final : public LaunchTimer {
 public:
  CudaEventTimer();
  ~CudaEventTimer() override;
  CudaEventTimer(CudaEventTimer const&) = delete;
  CudaEventTimer& operator=(CudaEventTimer const&) = delete;
  double milliseconds(std::function<void()> const& launch) override;
  double now_seconds() override;

 private:
  cudaEvent_t start_{}, stop_{};
};

struct RunOptions {
  int reps = 30;   // timed rounds
  int warmup = 3;  // untimed runs per contender first
  Regime regime = Regime::Burst;
  double sustain_seconds = 5.0;  // sustained: back-to-back runs before timing
  bool check = true;
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
// for no contenders or reps / warmup out of range.
std::vector<ContenderResult> run_contenders(std::vector<Contender>& contenders,
                                            RunOptions const& options, LaunchTimer& timer);

}  // namespace warploom::harness
