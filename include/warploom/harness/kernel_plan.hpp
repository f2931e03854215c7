// warploom/harness/kernel_plan.hpp
//
// What a kernel (or a library it is compared with) implements to be measured by the harness:
// inputs for a problem, the launch, a check against a reference, the algorithmic work for the
// roofline and the tuning space. Families group the plans that solve one problem (copy, gemm),
// so that `warploom bench <family>` times them side by side.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "warploom/harness/roofline.hpp"

namespace warploom::harness {

// One problem of a family: its extents in the family's order (copy: bytes; gemm: m, n, k) and
// the family's parameters (gemm: {"dtype": "bf16", "layout": "tn"}), every one of them set.
struct Problem {
  std::vector<std::int64_t> extents;
  std::map<std::string, std::string> parameters;
};

// One point of a plan's tuning space: knob -> value ({} is the plan's default).
using Tuning = std::map<std::string, std::string>;
// "default", or "rows=128 stages=4".
std::string to_string(Tuning const& t);

struct CheckResult {
  bool ok = false;
  std::string detail;  // what differed, when !ok; what was compared, when ok
};

class KernelPlan {
 public:
  virtual ~KernelPlan() = default;
  // The problem's algorithmic work (not what the kernel happens to move).
  virtual Work work() const = 0;
  // Device bytes one input set (inputs and outputs) occupies, for the rotation.
  virtual std::size_t bytes_per_input_set() const = 0;
  // The tuning space; the first point is the default.
  virtual std::vector<Tuning> tuning_space() const { return {Tuning{}}; }
  // Allocates `input_sets` input sets and fills them with random data.
  virtual void prepare(int input_sets, std::uint64_t seed) = 0;
  // Enqueues one run on input set `input_set` (in [0, input_sets)).
  virtual void run(int input_set, Tuning const& tuning, cudaStream_t stream) = 0;
  // Poisons set 0's output, runs on it, compares with the reference.
  virtual CheckResult check(Tuning const& tuning) = 0;
};

struct PlanProvider {
  std::string name;  // unique in its family: "ts", "baseline", "cudaMemcpy", "cublas", ...
  std::string description;
  // Builds the plan; throws std::invalid_argument (naming the extent and the rule) for a problem
  // it does not run.
  std::function<std::unique_ptr<KernelPlan>(Problem const&)> make;
  // Whether a bench without --providers runs it. A provider far slower than the rest (the SIMT
  // GEMM: 25x) is run on request only: it would multiply the run's time, and its long stretches of
  // FMA heat the GPU between the others' runs.
  bool by_default = true;
  // Another library's kernel (cuBLAS, CUTLASS, ...): a contender to beat. The bench compares each
  // of ours with the best of these per shape (peer_comparison.hpp).
  bool peer = false;
};

// A parameter of a family's problems besides the extents (`warploom bench --dtype e4m3`).
struct FamilyParameter {
  std::string name;  // "dtype"
  std::string description;
  std::vector<std::string> values;  // the allowed values; the first is the default
};

// The arithmetic ceiling of the roofline, measured in the same run: a plan whose throughput
// (work().flops over its median time) is taken as the machine's, e.g. a large cuBLASLt GEMM of
// the problem's types.
struct ComputeCeiling {
  std::string description;
  // Problems with one key share a ceiling, measured once (gemm: the input type).
  std::function<std::string(Problem const&)> key;
  std::function<std::unique_ptr<KernelPlan>(Problem const&)> make;
};

struct PlanFamily {
  std::string name;  // "copy"
  std::string description;
  std::vector<std::string> extent_names;  // {"bytes"}: what --shapes gives, joined by 'x'
  std::vector<PlanProvider> providers;    // in the order they run within a repetition
  std::vector<FamilyParameter> parameters = {};
  // None: the family does no arithmetic worth a ceiling (copy); its compute side is unbounded.
  std::optional<ComputeCeiling> compute_ceiling = std::nullopt;
  // The throughput its tables show: TFLOP/s of the work (true) or GB/s of its bytes (false).
  bool report_flops = false;
};

}  // namespace warploom::harness
