// tests/gpu/gemm/nvrtc_kernel_gpu_test.cu — the sm90 GEMM kernel compiled by NVRTC
// (src/jit/nvrtc.hpp), loaded from its cubin (cudaLibraryLoadData) and launched by handle
// (ts::KernelHandle), writes what the nvcc-compiled kernel writes, bit for bit: the same
// configuration, the same arguments, into poisoned outputs — launched by the launcher compiled here
// (nvcc) and by one the host compiler compiled alone (tests/cpu/gemm/host_launcher.cpp, as a JIT
// launcher is: its TMA descriptors were once left zero). Then the JIT's default path end to end
// (the launcher by the host compiler, the kernel by NVRTC) against the float64 reference
// (docs/design/nvrtc_jit.md §6).
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "gemm/sm90/launch.cuh"
#include "gemm_check.hpp"
#include "host_launcher.hpp"
#include "jit/nvrtc.hpp"
#include "sm90_instances.hpp"
#include "sm90_source.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace {

namespace sm90 = warploom::gemm::sm90;
namespace jit = warploom::jit;
namespace wt = warploom::testing;
namespace gemm = warploom::gemm;

sm90::KernelConfig const kConfig{.in = gemm::ScalarType::BF16,
                                 .out = gemm::ScalarType::BF16,
                                 .design = gemm::ConsumerDesign::PingPong,
                                 .stages = 6,
                                 .staging_buffers = 1};
using Instance = sm90::Instance<sm90::Pingpong, sm90::PingpongShape<6, 1, 1, false>,
                                cute::bfloat16_t, cute::bfloat16_t, true, true, 1, 1>;
using Handle = warploom::ts::KernelHandle<Instance::Params>;

// kConfig's kernel compiled by NVRTC against this launcher's layout of Params, loaded (once: the
// library stays loaded for the process, as a JIT's would).
Handle nvrtc_kernel() {
  static Handle const handle = [] {
    auto const layout = sm90::params_layout<Instance::Params>();
    sm90::NvrtcKernelSource const s =
        sm90::nvrtc_kernel_source(kConfig, std::vector<std::size_t>(layout.begin(), layout.end()));
    jit::Cubin const cubin =
        jit::nvrtc_compile(jit::NvrtcToolchain::of_build(), s.source, "nvrtc_gpu.cu", {s.kernel});
    cudaLibrary_t library = nullptr;
    WL_CUDA_CHECK(cudaLibraryLoadData(&library, cubin.image.data(), nullptr, nullptr, 0, nullptr,
                                      nullptr, 0));
    Handle h;
    WL_CUDA_CHECK(cudaLibraryGetKernel(&h.kernel, library, cubin.lowered_names.at(0).c_str()));
    return h;
  }();
  return handle;
}

