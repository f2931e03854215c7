// warploom/cuda_check.hpp
//
// One check per CUDA API family, decoding the error into its name and text and naming the call:
//   WL_CUDA_CHECK(cudaMemcpy(...));      // throws warploom::CudaError
//   WL_CU_CHECK(cuTensorMapEncodeTiled(...));
#pragma once

#include <stdexcept>
#include <string>

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace warploom {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t e, char const* call, char const* file,
                                          int line) {
  throw CudaError(std::string(call) + " failed: " + cudaGetErrorName(e) + " (" +
                  cudaGetErrorString(e) + ") at " + file + ":" + std::to_string(line));
}

[[noreturn]] inline void throw_cu_error(CUresult e, char const* call, char const* file, int line) {
  // The driver's cuGetErrorName would need libcuda at link time; the number is in the CUDA docs.
  throw CudaError(std::string(call) + " failed: CUresult " + std::to_string(static_cast<int>(e)) +
                  " at " + file + ":" + std::to_string(line));
}

}  // namespace detail
}  // namespace warploom

#define WL_CUDA_CHECK(call)                                                        \
  do {                                                                             \
    cudaError_t wl_status_ = (call);                                               \
    if (wl_status_ != cudaSuccess)                                                 \
      ::warploom::detail::throw_cuda_error(wl_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define WL_CU_CHECK(call)                                                        \
  do {                                                                           \
    CUresult wl_status_ = (call);                                                \
    if (wl_status_ != CUDA_SUCCESS)                                              \
      ::warploom::detail::throw_cu_error(wl_status_, #call, __FILE__, __LINE__); \
  } while (0)
