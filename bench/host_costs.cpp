// bench/host_costs.cpp
//
// What the GEMM costs the host, apart from the GPU's time (issue 13's targets in brackets):
//
//   launch   microseconds of host time per call on a compiled configuration, gemm() against
//            ops::Gemm::run() on tensor views (run() <= 3 us), the GPU kept busy so that no call
//            waits for a full launch queue
//   grouped  microseconds of host time per call of the grouped GEMM on seed 002's 50 fp16
//            problems (bench/seed_problems.hpp, every operand row-major): gemm::
//            grouped_gemm with the library's workspace and with the caller's, ops::GroupedGemm::
//            run(), a prepared one's run() (ops::GroupedGemm::prepare: set up once), its checks
//            alone (arguments(): no device), and the driver's pointer queries
//            such a call makes (cudaPointerGetAttributes, 3 a group) — where an eager call's host
//            time goes (Python: 169-363 us a call, H100 2026-12-07)
//   jit      a configuration that no build prebuilds (bf16 "tn", cooperative, a bf16 column bias
//            and tanh): compiled cold into an empty kernel cache by each of the JIT's compilers
//            (nvcc; NVRTC and the host compiler), loaded from that cache by a fresh process
//            (<= 5 ms), and looked up in memory once loaded (<= 1 us)
//
//   host_costs [--json F] [--calls N] [--jit-only]
//
// --jit-only: the JIT's costs alone, which need no GPU (compiling, caching and loading a launcher
// touch no device: the kernel loads at its first launch), e.g. on a build machine.
//
// The fresh process is this program again (`--obtain`), so that nothing of the first
// process's memory helps it.
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "seed_problems.hpp"
#include "sm90_instances.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/device_info.hpp"
#include "warploom/gemm.hpp"
#include "warploom/harness/device_json.hpp"
#include "warploom/harness/statistics.hpp"
#include "warploom/ops/gemm.hpp"
#include "warploom/ops/grouped_gemm.hpp"
#include "warploom/testing/device_buffers.hpp"

extern char** environ;

