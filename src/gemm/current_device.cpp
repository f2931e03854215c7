// src/gemm/current_device.cpp — the current device's facts (current_device.hpp).
#include "current_device.hpp"

#include <cuda_runtime_api.h>

namespace warploom::gemm {
namespace {

// The attribute of the current device, or `fallback` without one; clears the (not sticky) error a
// failed query leaves, for the next call.
int current_attribute(cudaDeviceAttr attribute, int fallback) {
  int device = 0, value = 0;
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetAttribute(&value, attribute, device) == cudaSuccess && value > 0)
    return value;
  (void)cudaGetLastError();
  return fallback;
}

}  // namespace

int current_sm_count() {
  return current_attribute(cudaDevAttrMultiProcessorCount, kMeasuredSmCount);
}

double current_dram_bytes_per_s() {
  int const khz = current_attribute(cudaDevAttrMemoryClockRate, 0);
  int const bits = current_attribute(cudaDevAttrGlobalMemoryBusWidth, 0);
  if (khz == 0 || bits == 0) return kMeasuredDramBytesPerS;
  return 2.0 * khz * 1e3 * (bits / 8.0);  // double data rate
}

}  // namespace warploom::gemm
