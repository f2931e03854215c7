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
  std::string nvcc;  // $WARPLOOM_NVCC, else the build's CUDA compiler (or host_of_build's)
  std::vector<std::string> flags;  // everything but the source and output
  // What a cache key needs to tell toolchains apart, without a path: the toolkit's version file,
  // the host compiler, and every flag with its include directories as `<root N>` and any other
  // absolute path by its file name. The same build in another folder, or on another machine with
  // the same toolkit, has the same identity.
  std::string identity;
  // The include directories of `flags`, in order (`-I`, `-isystem`): the kernel cache records the
  // headers under them relative to them (KernelCache), so that a key without paths still checks
  // the headers of this build's own folders.
  std::vector<std::filesystem::path> roots;
  // The version of the toolkit of `nvcc` (toolkit_version), also in `identity`; host_of_build's
  // is the CUDA headers' toolkit.
  std::string toolkit_version;

  // The build's toolchain (generated: jit_toolchain.cpp), the toolkit's version (toolkit_version)
  // read when first asked (a toolkit updated in place is a new toolchain).
  static Toolchain const& of_build();
  // The build's host compiler (`nvcc` names it) with the flags that compile host code against the
  // kernels' headers and link the CUDA runtime: for a launcher of a kernel compiled apart. Not nvcc
  // with -x c++: nvcc defines __NVCC__ for the host compiler too, and CCCL then takes the host
  // pass for a CUDA one.
  static Toolchain const& host_of_build();
};

// The version of the toolkit `nvcc` (a path) belongs to, for Toolchain::identity: its version.json
// (beside bin/, every component's version), else the output of `nvcc --version`, remembered in the
// kernel cache folder by nvcc's path, size and modification time so that a process need not spawn
// nvcc to look an entry up.
std::string toolkit_version(std::string const& nvcc);

// `-L` flags for the library folders of the toolkit whose compiler is `nvcc` (a path) that hold
// the CUDA runtime (lib64, targets/<arch>/lib, lib), on this machine: host_of_build links a
// launcher against the runtime of the toolkit that runs, also where the build's own folder (made
// on another machine) does not exist here. Empty where nvcc is no path to a toolkit.
std::vector<std::string> toolkit_library_flags(std::string const& nvcc);

// The identity of compiler flags: one line each, an include directory (-I, -isystem) as
// `<root N>` with the directory appended to `roots`, a library folder (-L) left out, any other
// absolute path by its file name.
std::string flags_identity(std::vector<std::string> const& flags,
                           std::vector<std::filesystem::path>& roots);

// A toolchain from its parts: `identity` and `roots` derived from them as described above.
Toolchain make_toolchain(std::string nvcc, std::vector<std::string> flags,
                         std::string const& toolkit_version, std::string const& host_compiler);

// The kernel cache key of `source` compiled by `toolchain` and linked as `link_identity` says
// (the libraries it links, by name and build): `name` (readable, for the cache directory's
// listing) and a hash of all three — no paths, no times.
std::string cache_key(std::string const& name, std::string const& source,
                      Toolchain const& toolchain, std::vector<std::string> const& link_identity);

// What a source is: CUDA (host and device code, for nvcc), or C++ for the host compiler alone
// (a launcher of a kernel compiled apart, launch.cuh; Toolchain::host_of_build).
enum class SourceLanguage { Cuda, Cxx };

// Compiles `source` into the shared object `output`, linked with `link_flags`; returns the headers
// it included (nvcc -MD). Throws std::runtime_error with the compiler's output on failure.
std::vector<std::filesystem::path> compile_shared_object(
    Toolchain const& toolchain, std::string const& source, std::filesystem::path const& output,
    std::vector<std::string> const& link_flags, SourceLanguage language = SourceLanguage::Cuda);

// The headers a CUDA `source` includes, host and device passes (nvcc -M), without compiling it:
// the dependencies of a kernel another compiler (NVRTC) compiles from it, which lists none. Scratch
// files go to `scratch`. Throws std::runtime_error with nvcc's output on failure.
std::vector<std::filesystem::path> list_includes(Toolchain const& toolchain,
                                                 std::string const& source,
                                                 std::filesystem::path const& scratch);

}  // namespace warploom::jit