namespace {

namespace wg = warploom::gemm;
namespace ops = warploom::ops;
namespace wt = warploom::testing;
using Clock = std::chrono::steady_clock;

double microseconds_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// The configuration the JIT measurements compile: in no build's prebuilt list (kernels/gemm/
// CMakeLists.txt), so that it is compiled whatever WARPLOOM_GEMM_INSTANCES was.
wg::sm90::KernelConfig jit_config() {
  wg::sm90::KernelConfig c;
  c.epilogue.bias = true;
  c.epilogue.bias_type = wg::ScalarType::BF16;
  c.epilogue.activation = wg::Activation::Tanh;
  return c;
}

// Host microseconds of each of `calls` calls of `launch`, synchronising every 64 calls (the GPU
// finishes a small GEMM faster than the host enqueues 64, so no call meets a full queue).
template <class Launch>
std::vector<double> host_times(int calls, Launch&& launch) {
  std::vector<double> us;
  us.reserve(calls);
  for (int i = 0; i < calls; ++i) {
    Clock::time_point const t0 = Clock::now();
    launch();
    us.push_back(microseconds_since(t0));
    if (i % 64 == 63) WL_CUDA_CHECK(cudaDeviceSynchronize());
  }
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  return us;
}

nlohmann::json summary_json(std::vector<double> const& us) {
  warploom::harness::Summary const s = warploom::harness::summarize(us);
  return {{"median_us", s.median}, {"p10_us", s.p10}, {"p90_us", s.p90}, {"calls", s.count}};
}

nlohmann::json launch_costs(int calls) {
  int const m = 256, n = 256, k = 256;
  wt::DeviceBuffer a(std::size_t{m} * k * 2), b(std::size_t{k} * n * 2), d(std::size_t{m} * n * 2);
  ops::TensorView const va = ops::row_major(a.get(), wg::ScalarType::BF16, m, k);
  ops::TensorView const vb = ops::column_major(b.get(), wg::ScalarType::BF16, k, n);
  ops::TensorView const vd = ops::row_major(d.get(), wg::ScalarType::BF16, m, n);
  ops::Gemm plan(ops::GemmOptions{.a = va, .b = vb, .d = vd});
  plan.compile();
  wg::GemmArguments const args = plan.arguments(va, vb, {}, vd);
  cudaStream_t stream{};
  WL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // Interleaved in blocks, so that clock and cache drift hit both alike.
  std::vector<double> direct, planned;
  for (int block = 0; block < 10; ++block) {
    std::vector<double> const g = host_times(calls / 10, [&] { wg::gemm(args, stream); });
    std::vector<double> const p =
        host_times(calls / 10, [&] { plan.run(va, vb, {}, vd, 1.0f, 0.0f, stream); });
    direct.insert(direct.end(), g.begin(), g.end());
    planned.insert(planned.end(), p.begin(), p.end());
  }
  WL_CUDA_CHECK(cudaStreamDestroy(stream));
  nlohmann::json out = {{"problem", "bf16 tn 256x256x256, D row-major, on a non-blocking stream"},
                        {"gemm", summary_json(direct)},
                        {"plan_run", summary_json(planned)}};
  out["plan_run_minus_gemm_median_us"] =
      out["plan_run"]["median_us"].get<double>() - out["gemm"]["median_us"].get<double>();
  return out;
}

nlohmann::json grouped_costs(int calls) {
  constexpr auto kF16 = wg::ScalarType::F16;
  std::vector<wt::DeviceBuffer> buffers;
  std::vector<ops::GemmGroup> groups;
  for (auto const [m, n, k] : warploom::bench::seed_problem_extents(50, 1024)) {
    void* const a = buffers.emplace_back(std::size_t(m) * k * 2).get();
    void* const b = buffers.emplace_back(std::size_t(k) * n * 2).get();
    void* const d = buffers.emplace_back(std::size_t(m) * n * 2).get();
    groups.push_back({.a = ops::row_major(a, kF16, m, k),
                      .b = ops::row_major(b, kF16, k, n),
                      .c = {},
                      .d = ops::row_major(d, kF16, m, n)});
  }
  ops::GroupedGemm plan(kF16, wg::MatrixLayout::RowMajor);
  std::vector<wg::GemmArguments> const args = plan.arguments(groups).args;
  wt::DeviceBuffer workspace(wg::grouped_gemm_workspace_bytes(args.size()));
  cudaStream_t stream{};
  WL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  wg::PreparedGroupedGemm const prepared = plan.prepare(groups, 1.0f, 0.0f, stream);
  std::vector<std::pair<char const*, std::function<void()>>> const paths = {
      {"prepared_run", [&] { prepared.run(stream); }},
      {"grouped_gemm", [&] { wg::grouped_gemm(args.data(), args.size(), stream); }},
      {"grouped_gemm_callers_workspace",
       [&] {
         wg::grouped_gemm(args.data(), args.size(), stream, {}, workspace.get(), workspace.bytes());
       }},
      {"plan_run", [&] { plan.run(groups, 1.0f, 0.0f, stream); }},
      {"plan_checks_alone", [&] { (void)plan.arguments(groups); }},
      {"pointer_queries", [&] {
         cudaPointerAttributes attributes{};
         for (wg::GemmArguments const& g : args)
           for (void const* p : {g.a.data, g.b.data, static_cast<void const*>(g.d)})
             WL_CUDA_CHECK(cudaPointerGetAttributes(&attributes, p));
       }}};
  // Interleaved in blocks, as launch_costs.
  std::vector<std::vector<double>> times(paths.size());
  for (int block = 0; block < 10; ++block)
    for (std::size_t i = 0; i < paths.size(); ++i) {
      std::vector<double> const t = host_times(calls / 10, paths[i].second);
      times[i].insert(times[i].end(), t.begin(), t.end());
    }
  WL_CUDA_CHECK(cudaStreamDestroy(stream));
  nlohmann::json out = {
      {"problems",
       "seed 002's 50 fp16 problems (bench/seed_problems.hpp), every operand row-major, on "
       "a non-blocking stream"}};
  for (std::size_t i = 0; i < paths.size(); ++i) out[paths[i].first] = summary_json(times[i]);
  return out;
}

// Milliseconds this process takes to obtain jit_config()'s launcher.
double obtain_ms() {
  Clock::time_point const t0 = Clock::now();
  wg::sm90::instance_for(jit_config());
  return microseconds_since(t0) / 1000.0;
}

// Milliseconds a fresh process takes to obtain jit_config()'s launcher (it prints them): compiled
// into an empty kernel cache, or loaded from it. The JIT's compiler and cache come from the
// environment.
double obtain_in_fresh_process() {
  std::string const self = std::filesystem::read_symlink("/proc/self/exe");
  std::string const out = std::filesystem::temp_directory_path() / "warploom_host_costs_load.txt";
  char const* argv[] = {self.c_str(), "--obtain", out.c_str(), nullptr};
  pid_t pid{};
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, const_cast<char**>(argv), environ) != 0)
    throw std::runtime_error("host_costs: cannot start " + self);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("host_costs: the fresh process failed");
  double ms = 0.0;
  std::ifstream(out) >> ms;
  return ms;
}

