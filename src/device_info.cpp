// src/device_info.cpp
#include "warploom/device_info.hpp"

#include <cstdio>

#include <cuda_runtime_api.h>

namespace warploom {

DeviceInfo query_device() {
  DeviceInfo d;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    d.why_absent = e != cudaSuccess
                       ? std::string("no usable CUDA device (") + cudaGetErrorString(e) + ")"
                       : "no CUDA device";
    (void)cudaGetLastError();
    return d;
  }
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    d.why_absent = "cudaGetDeviceProperties failed";
    return d;
  }
  d.present = true;
  d.name = p.name;
  d.major = p.major;
  d.minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize;
  d.smem_optin_bytes = static_cast<long long>(p.sharedMemPerBlockOptin);
  cudaDriverGetVersion(&d.driver_version);
  cudaRuntimeGetVersion(&d.runtime_version);
  return d;
}

std::string architecture_mismatch(DeviceInfo const& d) {
  if (!d.present) return d.why_absent;
  if (d.major == 9 && d.minor == 0) return {};
  return "this build targets sm_90a (Hopper); device 0 (" + d.name + ") is sm_" +
         std::to_string(d.major) + std::to_string(d.minor);
}

std::optional<int> explain_if_not_runnable(DeviceInfo const& d) {
  std::string const why = architecture_mismatch(d);
  if (why.empty()) return std::nullopt;
  std::printf("not run: %s\n", why.c_str());
  return d.present ? 1 : 0;
}

}  // namespace warploom
