// warploom/ts/loaded_kernel.hpp
//
// A kernel handed to its launcher as a cubin file of that one kernel (one NVRTC compiled, kept in
// the kernel cache: src/jit/nvrtc.hpp), loaded into the process at its first launch and launched
// by handle (ts::KernelHandle, launch.hpp):
//
//   ts::LoadedKernel<Params> kernel;            // in the launcher
//   kernel.set(cubin_path);                     // by whoever compiled it, before the first launch
//   ts::launch<Manager>(proof, kernel.get(), grid, stream, params);
//
// Loading waits for the first launch, so that a process without a GPU can compile, cache and hand
// over kernels (CI, `warploom precompile`), and a process that only looks a kernel up in the cache
// never reads the cubin (a load from the cache stays within its 5 ms); cudaLibraryLoadFromFile
// loads it once for every device and context of the process. The kernel is the file's only one,
// found by enumeration: its lowered name need not travel with it.
#pragma once

#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

#include "warploom/cuda_check.hpp"
#include "warploom/ts/launch.hpp"

namespace warploom::ts {

template <class... Params>
class LoadedKernel {
 public:
  // The cubin file. Once, before get().
  void set(std::filesystem::path cubin) {
    std::lock_guard const lock(mutex_);
    cubin_ = std::move(cubin);
  }

  // The kernel's handle, its cubin loaded at the first call (a failed load throws and is tried
  // again by the next call).
  KernelHandle<Params...> get() {
    std::lock_guard const lock(mutex_);
    if (handle_.kernel != nullptr) return handle_;
    if (cubin_.empty())
      throw std::logic_error("ts::LoadedKernel: launched before its cubin was set");
    cudaLibrary_t library = nullptr;
    WL_CUDA_CHECK(cudaLibraryLoadFromFile(&library, cubin_.c_str(), nullptr, nullptr, 0, nullptr,
                                          nullptr, 0));
    unsigned int count = 0;
    WL_CUDA_CHECK(cudaLibraryGetKernelCount(&count, library));
    if (count != 1) {
      cudaLibraryUnload(library);
      throw std::runtime_error("ts::LoadedKernel: " + cubin_.string() + " holds " +
                               std::to_string(count) + " kernels, not one");
    }
    cudaKernel_t kernel = nullptr;
    WL_CUDA_CHECK(cudaLibraryEnumerateKernels(&kernel, 1, library));
    handle_.kernel = kernel;
    return handle_;
  }

 private:
  std::mutex mutex_;
  std::filesystem::path cubin_;
  KernelHandle<Params...> handle_;
};

}  // namespace warploom::ts
