// src/ops/tensor.cpp — strided views (warploom/ops/tensor.hpp).
#include "warploom/ops/tensor.hpp"

#include <utility>

#include <fmt/format.h>

namespace warploom::ops {

DtypeError::~DtypeError() = default;

TensorView TensorView::transposed() const {
  TensorView t = *this;
  std::swap(t.rows, t.cols);
  std::swap(t.row_stride, t.col_stride);
  return t;
}

bool TensorView::is(MatrixLayout layout) const {
  // The contiguous dimension needs a unit stride and the other one a stride past the whole
  // contiguous extent (rows or columns that overlap would be read twice, or written twice); a
  // dimension of extent 1 is never stepped, so its stride says nothing.
  if (layout == MatrixLayout::RowMajor)
    return (cols <= 1 || col_stride == 1) && (rows <= 1 || row_stride >= cols);
  return (rows <= 1 || row_stride == 1) && (cols <= 1 || col_stride >= rows);
}

TensorView row_major(void* data, ScalarType dtype, std::int64_t rows, std::int64_t cols,
                     std::int64_t batch) {
  return {.data = data,
          .dtype = dtype,
          .batch = batch,
          .rows = rows,
          .cols = cols,
          .batch_stride = rows * cols,
          .row_stride = cols,
          .col_stride = 1};
}

TensorView column_major(void* data, ScalarType dtype, std::int64_t rows, std::int64_t cols,
                        std::int64_t batch) {
  return {.data = data,
          .dtype = dtype,
          .batch = batch,
          .rows = rows,
          .cols = cols,
          .batch_stride = rows * cols,
          .row_stride = 1,
          .col_stride = rows};
}

std::string to_string(TensorView const& v) {
  if (v.batch != 1)
    return fmt::format("{} {} x {} x {} (strides {}, {}, {})", gemm::to_string(v.dtype), v.batch,
                       v.rows, v.cols, v.batch_stride, v.row_stride, v.col_stride);
  return fmt::format("{} {} x {} (strides {}, {})", gemm::to_string(v.dtype), v.rows, v.cols,
                     v.row_stride, v.col_stride);
}

}  // namespace warploom::ops
