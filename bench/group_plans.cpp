// bench/group_plans.cpp
#include "group_plans.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cuda_fp16.h>

#include "half_relu.hpp"
#include "tutorial/fork_relu.hpp"
#include "tutorial/merge_add.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::tutorial {
namespace {

namespace wt = warploom::testing;
using harness::CheckResult;

// The matrices one run reads and writes, and how to launch it on them.
using Launch = std::function<void(std::vector<__half const*> const& inputs,
                                  std::vector<__half*> const& outputs, int rows, int cols,
                                  cudaStream_t stream)>;
// The outputs the host expects from the inputs, bitwise.
using Reference =
    std::function<std::vector<std::vector<__half>>(std::vector<std::vector<__half>> const&)>;

// An elementwise problem over rows x cols fp16 matrices: `inputs` read, `outputs` written, each
// once (the work's bytes, whatever a contender moves).
struct Elementwise {
  int inputs = 1;
  int outputs = 1;
  Reference reference;
};

class ElementwisePlan final : public harness::KernelPlan {
 public:
  ElementwisePlan(Elementwise problem, Launch launch, int rows, int cols)
      : problem_(std::move(problem)), launch_(std::move(launch)), rows_(rows), cols_(cols) {}

  harness::Work work() const override {
    return {.flops = 0, .bytes = static_cast<double>(matrices()) * matrix_bytes()};
  }
  std::size_t bytes_per_input_set() const override { return matrices() * matrix_bytes(); }

  // Values uniform in [-1, 1) (random bits would be NaNs): the sum of two is exact in float, so
  // the host's once-rounded sum is what __hadd2 computes and the check is bitwise.
  void prepare(int input_sets, std::uint64_t seed) override {
    sets_.clear();
    for (int s = 0; s < input_sets; ++s) {
      std::vector<wt::DeviceBuffer> set;
      for (int i = 0; i < matrices(); ++i) {
        set.emplace_back(matrix_bytes());
        if (i < problem_.inputs)
          wt::fill_uniform(set.back().as<__half>(), elements(), seed + 16 * s + i);
      }
      sets_.push_back(std::move(set));
    }
  }

  void run(int input_set, harness::Tuning const&, cudaStream_t stream) override {
    std::vector<wt::DeviceBuffer> const& set = sets_.at(input_set);
    std::vector<__half const*> inputs;
    std::vector<__half*> outputs;
    for (int i = 0; i < matrices(); ++i) {
      if (i < problem_.inputs)
        inputs.push_back(set[i].as<__half const>());
      else
        outputs.push_back(set[i].as<__half>());
    }
    launch_(inputs, outputs, rows_, cols_, stream);
  }

  CheckResult check(harness::Tuning const& tuning) override {
    std::vector<wt::DeviceBuffer> const& set = sets_.at(0);
    for (int o = 0; o < problem_.outputs; ++o)
      wt::poison(set[problem_.inputs + o].get(), matrix_bytes());
    run(0, tuning, nullptr);
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::vector<__half>> inputs;
    for (int i = 0; i < problem_.inputs; ++i) inputs.push_back(download(set[i]));
    std::vector<std::vector<__half>> const want = problem_.reference(inputs);
    for (int o = 0; o < problem_.outputs; ++o) {
      std::vector<__half> const got = download(set[problem_.inputs + o]);
      for (std::size_t e = 0; e < got.size(); ++e) {
        if (__half_as_ushort(got[e]) != __half_as_ushort(want[o][e]))
          return {false, "output " + std::to_string(o) + " differs at row " +
                             std::to_string(e / cols_) + " col " + std::to_string(e % cols_)};
      }
    }
    return {true, std::to_string(problem_.outputs) + " outputs of " + std::to_string(elements()) +
                      " halves bitwise equal"};
  }

 private:
  int matrices() const { return problem_.inputs + problem_.outputs; }
  std::size_t elements() const { return static_cast<std::size_t>(rows_) * cols_; }
  std::size_t matrix_bytes() const { return elements() * sizeof(__half); }
  std::vector<__half> download(wt::DeviceBuffer const& b) const {
    std::vector<__half> h(elements());
    WL_CUDA_CHECK(cudaMemcpy(h.data(), b.get(), matrix_bytes(), cudaMemcpyDeviceToHost));
    return h;
  }

