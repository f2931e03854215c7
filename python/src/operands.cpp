// python/src/operands.cpp — tensors from Python as plan views (operands.hpp).
#include "operands.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include <dlpack/dlpack.h>
#include <fmt/format.h>

#include "warploom/ops/dlpack.hpp"

namespace nb = nanobind;

namespace warploom::python {
namespace {

// kDLCUDAHost (pinned host memory) as DLPack numbers it; named here because it is read as host
// memory, which the GEMM does not read (from_dlpack refuses it) but a copy can.
constexpr int kDlCudaHost = 3;

[[noreturn]] void refuse(char const* name, std::string const& rule) {
  throw std::invalid_argument(fmt::format("Gemm.run: argument `{}` {}", name, rule));
}

void check_cuda(cudaError_t e, char const* name, std::string_view what) {
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();  // reported here; later calls must not see it
  throw std::runtime_error(
      fmt::format("Gemm.run: argument `{}` is host memory, copied to the GPU "
                  "for the run: {} failed: {} ({})",
                  name, what, cudaGetErrorName(e), cudaGetErrorString(e)));
}

// A tensor as DLPack describes it, with storage for the shape and strides a host array's
// __array_interface__ gives (a capsule's own arrays live as long as the capsule).
struct Described {
  DLTensor t{};
  std::vector<std::int64_t> shape, strides;
  bool read_only = false;
};

// NumPy's typestr ("<f2": little-endian, float, 2 bytes) as a DLPack dtype. NumPy has no bfloat16
// or float8 of its own: those come as torch (or any DLPack) tensors.
DLDataType dtype_of_typestr(std::string const& typestr, char const* name) {
  bool const little =
      !typestr.empty() && (typestr[0] == '<' || typestr[0] == '|' || typestr[0] == '=');
  if (little && typestr.size() == 3 && typestr[1] == 'f') {
    if (typestr[2] == '2') return DLDataType{kDLFloat, 16, 1};
    if (typestr[2] == '4') return DLDataType{kDLFloat, 32, 1};
    if (typestr[2] == '8') return DLDataType{kDLFloat, 64, 1};
  }
  throw ops::DtypeError(fmt::format(
      "Gemm.run: argument `{}` is a host array of dtype '{}', not a GEMM element type a host array "
      "can hold: float16 ('<f2'), float32 ('<f4') or float64 ('<f8') (NumPy has no bfloat16 or "
      "float8: pass those as torch tensors)",
      name, typestr));
}

// The __array_interface__ dict of a host array (version 3: data, typestr, shape, strides).
void describe_array_interface(nb::dict ai, char const* name, Described& d) {
  nb::object data = ai["data"];
  if (!nb::isinstance<nb::tuple>(data))
    refuse(name,
           "has an __array_interface__ without a data pointer (a buffer-protocol array); "
           "pass a NumPy array or a DLPack tensor");
  nb::tuple pointer = nb::borrow<nb::tuple>(data);
  d.t.data = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(pointer[0]));
  d.read_only = nb::cast<bool>(pointer[1]);
  d.t.dtype = dtype_of_typestr(nb::cast<std::string>(ai["typestr"]), name);
  d.t.device = {kDLCPU, 0};
  for (nb::handle extent : nb::borrow<nb::tuple>(ai["shape"]))
    d.shape.push_back(nb::cast<std::int64_t>(extent));
  d.t.ndim = static_cast<int>(d.shape.size());
  d.t.shape = d.shape.data();
  if (ai.contains("strides") && !ai["strides"].is_none()) {
    std::int64_t const bytes = d.t.dtype.bits / 8;
    for (nb::handle stride : nb::borrow<nb::tuple>(ai["strides"])) {
      std::int64_t const s = nb::cast<std::int64_t>(stride);
      if (s % bytes != 0)
        refuse(name, fmt::format("has a stride of {} bytes, not a whole number of {}-byte "
                                 "elements; copy it into a contiguous array",
                                 s, bytes));
      d.strides.push_back(s / bytes);
    }
    d.t.strides = d.strides.data();
  }
}

// DLPack 1.3's exchange API table (dlpack.h: DLPackExchangeAPI, the capsule "dlpack_exchange_api"
// a tensor type exposes as __dlpack_c_exchange_api__; torch.Tensor does from 2.10 on). Declared
// here because the header the build takes from Debian (libdlpack-dev) is DLPack 0.6, which has no
// exchange API; only the two entries read are typed, the layout is the specification's.
struct DLPackVersion13 {
  std::uint32_t major, minor;
};
struct DLPackExchangeApiHeader {
  DLPackVersion13 version;
  DLPackExchangeApiHeader* prev_api;
};
struct DLPackExchangeApi {
  DLPackExchangeApiHeader header;
  void* managed_tensor_allocator;
  void* managed_tensor_from_py_object_no_sync;
  void* managed_tensor_to_py_object_no_sync;
  // A non-owning DLTensor of the object (shape and strides the producer's): 0, or -1 with a
  // Python exception set. May be null.
  int (*dltensor_from_py_object_no_sync)(void* py_object, DLTensor* out);
  // The producer's current stream on a device: 0, or -1 with a Python exception set.
  int (*current_work_stream)(int device_type, std::int32_t device_id, void** out_stream);
};

// The exchange API of a tensor type, or null where it has none (or one of another major version).
DLPackExchangeApi const* exchange_api_of(nb::handle type) {
  if (!type.is_valid() || type.is_none()) return nullptr;
  nb::object const capsule = nb::getattr(type, "__dlpack_c_exchange_api__", nb::none());
  if (capsule.is_none() || PyCapsule_IsValid(capsule.ptr(), "dlpack_exchange_api") == 0) {
    PyErr_Clear();
    return nullptr;
  }
  auto const* api = static_cast<DLPackExchangeApi const*>(
      PyCapsule_GetPointer(capsule.ptr(), "dlpack_exchange_api"));
  if (api == nullptr || api->header.version.major != 1 || api->header.version.minor < 3) {
    PyErr_Clear();
    return nullptr;
  }
  return api;
}

// torch's types as warploom/_operands.py registers them the first time it meets torch: for torch
// CUDA tensors on torch's current stream, read here through torch's DLPack exchange API where it
// has one (one C call per tensor), else attribute by attribute (the Python side only tags them: a
// Python function call per tensor costs more than the reads).
struct TorchTypes {
  nb::object dtypes;    // dict: torch dtype -> (DLPack type code, bits)
  nb::object strided;   // torch.strided
  nb::object fallback;  // callable: tensor -> descriptor (its DLPack export), for anything else
  nb::object tensor;    // torch.Tensor
  nb::object current_stream;  // callable: device index -> torch's current stream there, or None
  DLPackExchangeApi const* exchange = nullptr;  // torch.Tensor's, or null
};
TorchTypes& torch_types() {
  static auto* t = new TorchTypes;  // never destroyed: its objects outlive no interpreter
  return *t;
}

// A tagged torch tensor's DLTensor fields, or false when the view does not describe it (a dtype
// outside the table, a layout other than strided): the caller exports it through DLPack instead.
bool describe_torch(nb::handle x, char const* name, Described& d) {
  TorchTypes const& t = torch_types();
  if (!t.dtypes.is_valid())
    refuse(name, "internal error: a torch tensor was tagged before torch was registered");
  if (t.exchange != nullptr && t.exchange->dltensor_from_py_object_no_sync != nullptr) {
    DLTensor view{};
    if (t.exchange->dltensor_from_py_object_no_sync(x.ptr(), &view) == 0) {
      // The shape and strides are torch's, valid while we hold the tensor: copied now.
      d.t = view;
      d.shape.assign(view.shape, view.shape + view.ndim);
      d.t.shape = d.shape.data();
      if (view.strides != nullptr) {
        d.strides.assign(view.strides, view.strides + view.ndim);
        d.t.strides = d.strides.data();
      }
      return true;
    }
    PyErr_Clear();  // not describable this way (a layout DLPack has no word for): the reads decide
  }
  nb::object const dtype = nb::getattr(x, "dtype", nb::none());
  PyObject* const code = PyDict_GetItem(t.dtypes.ptr(), dtype.ptr());  // borrowed
  if (code == nullptr || !x.attr("layout").is(t.strided)) return false;
  nb::tuple const bits = nb::borrow<nb::tuple>(code);
  d.t.data = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(x.attr("data_ptr")()));
  for (nb::handle extent : x.attr("shape")) d.shape.push_back(nb::cast<std::int64_t>(extent));
  for (nb::handle stride : x.attr("stride")()) d.strides.push_back(nb::cast<std::int64_t>(stride));
  d.t.dtype = DLDataType{nb::cast<std::uint8_t>(bits[0]), nb::cast<std::uint8_t>(bits[1]), 1};
  d.t.device = {kDLCUDA, nb::cast<std::int32_t>(x.attr("get_device")())};
  d.t.ndim = static_cast<int>(d.shape.size());
  d.t.shape = d.shape.data();
  d.t.strides = d.strides.data();
  return true;
}

