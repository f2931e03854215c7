// kernels/gemm/copy_matrix.hpp
//
// A copy of a strided (batch of) matrices into other strides, or transposed into the other
// layout: what gemm() uses to hand the TMA kernel operands whose rows or base TMA cannot read (a
// leading dimension that is no multiple of 16 bytes: a contiguous 4097-wide bf16 tensor) or, for
// fp8, whose K is not contiguous (wgmma reads fp8 K-major only), and to write its result back to
// such a D (src/gemm/repack.hpp). cudaMemcpy2DAsync copies one matrix a call and does not
// transpose; a batch with its own strides takes one launch here.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace warploom::gemm {

struct MatrixCopy {
  // Element (b, i, j) of the source at src + (b * src_batch_stride + i * src_ld + j) elements;
  // i < strided (rows of a row-major matrix, columns of a column-major one), j < contiguous. It
  // goes to dst + (b * dst_batch_stride + i * dst_ld + j), or, transposed, to
  // dst + (b * dst_batch_stride + j * dst_ld + i).
  void const* src = nullptr;
  std::int64_t src_ld = 0, src_batch_stride = 0;
  void* dst = nullptr;
  std::int64_t dst_ld = 0, dst_batch_stride = 0;
  std::int64_t strided = 0, contiguous = 0;
  int batches = 1;
  int element_bytes = 2;  // 1, 2 or 4; both pointers aligned to it
  bool transpose = false;
};

// Enqueues the copy on `stream`.
void launch_matrix_copy(MatrixCopy const& c, cudaStream_t stream);

}  // namespace warploom::gemm
