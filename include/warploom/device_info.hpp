// warploom/device_info.hpp
//
// The facts a result needs to be reproducible, and the architecture check every program runs
// before launching: a kernel built for sm_90a is refused on any other GPU with a message naming
// both versions.
#pragma once

#include <optional>
#include <string>

namespace warploom {

struct DeviceInfo {
  bool present = false;  // a CUDA device is usable
  std::string name;
  int major = 0, minor = 0;
  int sm_count = 0;
  long long l2_bytes = 0;
  long long smem_optin_bytes = 0;
  int driver_version = 0;  // e.g. 13000
  int runtime_version = 0;
  std::string why_absent;  // set when !present
};

// Queries device 0; never throws (a machine without a GPU yields present == false).
DeviceInfo query_device();

// Empty when `d` can run sm_90a code; otherwise the reason, e.g. "this build targets sm_90a
// (Hopper); device 0 (NVIDIA A100) is sm_80".
std::string architecture_mismatch(DeviceInfo const& d);

// For programs that verify, then run when they can: prints "not run: <why>" and returns the exit
// code (0 without a GPU: verifying and building is all such a machine can do; 1 on a GPU of
// another architecture), or nullopt when `d` can run sm_90a kernels.
std::optional<int> explain_if_not_runnable(DeviceInfo const& d);

}  // namespace warploom
