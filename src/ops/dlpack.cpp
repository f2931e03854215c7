// src/ops/dlpack.cpp — a DLTensor as a TensorView (warploom/ops/dlpack.hpp).
#include "warploom/ops/dlpack.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace warploom::ops {
namespace {

// DLPack 1.1's float8 type codes (dlpack.h, DLDataTypeCode). Debian's dlpack.h (0.6) predates
// them; PyTorch exports torch.float8_e4m3fn as 10 and torch.float8_e5m2 as 12. CUDA's
// __nv_fp8_e4m3 is the "fn" format (finite, max 448), __nv_fp8_e5m2 the IEEE-like e5m2.
constexpr std::uint8_t kFloat8E4M3FN = 10;
constexpr std::uint8_t kFloat8E5M2 = 12;

std::optional<ScalarType> scalar_type(DLDataType t) {
  if (t.lanes != 1) return std::nullopt;
  if (t.code == kDLFloat && t.bits == 16) return ScalarType::F16;
  if (t.code == kDLBfloat && t.bits == 16) return ScalarType::BF16;
  if (t.code == kDLFloat && t.bits == 32) return ScalarType::F32;
  if (t.code == kDLFloat && t.bits == 64) return ScalarType::F64;
  if (t.code == kFloat8E4M3FN && t.bits == 8) return ScalarType::E4M3;
  if (t.code == kFloat8E5M2 && t.bits == 8) return ScalarType::E5M2;
  return std::nullopt;
}

[[noreturn]] void refuse(char const* name, std::string const& rule) {
  throw std::invalid_argument(fmt::format("from_dlpack: {}: {}", name, rule));
}

}  // namespace

TensorView from_dlpack(DLTensor const& t, char const* name) {
  if (t.ndim != 2 && t.ndim != 3)
    refuse(name, fmt::format("ndim = {}: a GEMM operand is a matrix (2-D: rows, cols) or a batch "
                             "of matrices (3-D: batch, rows, cols)",
                             t.ndim));
  std::optional<ScalarType> const dtype = scalar_type(t.dtype);
  if (!dtype)
    throw DtypeError(fmt::format(
        "from_dlpack: {}: dtype (code {}, bits {}, lanes {}) is not a GEMM element type: "
        "float16, bfloat16, float32, float64, float8_e4m3fn or float8_e5m2, one lane",
        name, t.dtype.code, t.dtype.bits, t.dtype.lanes));
  // Managed memory is device memory the GPU reads directly; pinned host memory (kDLCUDAHost) is
  // not something TMA may read at full speed, and CPU memory not at all.
  if (t.device.device_type != kDLCUDA && t.device.device_type != kDLCUDAManaged)
    refuse(name, fmt::format("device type {} (device {}): the GEMM reads CUDA device memory "
                             "(kDLCUDA = {} or kDLCUDAManaged = {})",
                             static_cast<int>(t.device.device_type), t.device.device_id,
                             static_cast<int>(kDLCUDA), static_cast<int>(kDLCUDAManaged)));
  // An empty tensor may have no memory (torch gives a 0 x n tensor a null pointer): refused later
  // by the rules of its use (an empty group is skipped; a plan refuses an empty extent by name).
  bool empty = false;
  for (int i = 0; i < t.ndim; ++i) empty |= t.shape[i] == 0;
  if (t.data == nullptr && !empty) refuse(name, "data is null");
  std::int64_t const bytes = gemm::size_of(*dtype);
  if (t.byte_offset % static_cast<std::uint64_t>(bytes) != 0)
    refuse(name, fmt::format("byte_offset = {} is not a whole number of {}-byte {} elements",
                             t.byte_offset, bytes, gemm::to_string(*dtype)));

  int const d0 = t.ndim - 2;  // the rows' dimension
  TensorView v;
  v.data = static_cast<char*>(t.data) + t.byte_offset;
  v.dtype = *dtype;
  v.device = t.device.device_id;
  v.batch = t.ndim == 3 ? t.shape[0] : 1;
  v.rows = t.shape[d0];
  v.cols = t.shape[d0 + 1];
  if (t.strides == nullptr) {  // compact row-major (DLPack's rule for null strides)
    v.col_stride = 1;
    v.row_stride = v.cols;
    v.batch_stride = v.rows * v.cols;
  } else {
    for (int i = 0; i < t.ndim; ++i)
      if (t.strides[i] < 0)
        refuse(name, fmt::format("strides[{}] = {}: negative strides (a reversed view) are not "
                                 "read by the GEMM; make the tensor contiguous",
                                 i, t.strides[i]));
    v.batch_stride = t.ndim == 3 ? t.strides[0] : 0;
    v.row_stride = t.strides[d0];
    v.col_stride = t.strides[d0 + 1];
  }
  return v;
}

}  // namespace warploom::ops
