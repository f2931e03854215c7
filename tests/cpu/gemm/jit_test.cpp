// tests/cpu/gemm/jit_test.cpp — a tensor-core GEMM configuration the build did not prebuild is
// compiled when first needed, loaded, kept in memory and in the kernel cache (src/gemm/
// sm90_instances.cpp); one whose schedule was never verified is refused before anything compiles.
// No GPU needed: compiling and loading a kernel library does not touch the device.
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "jit/nvrtc.hpp"
#include "sm90_instances.hpp"
#include "warploom/testing/invalid_argument.hpp"

namespace {

namespace fs = std::filesystem;
namespace sm90 = warploom::gemm::sm90;
using warploom::gemm::Activation;
using warploom::gemm::ConsumerDesign;
using warploom::gemm::ScalarType;

bool prebuilt(sm90::KernelConfig const& c) {
  for (auto const& i : sm90::prebuilt_instances())
    if (i.config == c) return true;
  return false;
}

TEST(GemmJit, CompilesLoadsAndCachesAConfigurationTheBuildDidNotPrebuild) {
  fs::path const cache =
      fs::temp_directory_path() / ("warploom_jit_test_" + std::to_string(getpid()));
  fs::remove_all(cache);
  ::setenv("WARPLOOM_CACHE_DIR", cache.c_str(), 1);
  ::setenv("WARPLOOM_JIT_COMPILER", "nvcc", 1);  // asked for: nvcc's one translation unit
  // fp16 with 3 stages: a verified schedule (sm90_ts_gemm_s3), an instance no build prebuilds;
  // with every op of the fused epilogue, so that CI compiles each op's device code through the
  // generator (the GPU tests run them).
  sm90::KernelConfig const c{.in = ScalarType::F16,
                             .out = ScalarType::F16,
                             .design = ConsumerDesign::Cooperative,
                             .stages = 3,
                             .staging_buffers = 2,
                             .epilogue = {.row_scale = true,
                                          .col_scale = true,
                                          .bias = true,
                                          .bias_type = ScalarType::F16,
                                          .pre_activation = true,
                                          .activation = Activation::GELUTanh,
                                          .residual = true}};
  ASSERT_FALSE(prebuilt(c));
  EXPECT_EQ(sm90::schedule_of(c), "sm90_ts_gemm_s3");
  sm90::LaunchFn const first = sm90::instance_for(c);
  ::unsetenv("WARPLOOM_JIT_COMPILER");
  EXPECT_NE(first, nullptr);
  EXPECT_EQ(sm90::instance_for(c), first);  // from memory, not compiled again
  int manifests = 0, cubins = 0;
  for (auto const& e : fs::directory_iterator(cache)) {
    manifests += e.path().extension() == ".manifest" ? 1 : 0;
    cubins += e.path().extension() == ".cubin" ? 1 : 0;
  }
  EXPECT_EQ(manifests, 1);
  EXPECT_EQ(cubins, 0);  // nvcc's instance is one library
  fs::remove_all(cache);
}

// NVRTC's path, the default: the launcher compiled by the host compiler, the kernel by NVRTC
// against its layout of Params, one cache entry of both (the kernel a .cubin), handed over without
// a GPU (the cubin loads at the first launch; tests/gpu/gemm/nvrtc_kernel_gpu_test.cu launches
// one). A fresh lookup of the entry needs no libnvrtc: its identity is the toolkit's (nvrtc.hpp).
TEST(GemmJit, NvrtcCompilesTheKernelAndTheHostCompilerItsLauncher) {
  if (!warploom::jit::nvrtc_version()) GTEST_SKIP() << "libnvrtc cannot be loaded";
  fs::path const cache =
      fs::temp_directory_path() / ("warploom_jit_nvrtc_test_" + std::to_string(getpid()));
  fs::remove_all(cache);
  ::setenv("WARPLOOM_CACHE_DIR", cache.c_str(), 1);
  ::unsetenv("WARPLOOM_JIT_COMPILER");
  // fp16, 3 stages, ReLU: not prebuilt, its schedule verified (sm90_ts_gemm_s3).
  sm90::KernelConfig const c{.in = ScalarType::F16,
                             .out = ScalarType::F16,
                             .design = ConsumerDesign::Cooperative,
                             .stages = 3,
                             .staging_buffers = 2,
                             .epilogue = {.activation = Activation::ReLU}};
  ASSERT_FALSE(prebuilt(c));
  EXPECT_EQ(sm90::jit_compiler_for(c), sm90::JitCompiler::Nvrtc);
  sm90::LaunchFn const launch = sm90::instance_for(c);
  EXPECT_NE(launch, nullptr);
  EXPECT_EQ(sm90::instance_for(c), launch);
  int manifests = 0, cubins = 0;
  for (auto const& e : fs::directory_iterator(cache)) {
    manifests += e.path().extension() == ".manifest" ? 1 : 0;
    cubins += e.path().extension() == ".cubin" ? 1 : 0;
  }
  EXPECT_EQ(manifests, 1);
  EXPECT_EQ(cubins, 1);
  fs::remove_all(cache);
}

// The JIT's compiler is asked for by name; a name it does not know is refused before anything
// compiles, naming the variable; grouped configurations take nvcc whatever is asked.
TEST(GemmJit, RefusesAnUnknownCompiler) {
  sm90::KernelConfig const c{.in = ScalarType::F16,
                             .out = ScalarType::F16,
                             .design = ConsumerDesign::Cooperative,
                             .stages = 3,
                             .staging_buffers = 2,
                             .epilogue = {.activation = Activation::Sigmoid}};
  ASSERT_FALSE(prebuilt(c));
  ::setenv("WARPLOOM_JIT_COMPILER", "NVRTC", 1);
  std::string const message =
      warploom::testing::invalid_argument_message([&] { return sm90::instance_for(c); });
  ::setenv("WARPLOOM_JIT_COMPILER", "nvcc", 1);
  EXPECT_EQ(sm90::jit_compiler_for(c), sm90::JitCompiler::Nvcc);
  sm90::KernelConfig grouped = c;
  grouped.grouped = true;
  ::unsetenv("WARPLOOM_JIT_COMPILER");
  EXPECT_EQ(sm90::jit_compiler_for(grouped), sm90::JitCompiler::Nvcc);  // NVRTC's path: plain only
  EXPECT_NE(message.find("WARPLOOM_JIT_COMPILER=NVRTC"), std::string::npos) << message;
  EXPECT_NE(message.find("nvrtc (the default) or nvcc"), std::string::npos) << message;
}

TEST(GemmJit, RefusesAScheduleTheBuildDidNotVerify) {
  // 3 stages in a 2-CTA cluster: no schedule unit exists for that shape.
  sm90::KernelConfig const c{
      .design = ConsumerDesign::Cooperative, .stages = 3, .staging_buffers = 2, .cluster_m = 2};
  std::string const e = warploom::testing::invalid_argument_message([&] { sm90::instance_for(c); });
  EXPECT_NE(e.find("sm90_ts_gemm_s3_c2"), std::string::npos) << e;
  EXPECT_NE(e.find("has not verified"), std::string::npos) << e;
  EXPECT_NE(e.find("sm90_ts_gemm_pingpong_c2"), std::string::npos) << e;  // lists what exists
}

TEST(GemmJit, RefusesStagesThatDoNotFitSharedMemory) {
  sm90::KernelConfig const c{.design = ConsumerDesign::Cooperative, .stages = 5};
  std::string const e = warploom::testing::invalid_argument_message([&] { sm90::instance_for(c); });
  EXPECT_NE(e.find("tuning.stages = 5"), std::string::npos) << e;
  EXPECT_NE(e.find("232448 available"), std::string::npos) << e;
}

// WARPLOOM_GEMM_INSTANCES=all (kernels/gemm/CMakeLists.txt) and sm90::selectable_configs() (what
// `warploom precompile --all` compiles) list the same configurations.
TEST(GemmJit, TheAllSetPrebuildsEverySelectableConfiguration) {
  if (sm90::prebuilt_instances().size() < sm90::selectable_configs().size())
    GTEST_SKIP() << "a build with WARPLOOM_GEMM_INSTANCES=minimal";
  for (sm90::KernelConfig const& c : sm90::selectable_configs())
    EXPECT_TRUE(prebuilt(c)) << sm90::name_of(c);
}

}  // namespace