// The JIT's costs with each of its compilers (WARPLOOM_JIT_COMPILER): a cold compile into an empty
// cache and five loads from it, each in a fresh process; then, in this process, the lookup of a
// launcher already loaded.
nlohmann::json jit_costs() {
  namespace fs = std::filesystem;
  nlohmann::json out = {{"config", wg::sm90::name_of(jit_config())}};
  std::vector<fs::path> caches;
  for (char const* compiler : {"nvcc", "nvrtc"}) {
    caches.push_back(fs::temp_directory_path() / ("warploom_host_costs_" + std::string(compiler) +
                                                  "_" + std::to_string(getpid())));
    fs::remove_all(caches.back());
    ::setenv("WARPLOOM_CACHE_DIR", caches.back().c_str(), 1);
    ::setenv("WARPLOOM_JIT_COMPILER", compiler, 1);
    double const cold_ms = obtain_in_fresh_process();
    std::vector<double> loads;
    for (int i = 0; i < 5; ++i) loads.push_back(obtain_in_fresh_process());
    warploom::harness::Summary const load = warploom::harness::summarize(loads);
    out[compiler] = {
        {"cold_compile_ms", cold_ms},
        {"disk_load_fresh_process_ms", {{"median", load.median}, {"max", load.max}, {"runs", 5}}}};
  }
  obtain_ms();  // from the last compiler's cache
  std::vector<double> lookups;
  for (int block = 0; block < 100; ++block) {
    constexpr int kCalls = 10000;
    Clock::time_point const t0 = Clock::now();
    for (int i = 0; i < kCalls; ++i) wg::sm90::instance_for(jit_config());
    lookups.push_back(microseconds_since(t0) / kCalls);
  }
  for (fs::path const& cache : caches) fs::remove_all(cache);
  warploom::harness::Summary const lookup = warploom::harness::summarize(lookups);
  out["memory_lookup_us"] = {{"median", lookup.median}, {"p90", lookup.p90}};
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--obtain") {
    double const ms = obtain_ms();
    std::ofstream(argv[2]) << ms << "\n";
    return 0;
  }
  CLI::App app{"host costs of the GEMM: launch overhead and the JIT's compile, load and lookup"};
  std::string json_path;
  int calls = 20000;
  app.add_option("--json", json_path, "write the results here");
  app.add_option("--calls", calls, "timed calls per launch path")->check(CLI::Range(100, 10000000));
  bool jit_only = false;
  app.add_flag("--jit-only", jit_only, "only the JIT's costs (no GPU needed)");
  CLI11_PARSE(app, argc, argv);
  nlohmann::json out;
  if (!jit_only) {
    warploom::DeviceInfo const device = warploom::query_device();
    if (std::string why = warploom::architecture_mismatch(device); !why.empty()) {
      std::fprintf(stderr, "host_costs: %s\n", why.c_str());
      return 77;
    }
    out["device"] = warploom::harness::device_json(device);
    out["launch"] = launch_costs(calls);
    out["grouped"] = grouped_costs(std::min(calls, 2000));
  }
  out["jit"] = jit_costs();
  std::printf("%s\n", out.dump(2).c_str());
  if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
  return 0;
}