// D = A . B + beta C on M x N x K x batch, bf16 TN (A row-major, B column-major, C and D
// row-major), by the nvcc kernel and by the NVRTC one (launched by this file's launcher and by the
// host compiler's), each into its own poisoned D.
void check_same_output(int m, int n, int k, int batch, float beta) {
  std::size_t const a_elems = std::size_t(m) * k * batch, b_elems = std::size_t(n) * k * batch;
  std::size_t const d_bytes = std::size_t(m) * n * batch * sizeof(__nv_bfloat16);
  wt::DeviceBuffer a(a_elems * sizeof(__nv_bfloat16)), b(b_elems * sizeof(__nv_bfloat16));
  wt::DeviceBuffer c(d_bytes), d_nvcc(d_bytes), d_nvrtc(d_bytes), d_host(d_bytes);
  wt::fill_uniform(a.as<__nv_bfloat16>(), a_elems, 1);
  wt::fill_uniform(b.as<__nv_bfloat16>(), b_elems, 2);
  wt::fill_uniform(c.as<__nv_bfloat16>(), d_bytes / sizeof(__nv_bfloat16), 3);
  wt::poison(d_nvcc.get(), d_bytes);
  wt::poison(d_nvrtc.get(), d_bytes);
  wt::poison(d_host.get(), d_bytes);
  gemm::GemmArguments args;
  args.m = m;
  args.n = n;
  args.k = k;
  args.batch = batch;
  args.a = {
      .data = a.get(), .type = gemm::ScalarType::BF16, .layout = gemm::MatrixLayout::RowMajor};
  args.b = {
      .data = b.get(), .type = gemm::ScalarType::BF16, .layout = gemm::MatrixLayout::ColMajor};
  args.c = {
      .data = c.get(), .type = gemm::ScalarType::BF16, .layout = gemm::MatrixLayout::RowMajor};
  args.beta = beta;
  gemm::GemmTuning const tuning{};
  args.d = d_nvcc.get();
  sm90::launch_ts_gemm<Instance>(gemm::resolved(args, gemm::GemmKernel::TensorCore), tuning,
                                 gemm::SplitKFold{}, nullptr);
  args.d = d_nvrtc.get();
  sm90::launch_ts_gemm<Instance>(gemm::resolved(args, gemm::GemmKernel::TensorCore), tuning,
                                 gemm::SplitKFold{}, nullptr, nvrtc_kernel());
  args.d = d_host.get();
  sm90::host_compiler_launch(gemm::resolved(args, gemm::GemmKernel::TensorCore), nullptr,
                             nvrtc_kernel().kernel);
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_FALSE(wt::compare_with_poison(d_nvcc.get(), d_bytes).equal())
      << "nvcc kernel wrote nothing";
  wt::Comparison const same = wt::compare_bytes(d_nvcc.get(), d_nvrtc.get(), d_bytes);
  EXPECT_TRUE(same.equal()) << m << "x" << n << "x" << k << " x " << batch << ": "
                            << same.mismatched_bytes << " bytes differ, the first at byte "
                            << same.first_mismatch;
  wt::Comparison const host = wt::compare_bytes(d_nvcc.get(), d_host.get(), d_bytes);
  EXPECT_TRUE(host.equal()) << m << "x" << n << "x" << k << " x " << batch
                            << ", the host compiler's launcher: " << host.mismatched_bytes
                            << " bytes differ, the first at byte " << host.first_mismatch;
}

TEST(NvrtcKernelGpu, WritesWhatTheNvccKernelWrites) {
  if (!jit::nvrtc_version()) GTEST_SKIP() << "libnvrtc cannot be loaded";
  check_same_output(1024, 1024, 1024, 1, 0.0f);
  check_same_output(1000, 1096, 520, 2, 0.5f);  // edge tiles, a K tail, batches, C read
  check_same_output(8, 2056, 64, 3, 0.0f);      // fewer rows than a tile
}

// A configuration no build prebuilds (fp16, 3 stages, ReLU), compiled into a fresh kernel cache by
// the JIT's default path (NVRTC's), against the float64 reference (gemm_check.hpp).
TEST(NvrtcKernelGpu, TheJitsNvrtcPathRunsAConfigurationNoBuildPrebuilds) {
  namespace fs = std::filesystem;
  namespace gt = warploom::gemm::testing;
  if (!jit::nvrtc_version()) GTEST_SKIP() << "libnvrtc cannot be loaded";
  sm90::KernelConfig const c{.in = gemm::ScalarType::F16,
                             .out = gemm::ScalarType::F16,
                             .design = gemm::ConsumerDesign::Cooperative,
                             .stages = 3,
                             .staging_buffers = 2,
                             .epilogue = {.activation = gemm::Activation::ReLU}};
  for (sm90::PrebuiltInstance const& i : sm90::prebuilt_instances())
    ASSERT_FALSE(i.config == c) << sm90::name_of(c) << " is prebuilt: the JIT would not run";
  fs::path const cache =
      fs::temp_directory_path() / ("warploom_nvrtc_gpu_test_" + std::to_string(getpid()));
  fs::remove_all(cache);
  ::setenv("WARPLOOM_CACHE_DIR", cache.c_str(), 1);
  ::unsetenv("WARPLOOM_JIT_COMPILER");  // the default
  gt::Problem p{.in = gemm::ScalarType::F16, .out = gemm::ScalarType::F16};
  p.m = 1000, p.n = 1100, p.k = 520, p.batch = 2;
  p.epilogue.activation = gemm::Activation::ReLU;
  gt::expect_correct(p, {.design = gemm::ConsumerDesign::Cooperative,
                         .stages = 3,
                         .staging_buffers = 2,
                         .kernel = gemm::GemmKernel::TensorCore});
  int cubins = 0;
  for (auto const& e : fs::directory_iterator(cache))
    cubins += e.path().extension() == ".cubin" ? 1 : 0;
  EXPECT_EQ(cubins, 1) << "the configuration did not take NVRTC's path";
  fs::remove_all(cache);
}

}  // namespace
