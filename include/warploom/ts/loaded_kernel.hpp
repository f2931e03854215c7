// warploom/ts/loaded_kernel.hpp
//
// A kernel handed to its launcher as a cubin (one NVRTC compiled: src/jit/nvrtc.hpp), loaded into
// the process at its first launch and launched by handle (ts::KernelHandle, launch.hpp):
//
//   ts::LoadedKernel<Params> kernel;            // in the launcher
//   kernel.set(cubin, lowered_name);            // by whoever compiled it, before the first launch
//   ts::launch<Manager>(proof, kernel.get(), grid, stream, params);
//
// Loading waits for the first launch, so that a process without a GPU can compile, cache and hand
// over kernels (CI, `warploom precompile`); cudaLibraryLoadData loads the cubin once for every
// device and context of the process.
#pragma once

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
  // The cubin and the lowered name of its kernel (nvrtcGetLoweredName). Once, before get().
  void set(std::string cubin, std::string name) {
    std::lock_guard const lock(mutex_);
    cubin_ = std::move(cubin);
    name_ = std::move(name);
  }

  // The kernel's handle, its cubin loaded at the first call (a failed load throws and is tried
  // again by the next call).
  KernelHandle<Params...> get() {
    std::lock_guard const lock(mutex_);
    if (handle_.kernel != nullptr) return handle_;
    if (cubin_.empty())
      throw std::logic_error("ts::LoadedKernel: launched before its cubin was set");
    cudaLibrary_t library = nullptr;
    WL_CUDA_CHECK(
        cudaLibraryLoadData(&library, cubin_.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    cudaKernel_t kernel = nullptr;
    WL_CUDA_CHECK(cudaLibraryGetKernel(&kernel, library, name_.c_str()));
    handle_.kernel = kernel;
    return handle_;
  }

 private:
  std::mutex mutex_;
  std::string cubin_, name_;
  KernelHandle<Params...> handle_;
};

}  // namespace warploom::ts
