// src/harness/runner.cpp
#include "warploom/harness/runner.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include <nvtx3/nvtx3.hpp>

#include "warploom/cuda_check.hpp"
#include "warploom/harness/rotation.hpp"

namespace warploom::harness {

std::string_view to_string(Regime r) {
  return r == Regime::Burst ? "burst" : "sustained";
}

CudaEventTimer::CudaEventTimer() {
  WL_CUDA_CHECK(cudaEventCreate(&start_));
  WL_CUDA_CHECK(cudaEventCreate(&stop_));
}

CudaEventTimer::~CudaEventTimer() {
  for (cudaGraphExec_t g : graphs_) cudaGraphExecDestroy(g);
  if (capture_stream_ != nullptr) cudaStreamDestroy(capture_stream_);
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

std::function<void()> CudaEventTimer::captured(std::function<void(cudaStream_t)> const& enqueue) {
  // Non-blocking: the capture must not join the legacy default stream's work, which a blocking
  // stream would (an error while capturing).
  if (capture_stream_ == nullptr)
    WL_CUDA_CHECK(cudaStreamCreateWithFlags(&capture_stream_, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  WL_CUDA_CHECK(cudaStreamBeginCapture(capture_stream_, cudaStreamCaptureModeThreadLocal));
  try {
    enqueue(capture_stream_);
  } catch (...) {
    cudaStreamEndCapture(capture_stream_, &graph);  // ends the capture; the partial graph goes
    if (graph != nullptr) cudaGraphDestroy(graph);
    throw;
  }
  WL_CUDA_CHECK(cudaStreamEndCapture(capture_stream_, &graph));
  cudaGraphExec_t exec = nullptr;
  cudaError_t const e = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  WL_CUDA_CHECK(e);
  graphs_.push_back(exec);
  return [exec] { WL_CUDA_CHECK(cudaGraphLaunch(exec, nullptr)); };
}

double CudaEventTimer::milliseconds(std::function<void()> const& launch) {
  WL_CUDA_CHECK(cudaEventRecord(start_));
  launch();
  WL_CUDA_CHECK(cudaEventRecord(stop_));
  WL_CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0;
  WL_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

double CudaEventTimer::now_seconds() {
  WL_CUDA_CHECK(cudaDeviceSynchronize());  // the runs enqueued so far count as elapsed
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace {

// An NVTX range named `name` while it lives, when `on`.
class MaybeRange {
 public:
  MaybeRange(bool on, std::string const& name) {
    if (on) range_.emplace(name);
  }

 private:
  std::optional<nvtx3::scoped_range> range_;
};

}  // namespace

std::vector<ContenderResult> run_contenders(std::vector<Contender>& contenders,
                                            RunOptions const& options, LaunchTimer& timer) {
  if (contenders.empty()) throw std::invalid_argument("contenders: nothing to measure");
  if (options.reps < 1)
    throw std::invalid_argument("reps = " + std::to_string(options.reps) + " must be at least 1");
  if (options.warmup < 0)
    throw std::invalid_argument("warmup = " + std::to_string(options.warmup) +
                                " must not be negative");
  if (options.graph_replays < 0 || options.graph_replays > 10000)
    throw std::invalid_argument("graph_replays = " + std::to_string(options.graph_replays) +
                                " must be in [0, 10000]");

  std::vector<ContenderResult> results(contenders.size());
  std::vector<int> next_set(contenders.size(), 0);
  // One launch of contender i on its next input set.
  auto const direct_launch = [&](std::size_t i) {
    Contender& c = contenders[i];
    int const set = next_set[i];
    next_set[i] = (set + 1) % results[i].input_sets;
    return std::function<void()>([&c, set] { c.plan->run(set, c.tuning, nullptr); });
  };
  // graph_replays > 0: contender i's run on input set k, captured (replays[i][k]).
  std::vector<std::vector<std::function<void()>>> replays(contenders.size());
  int const per_sample = std::max(1, options.graph_replays);
  // One timed sample of contender i: a launch on its next input set, or per_sample replays on the
  // next ones.
  auto const launch = [&](std::size_t i) {
    if (replays[i].empty()) return direct_launch(i);
    int const set = next_set[i], sets = results[i].input_sets;
    next_set[i] = (set + per_sample) % sets;
    auto const& graphs = replays[i];
    return std::function<void()>([&graphs, set, sets, per_sample] {
      for (int r = 0; r < per_sample; ++r) graphs[static_cast<std::size_t>((set + r) % sets)]();
    });
  };

  for (std::size_t i = 0; i < contenders.size(); ++i) {
    Contender& c = contenders[i];
    results[i].name = c.name;
    results[i].tuning = c.tuning;
    results[i].input_sets = plan_rotation(c.plan->bytes_per_input_set(), options.l2_bytes).sets;
    MaybeRange const phase(options.nvtx, "prepare, check, warm up " + c.name);
    c.plan->prepare(results[i].input_sets, options.seed);
    if (options.check) results[i].check = c.plan->check(c.tuning);
    for (int w = 0; w < options.warmup; ++w) timer.milliseconds(direct_launch(i));
    if (options.graph_replays > 0) {
      MaybeRange const capture(options.nvtx, "capture " + c.name);
      for (int k = 0; k < results[i].input_sets; ++k)
        replays[i].push_back(
            timer.captured([&c, k](cudaStream_t s) { c.plan->run(k, c.tuning, s); }));
      next_set[i] = 0;
    }
  }
  if (options.regime == Regime::Sustained) {
    MaybeRange const phase(options.nvtx, "sustain");
    double const until = timer.now_seconds() + options.sustain_seconds;
    while (timer.now_seconds() < until)
      for (std::size_t i = 0; i < contenders.size(); ++i) launch(i)();
  }

  // Round r starts at contender r mod n: each takes every place in the order equally often, so
  // whatever a place costs (following a given contender's power draw or L2 contents, the first
  // launch after the previous round's host work) is shared out. With a fixed order the plan API
  // measured 2 % faster than the same kernel called directly (H200, 2026-12-01).
  std::vector<std::vector<double>> ms(contenders.size());
  for (int r = 0; r < options.reps; ++r) {
    for (std::size_t k = 0; k < contenders.size(); ++k) {
      std::size_t const i = (static_cast<std::size_t>(r) + k) % contenders.size();
      MaybeRange const range(options.nvtx, contenders[i].name + " round " + std::to_string(r));
      ms[i].push_back(timer.milliseconds(launch(i)) / per_sample);
    }
  }

  for (std::size_t i = 0; i < contenders.size(); ++i) {
    results[i].milliseconds = summarize(ms[i]);
    if (options.ceilings)
      results[i].roofline = roofline(contenders[i].plan->work(),
                                     results[i].milliseconds.median * 1e-3, *options.ceilings);
  }
  return results;
}

}  // namespace warploom::harness
