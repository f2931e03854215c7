// src/ops/device.cpp — the device a plan is made on and runs on.
#include "device.hpp"

#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

namespace warploom::ops::detail {
namespace {

// This build's kernels: sm_90a code (-gencode arch=compute_90a), which runs on compute
// capability 9.0 alone (the "a" features are not forward compatible).
constexpr Arch kBuiltFor = Arch::Sm90;

int compute_capability(DeviceFacts const& d) {
  return d.major * 10 + d.minor;
}

std::string device_text(DeviceFacts const& d) {
  return fmt::format("sm_{}{} ({})", d.major, d.minor, d.name);
}

}  // namespace

DeviceFacts current_device() {
  DeviceFacts d;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    d.why_absent = e != cudaSuccess
                       ? fmt::format("no usable CUDA device: {}", cudaGetErrorString(e))
                       : std::string("no CUDA device");
    (void)cudaGetLastError();  // the error is reported here; later CUDA calls must not see it
    return d;
  }
  cudaDeviceProp p{};
  if ((e = cudaGetDevice(&d.ordinal)) != cudaSuccess ||
      (e = cudaGetDeviceProperties(&p, d.ordinal)) != cudaSuccess) {
    d.why_absent = fmt::format("cannot query the current CUDA device: {}", cudaGetErrorString(e));
    (void)cudaGetLastError();
    return d;
  }
  d.present = true;
  d.major = p.major;
  d.minor = p.minor;
  d.name = p.name;
  return d;
}

Arch plan_arch(std::optional<Arch> asked, DeviceFacts const& device) {
  if (asked && *asked != kBuiltFor)
    throw std::invalid_argument(
        fmt::format("Gemm: arch = {}: this build's GEMM kernels are compiled for {} only",
                    to_string(*asked), to_string(kBuiltFor)));
  if (!asked && !device.present)
    throw std::invalid_argument(fmt::format(
        "Gemm: no architecture to plan for: {} (to make a plan without a device, name its "
        "architecture: GemmOptions::arch = Arch::Sm90 in C++, cc=90 in Python)",
        device.why_absent));
  if (device.present && compute_capability(device) != static_cast<int>(kBuiltFor))
    throw std::invalid_argument(
        asked ? fmt::format("Gemm: plan made for {}; the device is {}", to_string(*asked),
                            device_text(device))
              : fmt::format("Gemm: the device is {}; this build's GEMM kernels run on {} only",
                            device_text(device), to_string(kBuiltFor)));
  return kBuiltFor;
}

std::string run_refusal(Arch arch, DeviceFacts const& device) {
  if (!device.present) return fmt::format("Gemm.run: {}", device.why_absent);
  if (compute_capability(device) != static_cast<int>(arch))
    return fmt::format("Gemm.run: plan made for {}; the device is {}", to_string(arch),
                       device_text(device));
  return "";
}

int RunDevice::checked(Arch arch) const {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    device = -1;
  }
  if (device < 0 || device != checked_.load(std::memory_order_relaxed)) {
    DeviceFacts const d = current_device();
    if (std::string const why = run_refusal(arch, d); !why.empty())
      throw std::invalid_argument(why);
    checked_.store(d.ordinal, std::memory_order_relaxed);
  }
  return device;
}

}  // namespace warploom::ops::detail
