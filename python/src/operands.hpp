// python/src/operands.hpp
//
// A run's operands as the plan takes them (ops::TensorView), from what the Python side hands over
// for each tensor: (owner, descriptor), where the descriptor is the DLPack capsule the owner's
// __dlpack__ returned (torch, CuPy, JAX, NumPy ...) or its __array_interface__ dict (NumPy without
// DLPack's read-only limits). Device memory is viewed where it lies, strides and all; host memory
// (CPU or pinned) is copied into a device buffer for the run and, for D, back after it, as the
// seed's notebooks expect of NumPy arrays.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <cuda_runtime_api.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>  // nb::cast<std::string>

#include "warploom/ops/gemm.hpp"
#include "warploom/ops/tensor.hpp"

namespace warploom::python {

// python::RunOperands
//
// The operands of one run. Keeps every owner and capsule alive (a producer's memory stays valid
// until the run is waited for) and owns the device copies of host arrays. wait() synchronizes the
// stream, copies host outputs back and frees the copies; the destructor does it for a run with
// host copies that nobody waited for, so a host output is never left unwritten (a run on device
// tensors alone is dropped without waiting).
class RunOperands {
 public:
  explicit RunOperands(cudaStream_t stream) : stream_(stream) {}
  ~RunOperands();
  RunOperands(RunOperands const&) = delete;
  RunOperands& operator=(RunOperands const&) = delete;

  // The view of `operand`, an (owner, descriptor) tuple, as argument `name`; `output`: the run
  // writes it (a host copy goes back, and a read-only host array is refused); `vector`: a 1-D
  // tensor is taken as one row (an epilogue's bias or scale).
  ops::TensorView add(nanobind::handle operand, char const* name, bool output, bool vector = false);

  // Waits for the stream, copies host outputs back, frees the device copies; idempotent. Releases
  // the GIL while it waits.
  void wait();
  bool waited() const { return waited_; }
  // How many operands were copied from host memory to the device (a NumPy array's copy lives as
  // long as this run).
  std::size_t host_copies() const { return copies_.size(); }
  // For a run that failed before it launched: frees the copies and drops the owners, copying
  // nothing back.
  void discard();

 private:
  struct HostCopy {
    void* device = nullptr;
    void* host = nullptr;
    std::size_t bytes = 0;
    bool copy_back = false;
  };
  void release();  // frees the copies, drops the owners (no copy back)

  cudaStream_t stream_;
  std::vector<nanobind::object> owners_;
  std::vector<HostCopy> copies_;
  bool waited_ = false;
};

// python::EpilogueOperands
//
// A run's epilogue tensors as Python hands them over: (owner, descriptor) tuples, or None for a
// term the run does not have. views() adds them to the run's operands (pre_activation as an
// output) and returns what ops::Gemm::run takes; the plan checks them against the problem.
struct EpilogueOperands {
  nanobind::object bias = nanobind::none();
  gemm::Broadcast bias_broadcast = gemm::Broadcast::PerColumn;
  nanobind::object row_scale = nanobind::none(), col_scale = nanobind::none();
  nanobind::object residual = nanobind::none(), pre_activation = nanobind::none();

  ops::EpilogueTensors views(RunOperands& operands) const;
};

// torch's dtype table ({torch dtype: (DLPack code, bits)}), torch.strided, the DLPack export to
// fall back on, torch.Tensor and torch's current-stream query (device index -> handle; None where
// this torch has none), from warploom/_operands.py; after it, an operand (x, torch_view_tag()) is a
// torch CUDA tensor on the run's own stream that the binding reads attribute by attribute.
void register_torch(nanobind::object dtypes, nanobind::object strided, nanobind::object fallback,
                    nanobind::object tensor, nanobind::object current_stream);
nanobind::handle torch_view_tag();

// torch's current stream on the first tensor's device when every tensor but None is a torch CUDA
// tensor (and torch is registered with its stream query); nothing otherwise. The run's fast path:
// what warploom/_operands.py's stream_handle and run_operand decide for such tensors, without
// their Python calls.
std::optional<std::uintptr_t> torch_current_stream(std::span<nanobind::handle const> tensors);

// The view of an example tensor (a plan's construction reads its dtype and strides only; its
// memory, host or device, is never read): an (owner, descriptor) tuple as RunOperands::add takes.
ops::TensorView example_view(nanobind::handle operand, char const* name);

}  // namespace warploom::python