Described describe(nb::handle operand, char const* name, nb::object& exported);

// A tagged torch tensor: read directly, or exported through DLPack (`exported` keeps the pair that
// export made alive as long as the caller needs its shape and strides).
Described describe_tagged(nb::handle x, char const* name, nb::object& exported) {
  Described d;
  if (describe_torch(x, name, d)) return d;
  exported = nb::make_tuple(x, torch_types().fallback(x));
  nb::object unused;
  return describe(exported, name, unused);
}

// The DLTensor of (owner, descriptor): a "dltensor" capsule, an __array_interface__ dict, a torch
// tensor's tag (describe_torch), or (capsule, DLPack type code)
// for fp8 bytes a framework could only export as uint8 (torch versions whose DLPack has no
// float8). `exported`: an object the description depends on, made here (else left empty).
Described describe(nb::handle operand, char const* name, nb::object& exported) {
  nb::tuple pair = nb::borrow<nb::tuple>(operand);
  nb::handle descriptor = pair[1];
  if (descriptor.is(torch_view_tag())) return describe_tagged(pair[0], name, exported);
  std::optional<std::uint8_t> retype;
  if (nb::isinstance<nb::tuple>(descriptor)) {
    nb::tuple retyped = nb::borrow<nb::tuple>(descriptor);
    retype = nb::cast<std::uint8_t>(retyped[1]);
    descriptor = retyped[0];
  }
  Described d;
  if (nb::isinstance<nb::dict>(descriptor)) {
    describe_array_interface(nb::borrow<nb::dict>(descriptor), name, d);
    return d;
  }
  PyObject* capsule = descriptor.ptr();
  if (!PyCapsule_CheckExact(capsule))
    refuse(name,
           "is neither a DLPack tensor nor a host array (internal error: the Python side "
           "passed something else)");
  if (PyCapsule_IsValid(capsule, "dltensor") == 0)
    refuse(name, fmt::format("came as a DLPack capsule named '{}'; this binding reads unversioned "
                             "'dltensor' capsules (it calls __dlpack__ without max_version), and "
                             "a capsule can be used once",
                             PyCapsule_GetName(capsule) ? PyCapsule_GetName(capsule) : "(null)"));
  // Not renamed to "used_dltensor": the binding borrows the tensor while it holds the capsule, and
  // the capsule's own destructor calls the producer's deleter when it goes (DLPack's rule for a
  // consumer that does not take ownership).
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  d.t = managed->dl_tensor;
  if (retype) {
    if (d.t.dtype.code != kDLUInt || d.t.dtype.bits != 8 || d.t.dtype.lanes != 1)
      refuse(name, "internal error: a retyped tensor must come as uint8 bytes");
    d.t.dtype.code = *retype;
  }
  return d;
}

