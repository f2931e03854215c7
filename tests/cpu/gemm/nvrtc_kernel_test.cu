// tests/cpu/gemm/nvrtc_kernel_test.cu — NVRTC compiles the sm90 TS GEMM kernel (kernels/gemm/sm90/
// kernel.cuh, through src/jit/nvrtc_std's stand-ins for the standard library), and the kernel it
// compiles reads its Params as a launcher writes them: the source asserts the launcher's
// params_layout, and one laid out otherwise fails to compile. The launcher may be compiled by nvcc
// (this file) or by the host compiler alone (host_launcher.cpp): both lay Params out alike. No GPU
// needed: NVRTC compiles for an architecture, not for a device.
#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gemm/sm90/kernel.cuh"
#include "host_launcher.hpp"
#include "jit/loaded_library.hpp"
#include "jit/nvrtc.hpp"
#include "sm90_instances.hpp"
#include "sm90_source.hpp"

namespace {

namespace sm90 = warploom::gemm::sm90;
namespace jit = warploom::jit;
using warploom::gemm::ConsumerDesign;
using warploom::gemm::ScalarType;

// bf16 ping-pong, 6 stages, no cluster, the plain epilogue: the configuration the design note
// measured (docs/design/nvrtc_jit.md), and its Instance as the prebuilt table compiles it.
sm90::KernelConfig const kConfig{.in = ScalarType::BF16,
                                 .out = ScalarType::BF16,
                                 .design = ConsumerDesign::PingPong,
                                 .stages = 6,
                                 .staging_buffers = 1};
using Instance = sm90::Instance<sm90::Pingpong, sm90::PingpongShape<6, 1, 1, false>,
                                cute::bfloat16_t, cute::bfloat16_t, true, true, 1, 1>;

std::vector<std::size_t> launcher_layout() {
  auto const layout = sm90::params_layout<Instance::Params>();
  return {layout.begin(), layout.end()};
}

bool have_nvrtc() {
  if (jit::nvrtc_version()) return true;
  std::printf("[  SKIPPED ] libnvrtc cannot be loaded\n");
  return false;
}

TEST(NvrtcKernel, CompilesTheKernelWithTheLaunchersParamsLayout) {
  if (!have_nvrtc()) GTEST_SKIP();
  EXPECT_EQ(sm90::name_of(kConfig), "bf16_bf16_tn_pingpong_s6_b1_1x1");
  std::vector<std::size_t> const layout = sm90::host_compiler_params_layout();
  // CUDA 13 aligns CUtensorMap to 128 bytes: the descriptors, and so the Params, are.
  EXPECT_EQ(layout[1], 128u);
  sm90::NvrtcKernelSource const s = sm90::nvrtc_kernel_source(kConfig, layout);
  jit::Cubin const cubin = jit::nvrtc_compile(jit::NvrtcToolchain::of_build(), s.source,
                                              "nvrtc_kernel_test.cu", {s.kernel});
  ASSERT_EQ(cubin.lowered_names.size(), 1u);
  EXPECT_TRUE(
      cubin.lowered_names[0].starts_with("_ZN8warploom4gemm4sm9014ts_gemm_kernelINS1_"
                                         "8InstanceINS1_8PingpongENS1_5ShapeILi128ELi128"
                                         "ELi6ELi1ELi1ELb0EEEN7cutlass10bfloat16_tE"))
      << cubin.lowered_names[0];
  EXPECT_GT(cubin.image.size(), 4u);
  EXPECT_EQ(cubin.image.substr(0, 4),
            "\x7f"
            "ELF");
  std::printf("NVRTC %s compiled %s in %.1f s, cubin %zu bytes\n", jit::nvrtc_version()->c_str(),
              sm90::name_of(kConfig).c_str(), cubin.seconds, cubin.image.size());
}

// The build's NVRTC is its toolkit's (beside its nvcc), named in cache keys by the library file's
// build ID, so that a lookup in the kernel cache needs no libnvrtc loaded (~6 ms of a 5 ms budget,
// docs/design/nvrtc_jit.md §6).
TEST(NvrtcKernel, TheBuildsNvrtcIsNamedByItsBuildId) {
  if (!have_nvrtc()) GTEST_SKIP();
  std::string const& identity = jit::NvrtcToolchain::of_build().identity;
  EXPECT_TRUE(identity.starts_with("nvrtc build-id ")) << identity;
  EXPECT_TRUE(jit::nvrtc_available());
  EXPECT_FALSE(jit::file_build_id("/proc/self/status").has_value());  // not an ELF file
  EXPECT_FALSE(jit::file_build_id("/no/such/file").has_value());
}

// Without a layout to assert, the cubin holds NVRTC's own (sm90::kParamsLayoutSymbol), which a
// loader reads from the file and compares with its launcher's (the JIT does, in parallel builds).
TEST(NvrtcKernel, TheCubinHoldsNvrtcsLayoutOfParams) {
  if (!have_nvrtc()) GTEST_SKIP();
  sm90::NvrtcKernelSource const s = sm90::nvrtc_kernel_source(kConfig, {});
  jit::Cubin const cubin =
      jit::nvrtc_compile(jit::NvrtcToolchain::of_build(), s.source, "nvrtc_layout.cu", {s.kernel});
  std::optional<std::string> const bytes =
      jit::cubin_symbol(cubin.image, std::string(sm90::kParamsLayoutSymbol));
  ASSERT_TRUE(bytes.has_value());
  std::vector<std::size_t> const expected = launcher_layout();
  ASSERT_EQ(bytes->size(), expected.size() * sizeof(std::size_t));
  std::vector<std::size_t> got(expected.size());
  std::memcpy(got.data(), bytes->data(), bytes->size());
  EXPECT_EQ(got, expected);
  EXPECT_FALSE(jit::cubin_symbol(cubin.image, "no_such_symbol").has_value());
  EXPECT_FALSE(jit::cubin_symbol("not an ELF image", "warploom_params_layout").has_value());
}

TEST(NvrtcKernel, TheHostCompilerLaysParamsOutAsNvcc) {
  // Under nvcc the descriptors are CUtensorMap; under the host compiler alone (no __CUDACC__) and
  // under NVRTC, CuTe's 64-byte-aligned stand-in, which Params align to 128 themselves.
  EXPECT_EQ(sm90::host_compiler_params_layout(), launcher_layout());
}

TEST(NvrtcKernel, RefusesAKernelWhoseParamsAreLaidOutOtherwise) {
  if (!have_nvrtc()) GTEST_SKIP();
  // The layout of CuTe's 64-byte-aligned stand-in for CUtensorMap, had Params not aligned their
  // descriptors themselves: B's descriptor one 64-byte step early.
  std::vector<std::size_t> layout = launcher_layout();
  layout[3] -= 64;
  sm90::NvrtcKernelSource const s = sm90::nvrtc_kernel_source(kConfig, layout);
  try {
    jit::nvrtc_compile(jit::NvrtcToolchain::of_build(), s.source, "misaligned.cu", {s.kernel});
    FAIL() << "compiled a kernel whose Params differ from the launcher's";
  } catch (std::runtime_error const& e) {
    EXPECT_NE(std::string(e.what()).find("not laid out as the launcher's (params_layout"),
              std::string::npos)
        << e.what();
  }
}

TEST(NvrtcKernel, GeneratesOnlyThePlainKernel) {
  sm90::KernelConfig grouped = kConfig;
  grouped.design = ConsumerDesign::Cooperative;
  grouped.grouped = true;
  EXPECT_THROW(sm90::nvrtc_kernel_source(grouped, launcher_layout()), std::invalid_argument);
}

}  // namespace
