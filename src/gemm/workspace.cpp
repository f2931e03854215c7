// src/gemm/workspace.cpp — StreamWorkspace (workspace.hpp).
#include "workspace.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <mutex>
#include <stdexcept>

#include "warploom/cuda_check.hpp"

namespace warploom::gemm {
namespace {

// The library's pool on `device`, created on first use with the release threshold at its maximum.
// Never destroyed: it lives as long as the process (destroying it at exit may follow the end of
// the device's context).
cudaMemPool_t workspace_pool(int device) {
  static std::mutex mutex;
  static std::array<cudaMemPool_t, 64> pools{};
  if (device < 0 || device >= static_cast<int>(pools.size()))
    throw std::logic_error("gemm: internal error: the workspace pools cover devices 0 to 63");
  std::lock_guard<std::mutex> lock(mutex);
  cudaMemPool_t& pool = pools[static_cast<std::size_t>(device)];
  if (pool == nullptr) {
    // The first call may come while the caller's stream is being captured, where creating a pool
    // is a prohibited call (cudaErrorStreamCaptureUnsupported, found by compute-sanitizer on the
    // H200): this thread's capture mode is relaxed for the creation, then restored.
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    WL_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaError_t e = cudaMemPoolCreate(&pool, &props);
    std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
    if (e == cudaSuccess) e = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    WL_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    if (e != cudaSuccess && pool != nullptr) {
      (void)cudaMemPoolDestroy(pool);
      pool = nullptr;
    }
    WL_CUDA_CHECK(e);
  }
  return pool;
}

}  // namespace

StreamWorkspace::StreamWorkspace(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
  int device = 0;
  WL_CUDA_CHECK(cudaGetDevice(&device));
  WL_CUDA_CHECK(cudaMallocFromPoolAsync(&data_, bytes, workspace_pool(device), stream));
}

StreamWorkspace::~StreamWorkspace() {
  (void)cudaFreeAsync(data_, stream_);  // a destructor does not throw; a failure here is sticky
}

}  // namespace warploom::gemm
