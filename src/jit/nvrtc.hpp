// src/jit/nvrtc.hpp
//
// Compiling generated device code with NVRTC, inside this process: the fast path of the GEMM JIT
// (docs/design/nvrtc_jit.md). NVRTC compiles device code only, to a cubin for one architecture, and
// has no C++ standard library: the device headers see CCCL's cuda::std, and src/jit/nvrtc_std's
// stand-ins for <vector>, <string> and <string_view>, as std. A kernel's host side (its launcher,
// which builds the kernel parameters) stays compiled by the host compiler; the NVRTC source asserts
// that the parameters have the launcher's layout (kernels/gemm/sm90/config.cuh, params_layout).
//
// libnvrtc is loaded when first needed, not linked: a process without it loses the fast path, not
// the library. dlopen's path: $WARPLOOM_NVRTC; else libnvrtc.so.<CUDA major> of the toolkit whose
// nvcc the JIT runs (Toolchain::of_build), beside its bin/; else that name on the loader's path.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warploom::jit {

struct NvrtcToolchain {
  // Everything but the source: -arch, -std, include directories (src/jit/nvrtc_std first),
  // defines and front-end limits, as the build compiles its kernels.
  std::vector<std::string> options;
  // What a cache key needs to tell NVRTC toolchains apart, without a path: "nvrtc build-id <hex>"
  // (the library file's, read without loading it) or "nvrtc <version>" (a library the loader
  // finds, loaded to ask), and every option, include directories as `<root N>`
  // (Toolchain::identity's rules).
  std::string identity;
  // The include directories of `options`, in order.
  std::vector<std::filesystem::path> roots;

  // The build's (generated: jit_toolchain.cpp); throws std::runtime_error when libnvrtc is no file
  // with a build ID and cannot be loaded.
  static NvrtcToolchain const& of_build();
};

// A toolchain from the options, with its NVRTC's version in its identity.
NvrtcToolchain make_nvrtc_toolchain(std::vector<std::string> options);

// The loaded NVRTC's version ("13.0"), or nullopt when libnvrtc cannot be loaded.
std::optional<std::string> nvrtc_version();

// Whether there is a libnvrtc to compile with, without loading a file with a build ID (it is taken
// to load; nvrtc_compile says so if it does not).
bool nvrtc_available();

struct Cubin {
  std::string image;                       // the ELF, for cuLibraryLoadData
  std::vector<std::string> lowered_names;  // of the kernels asked for, in order
  std::string log;                         // NVRTC's warnings, if any
  double seconds = 0;                      // wall time of the compile
};

// Compiles `source` (`name` in NVRTC's messages) with `toolchain`; `kernels` are name expressions
// of the __global__ function template instances to keep and lower (nvrtcAddNameExpression), e.g.
// "ns::kernel<ns::Config<1>>". Throws std::runtime_error with NVRTC's log when it fails or cannot
// be loaded.
Cubin nvrtc_compile(NvrtcToolchain const& toolchain, std::string const& source,
                    std::string const& name, std::vector<std::string> const& kernels);

// Writes the image of `cubin` to `path` (a file of a kernel cache entry: what ts::LoadedKernel
// loads); throws std::runtime_error when it cannot.
void write_cubin(std::filesystem::path const& path, Cubin const& cubin);

// The bytes of the global `symbol` in `cubin` (an ELF image), read from the file, without a GPU:
// what a device variable was initialized with. nullopt when the cubin has no such symbol or is no
// 64-bit ELF image.
std::optional<std::string> cubin_symbol(std::string const& cubin, std::string const& symbol);

}  // namespace warploom::jit