// A 1-D tensor (an epilogue vector: bias, scale) as the one-row matrix plans read, the same
// memory; other tensors as they are.
Described as_row(Described d) {
  if (d.t.ndim != 1) return d;
  std::int64_t const n = d.t.shape[0];
  std::int64_t const stride = d.t.strides != nullptr ? d.t.strides[0] : 1;
  d.shape = {1, n};
  d.strides = {n * stride, stride};
  d.t.ndim = 2;
  d.t.shape = d.shape.data();
  d.t.strides = d.strides.data();
  return d;
}

bool is_host(DLTensor const& t) {
  return t.device.device_type == kDLCPU || static_cast<int>(t.device.device_type) == kDlCudaHost;
}

// The view of host tensor `t` as if it lay on device `device` (strides and dtype checked by
// from_dlpack, as for device tensors; the data pointer is still the host one).
ops::TensorView host_view(DLTensor const& t, int device, char const* name) {
  DLTensor probe = t;
  probe.device = {kDLCUDA, device};
  return ops::from_dlpack(probe, name);
}

// Elements from a view's first to its last, strides included (0 for an empty view).
std::int64_t span_elements(ops::TensorView const& v) {
  if (v.batch <= 0 || v.rows <= 0 || v.cols <= 0) return 0;
  return 1 + (v.batch - 1) * v.batch_stride + (v.rows - 1) * v.row_stride +
         (v.cols - 1) * v.col_stride;
}

}  // namespace

ops::TensorView RunOperands::add(nb::handle operand, char const* name, bool output, bool vector) {
  owners_.push_back(nb::borrow(operand));  // owner and capsule: alive until the run is waited for
  nb::object exported;
  Described const d =
      vector ? as_row(describe(operand, name, exported)) : describe(operand, name, exported);
  if (exported.is_valid()) owners_.push_back(exported);
  if (!is_host(d.t)) return ops::from_dlpack(d.t, name);

  int device = 0;
  check_cuda(cudaGetDevice(&device), name, "cudaGetDevice");
  ops::TensorView v = host_view(d.t, device, name);
  if (output && d.read_only) refuse(name, "is a read-only host array, and the run writes it");
  std::int64_t const elements = span_elements(v);
  if (elements == 0) return v;  // nothing to copy; the plan refuses the empty shape
  HostCopy copy;
  copy.host = v.data;
  copy.bytes =
      static_cast<std::size_t>(elements) * static_cast<std::size_t>(gemm::size_of(v.dtype));
  copy.copy_back = output;
  check_cuda(cudaMalloc(&copy.device, copy.bytes), name,
             fmt::format("cudaMalloc of {} bytes", copy.bytes));
  copies_.push_back(copy);  // freed by release() from here on
  // The whole span, gaps included: an output's gaps go back unchanged.
  check_cuda(cudaMemcpyAsync(copy.device, copy.host, copy.bytes, cudaMemcpyHostToDevice, stream_),
             name, "cudaMemcpyAsync to the device");
  v.data = copy.device;
  return v;
}