  Elementwise problem_;
  Launch launch_;
  int rows_, cols_;
  std::vector<std::vector<wt::DeviceBuffer>> sets_;
};

// rows x cols from the problem; each kernel's own check (the tile width, 2^31 elements) follows at
// its launch, the first of which is the check's.
std::pair<int, int> checked_shape(harness::Problem const& p) {
  if (p.extents.size() != 2)
    throw std::invalid_argument("a problem is two extents, rows x cols (e.g. 8192x8192)");
  for (std::int64_t e : p.extents)
    if (e <= 0 || e > (std::int64_t{1} << 31) - 1)
      throw std::invalid_argument("rows and cols must be in [1, 2^31), got " + std::to_string(e));
  return {static_cast<int>(p.extents[0]), static_cast<int>(p.extents[1])};
}

harness::PlanProvider provider(std::string name, std::string description, Elementwise problem,
                               Launch launch) {
  return {std::move(name), std::move(description),
          [problem = std::move(problem), launch = std::move(launch)](harness::Problem const& p) {
            auto const [rows, cols] = checked_shape(p);
            return std::make_unique<ElementwisePlan>(problem, launch, rows, cols);
          }};
}

Elementwise merge_add_problem() {
  return {2, 1, [](std::vector<std::vector<__half>> const& in) {
            std::vector<__half> d(in[0].size());
            for (std::size_t e = 0; e < d.size(); ++e)
              d[e] = __float2half(__half2float(in[0][e]) + __half2float(in[1][e]));
            return std::vector<std::vector<__half>>{std::move(d)};
          }};
}

Elementwise fork_relu_problem() {
  return {1, 2, [](std::vector<std::vector<__half>> const& in) {
            std::vector<__half> r(in[0].size());
            for (std::size_t e = 0; e < r.size(); ++e) {
              float const x = __half2float(in[0][e]);
              r[e] = __float2half(x > 0.0f ? x : 0.0f);
            }
            return std::vector<std::vector<__half>>{in[0], std::move(r)};
          }};
}

Launch merge_add_launch(Implementation impl) {
  return [impl](std::vector<__half const*> const& in, std::vector<__half*> const& out, int rows,
                int cols,
                cudaStream_t stream) { merge_add(impl, in[0], in[1], out[0], rows, cols, stream); };
}

Launch fork_relu_launch(Implementation impl) {
  return [impl](std::vector<__half const*> const& in, std::vector<__half*> const& out, int rows,
                int cols, cudaStream_t stream) {
    fork_relu(impl, in[0], out[0], out[1], rows, cols, stream);
  };
}

}  // namespace

harness::PlanFamily merge_add_plan_family() {
  return {"merge_add",
          "tutorial 07/01: d = a + b over rows x cols fp16 matrices (a by TMA, b by a load warp, "
          "one ts::Merge release)",
          {"rows", "cols"},
          {
              provider("ts", "tutorial 07's TS kernel (ts::Merge)", merge_add_problem(),
                       merge_add_launch(Implementation::TaskScheduled)),
              provider("baseline", "the same kernel hand-written", merge_add_problem(),
                       merge_add_launch(Implementation::Baseline)),
          }};
}

harness::PlanFamily fork_relu_plan_family() {
  return {"fork_relu",
          "tutorial 07/04 without the GEMM: d = x and r = max(x, 0) over a rows x cols fp16 "
          "matrix, x read once (one TMA fill, a ts::Fork of two views)",
          {"rows", "cols"},
          {
              provider("ts", "tutorial 07's TS kernel (ts::Fork)", fork_relu_problem(),
                       fork_relu_launch(Implementation::TaskScheduled)),
              provider("baseline", "the same kernel hand-written", fork_relu_problem(),
                       fork_relu_launch(Implementation::Baseline)),
              // What the fork replaces: two kernels, each reading x.
              provider("unfused", "cudaMemcpyAsync d = x, then a relu kernel reading x again",
                       fork_relu_problem(),
                       [](std::vector<__half const*> const& in, std::vector<__half*> const& out,
                          int rows, int cols, cudaStream_t stream) {
                         std::int64_t const n = static_cast<std::int64_t>(rows) * cols;
                         WL_CUDA_CHECK(cudaMemcpyAsync(out[0], in[0], n * sizeof(__half),
                                                       cudaMemcpyDeviceToDevice, stream));
                         bench::half_relu(in[0], out[1], n, stream);
                       }),
          }};
}

}  // namespace warploom::tutorial
