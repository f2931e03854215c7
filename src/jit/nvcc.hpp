// src/jit/nvcc.hpp
//
// Compiling a generated CUDA translation unit into a shared object at run time, with the compiler,
// flags and include directories the build itself used (recorded when it was configured, so a JIT
// instance is the same code the build would have compiled). nvcc is the compiler; NVRTC would
// compile faster but needs the host-side launchers to be compiled apart from the kernels.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace warploom::jit {

struct Toolchain {
  std::string nvcc;                // $WARPLOOM_NVCC, else the build's CUDA compiler
  std::vector<std::string> flags;  // everything but the source and output
  std::string identity;            // what a cache key needs to tell toolchains apart

  // The build's toolchain (generated: jit_toolchain.cpp). The identity holds nvcc's path, the
  // toolkit's version.json (read when first asked, so a toolkit updated in place is a new one),
  // the host compiler and every flag.
  static Toolchain const& of_build();
};

// The kernel cache key of `source` compiled by `toolchain` and linked with `link_flags`: `name`
// (readable, for the cache directory's listing) and a hash of all three — no paths of the cache,
// no times.
std::string cache_key(std::string const& name, std::string const& source,
                      Toolchain const& toolchain, std::vector<std::string> const& link_flags);

// Compiles `source` into the shared object `output`, linked with `link_flags`; returns the headers
// it included (nvcc -MD). Throws std::runtime_error with the compiler's output on failure.
std::vector<std::filesystem::path> compile_shared_object(
    Toolchain const& toolchain, std::string const& source, std::filesystem::path const& output,
    std::vector<std::string> const& link_flags);

}  // namespace warploom::jit
