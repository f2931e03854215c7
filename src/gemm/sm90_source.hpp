// src/gemm/sm90_source.hpp
//
// The source of sm90 TS GEMM instances (kernels/gemm/sm90/kernel.cuh instantiated for one or more
// configurations), written once for both ways an instance is compiled: by the build, for the
// configurations it prebuilds (tools/gemm_instance_sources), and by the JIT, for any other one
// (sm90_jit.cpp). The same configuration therefore always compiles from the same text.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sm90_instances.hpp"

namespace warploom::gemm::sm90 {

// The configuration named by name_of(c), or nullopt for a malformed name.
std::optional<KernelConfig> parse_config(std::string_view name);

// The extern "C" function of a JIT-compiled instance's library that returns its launcher (a
// LaunchFn, or for a grouped configuration a GroupedLaunchFn).
std::string_view jit_entry_of(bool grouped);

// A translation unit defining `void run_<name_of(c)>(GemmArguments const&, GemmTuning const&,
// cudaStream_t)` for each configuration; with `jit_entry`, also `extern "C" warploom_jit_entry()`
// returning the first one's launcher (the symbol the JIT looks up in the shared object).
std::string instance_source(std::span<KernelConfig const> configs, bool jit_entry = false);

// The kernel of a plain configuration (not grouped, tiles not from a queue) for NVRTC
// (src/jit/nvrtc.hpp): kernel.cuh alone, device code only. Its Params are written by a launcher
// another compiler compiled, and the layouts must agree (params_layout in
// kernels/gemm/sm90/config.cuh): with `params_layout` (the launcher's) the source asserts it; in
// any case the cubin holds NVRTC's own layout as the global kParamsLayoutSymbol (std::size_t
// values), for a loader to compare (jit::cubin_symbol). `kernel` is the name expression of the
// kernel to lower. Throws std::invalid_argument for another configuration.
inline constexpr std::string_view kParamsLayoutSymbol = "warploom_params_layout";
struct NvrtcKernelSource {
  std::string source;
  std::string kernel;
};
NvrtcKernelSource nvrtc_kernel_source(KernelConfig const& c,
                                      std::span<std::size_t const> params_layout);

// The launcher of a plain configuration whose kernel NVRTC compiles (nvrtc_kernel_source), for the
// host compiler alone: `void run_<name_of(c)>(...)`, and extern "C"
//   LaunchFn warploom_jit_entry()                       its launcher, as instance_source's
//   void warploom_jit_set_kernel(cubin_path)            the kernel's cubin file (of it alone),
//                                                       loaded at the first launch
//   size_t warploom_jit_params_layout(out, capacity)    params_layout of its Params; returns
//                                                       the count
// Throws std::invalid_argument for another configuration.
std::string nvrtc_launcher_source(KernelConfig const& c);
inline constexpr std::string_view kJitSetKernel = "warploom_jit_set_kernel";
inline constexpr std::string_view kJitParamsLayout = "warploom_jit_params_layout";

// The generated table of prebuilt instances (prebuilt_instances(), sm90_instances.hpp).
std::string instance_table_source(std::span<KernelConfig const> configs);

}  // namespace warploom::gemm::sm90
