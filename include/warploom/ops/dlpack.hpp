// warploom/ops/dlpack.hpp
//
// A DLPack DLTensor (PyTorch's torch.utils.dlpack, CuPy, JAX, ...) as a TensorView: the one
// conversion every framework binding of warploom::ops uses. Kept apart from tensor.hpp so that
// only the programs that speak DLPack need its header.
#pragma once

#include <dlpack/dlpack.h>

#include "warploom/ops/tensor.hpp"

namespace warploom::ops {

// The view of `t` (which keeps owning its memory), or std::invalid_argument naming `name` and the
// field that has no GEMM meaning:
//   - ndim 2 (rows, cols) or 3 (batch, rows, cols);
//   - dtype float16, bfloat16, float32, float64, float8_e4m3fn or float8_e5m2 (DLPack 1.1 codes
//     10 and 12; older dlpack.h files lack their names), one lane;
//   - device kDLCUDA or kDLCUDAManaged (memory the GPU reads; device_id becomes
//   TensorView::device);
//   - strides in elements; null means compact row-major; none negative;
//   - byte_offset added to data, a whole number of elements.
TensorView from_dlpack(DLTensor const& t, char const* name = "tensor");

}  // namespace warploom::ops
