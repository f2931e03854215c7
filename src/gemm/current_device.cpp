// src/gemm/current_device.cpp — the current device's facts (current_device.hpp).
#include "current_device.hpp"

#include <array>
#include <atomic>

#include <cuda_runtime_api.h>

namespace warploom::gemm {
namespace {

// The current device's ordinal, or -1 without one.
int current_device() {
  int device = 0;
  if (cudaGetDevice(&device) == cudaSuccess) return device;
  (void)cudaGetLastError();  // not a sticky error: clear it for the next call
  return -1;
}

// An attribute of `device`, or 0 where the query fails (the error cleared).
int attribute(cudaDeviceAttr what, int device) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, what, device) == cudaSuccess) return value;
  (void)cudaGetLastError();
  return 0;
}

}  // namespace

int current_sm_count() {
  int const device = current_device();
  int const count = device < 0 ? 0 : attribute(cudaDevAttrMultiProcessorCount, device);
  return count > 0 ? count : kMeasuredSmCount;
}

double current_dram_bytes_per_s() {
  // Asked once per device: the memory clock's query costs ~0.3 ms (measured on the H100: every
  // gemm() call 0.6 ms longer when it was asked per call), and the bandwidth never changes.
  static std::array<std::atomic<double>, 64> known{};  // 0: not asked yet
  int const device = current_device();
  if (device < 0 || device >= static_cast<int>(known.size())) return kMeasuredDramBytesPerS;
  double bytes = known[device].load(std::memory_order_relaxed);
  if (bytes == 0) {
    int const khz = attribute(cudaDevAttrMemoryClockRate, device);
    int const bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
    bytes = khz > 0 && bits > 0 ? 2.0 * khz * 1e3 * (bits / 8.0)  // double data rate
                                : kMeasuredDramBytesPerS;
    known[device].store(bytes, std::memory_order_relaxed);
  }
  return bytes;
}

}  // namespace warploom::gemm
