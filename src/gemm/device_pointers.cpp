// src/gemm/device_pointers.cpp
//
// Whether the device can reach the memory of every pointer a GEMM follows. A host (malloc) pointer
// passed for an operand passed every other check and ended the context with an illegal address
// (issue 15's probe), which poisons every later call in the process: the driver can say what the
// memory is before the launch, at the cost of one query per pointer.
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "kernel_arguments.hpp"

namespace warploom::gemm {

namespace {

// Whether the current device reads pageable host memory directly (HMM or ATS): then malloc'd
// memory is as good as a device allocation to it.
bool pageable_memory_access() {
  int device = 0, access = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&access, cudaDevAttrPageableMemoryAccess, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return access != 0;
}

std::string hex(void const* p) {
  std::ostringstream s;
  s << p;
  return s.str();
}

// The reason the device cannot reach `p`, or "".
std::string unreachable(void const* p, bool& pageable_known, bool& pageable) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    // No verdict (no device, a driver that cannot say): the launch reports what it finds.
    (void)cudaGetLastError();
    return "";
  }
  switch (attr.type) {
    case cudaMemoryTypeDevice:
    case cudaMemoryTypeManaged:
      return "";
    case cudaMemoryTypeHost:
      // Pinned memory is read through its device mapping, which under unified addressing is the
      // host address itself; cudaHostRegister'd memory without it is not.
      if (attr.devicePointer == p) return "";
      return " is pinned host memory that the device sees at another address (" +
             hex(attr.devicePointer) + "): pass cudaHostGetDevicePointer's address";
    case cudaMemoryTypeUnregistered:
    default:
      if (!pageable_known) {
        pageable = pageable_memory_access();
        pageable_known = true;
      }
      if (pageable) return "";
      return " is host memory the device cannot read (malloc, new, a stack or static array): "
             "allocate it with cudaMalloc or cudaMallocManaged, or pin it with cudaMallocHost";
  }
}

// While a CUDA graph is being captured in its default (global) mode, the runtime refuses
// "potentially unsafe" calls, and a refused call invalidates the capture. A pointer query enqueues
// nothing and leaves the graph as it is, so this thread relaxes the rule for the queries only
// (the push-pop use cudaThreadExchangeStreamCaptureMode's documentation gives): gemm() stays
// capturable in every mode.
class RelaxedCaptureMode {
 public:
  RelaxedCaptureMode() { (void)cudaThreadExchangeStreamCaptureMode(&mode_); }
  ~RelaxedCaptureMode() { (void)cudaThreadExchangeStreamCaptureMode(&mode_); }
  RelaxedCaptureMode(RelaxedCaptureMode const&) = delete;
  RelaxedCaptureMode& operator=(RelaxedCaptureMode const&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

// "`name` = address, why the device cannot reach it", or "" for a null pointer or one it reaches.
std::string refusal(char const* name, void const* p, bool& pageable_known, bool& pageable) {
  if (p == nullptr) return "";
  std::string const why = unreachable(p, pageable_known, pageable);
  return why.empty() ? "" : std::string(name) + " = " + hex(p) + why;
}

}  // namespace

void check_device_pointers(GemmArguments const& r) {
  GemmEpilogue const& e = r.epilogue;
  bool const reads_c = r.beta != 0.0f || r.beta_ptr != nullptr;  // (beta_ptr: maybe)
  std::vector<std::pair<char const*, void const*>> const pointers = {
      {"a.data", r.a.data},
      {"b.data", r.b.data},
      {"c.data", reads_c ? r.c.data : nullptr},  // unread when beta == 0
      {"d", r.d},
      {"alpha_ptr", r.alpha_ptr},
      {"beta_ptr", r.beta_ptr},
      {"scale_a", r.scale_a},
      {"scale_b", r.scale_b},
      {"scale_d", r.scale_d},
      {"amax_d", r.amax_d},
      {"epilogue.bias", e.bias},
      {"epilogue.row_scale", e.row_scale},
      {"epilogue.col_scale", e.col_scale},
      {"epilogue.residual.data", e.residual.data},
      {"epilogue.pre_activation.data", e.pre_activation.data}};
  bool pageable_known = false, pageable = false;
  RelaxedCaptureMode const relaxed;
  for (auto const& [name, p] : pointers) {
    std::string const refused = refusal(name, p, pageable_known, pageable);
    if (refused.empty()) continue;
    // cuBLAS's default pointer mode takes alpha and beta from the host: a caller used to it may
    // pass a host address here.
    std::string_view const n = name;
    std::string const host_value =
        n == "alpha_ptr" || n == "beta_ptr"
            ? " (a value on the host goes in " + std::string(n.substr(0, n.size() - 4)) + ")"
            : "";
    throw std::invalid_argument("gemm: " + refused + host_value);
  }
}

void check_device_pointer(char const* name, void const* p) {
  bool pageable_known = false, pageable = false;
  RelaxedCaptureMode const relaxed;
  if (std::string const refused = refusal(name, p, pageable_known, pageable); !refused.empty())
    throw std::invalid_argument(refused);
}

}  // namespace warploom::gemm
