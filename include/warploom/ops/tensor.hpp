// warploom/ops/tensor.hpp
//
// warploom::ops::TensorView: a strided matrix, or batch of matrices, in device memory, as a plan
// (warploom/ops/gemm.hpp) takes its operands. It owns nothing: a pointer, an element type, the
// shape and the strides, in elements, as PyTorch, NumPy and DLPack describe a tensor
// (warploom/ops/dlpack.hpp converts a DLTensor).
//
//   // A 100 x 64 bf16 matrix, row-major with 72 elements between rows; its transpose, 64 x 100
//   // column-major, is the same memory.
//   ops::TensorView a{.data = p, .dtype = ScalarType::BF16, .rows = 100, .cols = 64,
//                     .row_stride = 72, .col_stride = 1};
//   ops::TensorView at = a.transposed();
//
// A GEMM reads a matrix with one unit stride: row-major (col_stride 1) or column-major (row_stride
// 1); the other stride is its leading dimension. A plan refuses any other view, naming it, rather
// than reading it wrong. A dimension of extent 1 may have any stride (PyTorch gives such
// dimensions arbitrary ones).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "warploom/gemm.hpp"

namespace warploom::ops {

using gemm::MatrixLayout;
using gemm::ScalarType;

// ops::DtypeError
//
// The std::invalid_argument a plan throws when an element type is wrong: an operand's is not the
// one the plan expects, a tensor's is not a GEMM element type, or an example tensor's contradicts
// the element_x it was given with. Callers that catch std::invalid_argument see no difference; a
// binding can tell it apart (Python raises TypeError for it, ValueError for every other refusal).
// Its key function lives in libwarploom_gemm.so, and so does its type_info, which a module built
// with hidden visibility (a Python extension) matches by reference.
class [[gnu::visibility("default")]] DtypeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
  ~DtypeError() override;
};

// ops::TensorView
//
// An aggregate: name the members (designated initializers) or use row_major / column_major.
// `batch_stride` is a real stride: a view of batch > 1 with batch_stride 0 is a broadcast (every
// batch the same matrix, as torch.expand makes), which a plan runs for A, B and C and refuses for
// D; 0 never means "packed".
struct TensorView {
  void* data = nullptr;  // the first element (of the first batch)
  ScalarType dtype = ScalarType::BF16;
  std::int64_t batch = 1;  // 1 for a matrix
  std::int64_t rows = 0, cols = 0;
  std::int64_t batch_stride = 0;  // elements between batches
  std::int64_t row_stride = 0;    // elements between rows
  std::int64_t col_stride = 0;    // elements between columns
  int device = -1;  // the CUDA device ordinal of the memory; -1: not said (DLPack says it)

  // No data: an absent operand (C when beta == 0).
  bool empty() const { return data == nullptr; }

  // The same memory as its transpose: cols x rows, strides swapped (a row-major view becomes a
  // column-major one).
  TensorView transposed() const;

  // Whether a plan can read the view in `layout`: a unit stride along the layout's contiguous
  // dimension, and rows (row-major) or columns (column-major) that do not overlap. Dimensions of
  // extent 1 pass either test.
  bool is(MatrixLayout layout) const;
};

// Packed views: rows x cols (x batch, batches back to back) in `layout`.
TensorView row_major(void* data, ScalarType dtype, std::int64_t rows, std::int64_t cols,
                     std::int64_t batch = 1);
TensorView column_major(void* data, ScalarType dtype, std::int64_t rows, std::int64_t cols,
                        std::int64_t batch = 1);

// e.g. "bf16 100 x 64 (strides 72, 1)" or "fp16 4 x 128 x 64 (strides 8192, 64, 1)".
std::string to_string(TensorView const& v);

}  // namespace warploom::ops