void RunOperands::wait() {
  if (waited_) return;
  cudaError_t e = cudaSuccess;
  char const* what = "cudaStreamSynchronize";
  {
    nb::gil_scoped_release unlocked;  // the kernel may run for a while; other threads go on
    e = cudaStreamSynchronize(stream_);
    for (HostCopy const& c : copies_) {
      if (e != cudaSuccess || !c.copy_back) continue;
      what = "cudaMemcpy of the output back to the host";
      e = cudaMemcpy(c.host, c.device, c.bytes, cudaMemcpyDeviceToHost);
    }
  }
  release();
  waited_ = true;
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    throw std::runtime_error(fmt::format("Gemm.run: {} failed after the GEMM was launched: {} ({})",
                                         what, cudaGetErrorName(e), cudaGetErrorString(e)));
  }
}

void RunOperands::release() {
  for (HostCopy const& c : copies_) (void)cudaFree(c.device);  // cudaFree waits for the device
  copies_.clear();
  owners_.clear();
}

void RunOperands::discard() {
  release();
  waited_ = true;
}

RunOperands::~RunOperands() {
  if (waited_) return;
  if (copies_.empty()) {
    // Device tensors only: nothing to copy back, so no reason to wait (a GemmRun dropped at once
    // stays asynchronous). The capsules go; the tensors they view are their owners' to keep.
    release();
    return;
  }
  try {
    wait();  // host outputs must not be left unwritten
  } catch (std::exception const&) {
    // A destructor cannot raise; the error stays unreported, as for any unsynchronized launch.
    (void)cudaGetLastError();
  }
}

ops::EpilogueTensors EpilogueOperands::views(RunOperands& operands) const {
  auto view = [&](nb::object const& x, char const* name, bool output, bool vector) {
    return x.is_none() ? ops::TensorView{} : operands.add(x, name, output, vector);
  };
  ops::EpilogueTensors e;
  e.bias = view(bias, "bias", false, true);
  e.bias_broadcast = bias_broadcast;
  e.row_scale = view(row_scale, "row_scale", false, true);
  e.col_scale = view(col_scale, "col_scale", false, true);
  e.residual = view(residual, "residual", false, false);
  e.pre_activation = view(pre_activation, "pre_activation", true, false);
  return e;
}

ops::TensorView example_view(nb::handle operand, char const* name) {
  nb::object exported;
  Described const d = describe(operand, name, exported);
  return is_host(d.t) ? host_view(d.t, /*device=*/-1, name) : ops::from_dlpack(d.t, name);
}

void register_torch(nb::object dtypes, nb::object strided, nb::object fallback, nb::object tensor,
                    nb::object current_stream) {
  TorchTypes& t = torch_types();
  t.dtypes = std::move(dtypes);
  t.strided = std::move(strided);
  t.fallback = std::move(fallback);
  t.tensor = std::move(tensor);
  t.current_stream = std::move(current_stream);
  t.exchange = exchange_api_of(t.tensor);
}

std::optional<std::uintptr_t> torch_current_stream(std::span<nb::handle const> tensors) {
  TorchTypes const& t = torch_types();
  if (!t.tensor.is_valid() || t.tensor.is_none() || !t.current_stream.is_valid() ||
      t.current_stream.is_none() || !PyType_Check(t.tensor.ptr()))
    return std::nullopt;
  auto* const type = reinterpret_cast<PyTypeObject*>(t.tensor.ptr());
  for (nb::handle x : tensors) {
    if (x.is_none()) continue;
    if (!PyObject_TypeCheck(x.ptr(), type) || !nb::cast<bool>(x.attr("is_cuda")))
      return std::nullopt;
  }
  nb::object const device = tensors.front().attr("get_device")();
  if (t.exchange != nullptr && t.exchange->current_work_stream != nullptr) {
    void* stream = nullptr;
    if (t.exchange->current_work_stream(kDLCUDA, nb::cast<std::int32_t>(device), &stream) == 0)
      return reinterpret_cast<std::uintptr_t>(stream);
    PyErr_Clear();
  }
  return nb::cast<std::uintptr_t>(t.current_stream(device));
}

nb::handle torch_view_tag() {
  static nb::handle const tag = PyUnicode_InternFromString("warploom.torch-view");
  return tag;
}

}  // namespace warploom::python
