// src/ops/device.hpp
//
// The architecture check of a plan (warploom/ops/gemm.hpp): which device a plan is made on and
// runs on, and the refusals that name both SM versions. The checks are plain functions of the
// device's facts, so CPU tests give them any device.
#pragma once

#include <atomic>
#include <optional>
#include <string>

#include "warploom/ops/gemm.hpp"

namespace warploom::ops::detail {

struct DeviceFacts {
  bool present = false;
  int ordinal = -1;
  int major = 0, minor = 0;
  std::string name{};        // e.g. "NVIDIA H200"
  std::string why_absent{};  // when !present
};

// The current CUDA device (cudaGetDevice, cudaGetDeviceProperties); never throws: without a usable
// device, present is false and why_absent says why.
DeviceFacts current_device();

// The architecture a plan asked for `asked` is made for on `device`: `asked`, or the device's when
// unset. Throws std::invalid_argument when this build has no kernels for it, when there is neither
// an architecture nor a device, or when a device is present and is another architecture ("plan
// made for sm_90a; the device is sm_80 (NVIDIA A100)").
Arch plan_arch(std::optional<Arch> asked, DeviceFacts const& device);

// "" when a plan for `arch` runs on `device`, else why not (a device of another architecture, or
// none).
std::string run_refusal(Arch arch, DeviceFacts const& device);

// The current device, checked against a plan's architecture the first time a run sees it: after
// that, a run costs one cudaGetDevice (current_device's property query is the slow path, taken
// again only when the current device changes). Copyable, as the plans are.
class RunDevice {
 public:
  // The current device's ordinal (-1 when none is current); throws std::invalid_argument with
  // run_refusal's reason when it cannot run a plan made for `arch`.
  int checked(Arch arch) const;

  RunDevice() = default;
  RunDevice(RunDevice const& o) : checked_(o.checked_.load()) {}
  RunDevice& operator=(RunDevice const& o) {
    checked_.store(o.checked_.load());
    return *this;
  }

 private:
  mutable std::atomic<int> checked_{-1};  // the device last found of the plan's architecture
};

}  // namespace warploom::ops::detail
