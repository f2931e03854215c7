// kernels/gemm/reference.cu — the float64 reference GEMM (see reference.hpp).
#include "reference.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>

#include "warploom/cuda_check.hpp"

namespace warploom::gemm {
namespace {

// One operand as the reference reads it: element (row, col) of batch l, widened to double.
struct Operand {
  void const* data;
  ScalarType type;
  bool row_major;
  std::int64_t ld, batch_stride;

  __device__ double at(int l, int row, int col) const {
    std::int64_t const i = l * batch_stride + (row_major ? std::int64_t{row} * ld + col
                                                         : std::int64_t{col} * ld + row);
    switch (type) {
      case ScalarType::F16:
        return __half2float(static_cast<__half const*>(data)[i]);
      case ScalarType::BF16:
        return __bfloat162float(static_cast<__nv_bfloat16 const*>(data)[i]);
      case ScalarType::F32:
        return static_cast<float const*>(data)[i];
      case ScalarType::F64:
        return static_cast<double const*>(data)[i];
      case ScalarType::E4M3:  // fp8 -> fp16 is exact
        return __half2float(__half(
            __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t const*>(data)[i], __NV_E4M3)));
      case ScalarType::E5M2:
        return __half2float(__half(
            __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t const*>(data)[i], __NV_E5M2)));
    }
    return 0.0;
  }
};

Operand operand(Matrix const& x) {
  return {x.data, x.type, x.layout == MatrixLayout::RowMajor, x.ld, x.batch_stride};
}

// The fused epilogue as the reference reads it. Vectors are Operands of one row (bias along the
// columns, col_scale) or one column (bias along the rows, row_scale), so that `at` widens them.
struct Epilogue {
  Activation activation;
  double slope;
  bool bias_per_row;
  Operand bias, row_scale, col_scale, residual;  // data null: absent
};

Operand vector(void const* data, ScalarType type, bool along_rows) {
  // A column vector (one value per row) is a column-major M x 1 matrix, a row vector a row-major
  // 1 x N one: element (i, 0) or (0, j) is data[i] or data[j].
  return {data, type, !along_rows, 1, 0};
}

Epilogue epilogue_of(GemmEpilogue const& e) {
  bool const per_row = e.bias_broadcast == Broadcast::PerRow;
  return {e.activation,
          e.leaky_slope,
          per_row,
          vector(e.bias, e.bias_type, per_row),
          vector(e.row_scale, ScalarType::F32, true),
          vector(e.col_scale, ScalarType::F32, false),
          operand(e.residual)};
}

// The device scalars of `args` (null: absent), read when the reference runs as the GEMM reads
// them: alpha_ptr and beta_ptr in place of alpha and beta, the fp8 per-tensor scales folded into
// alpha in double (null = 1).
struct DeviceScalars {
  float const *alpha, *beta, *scale_a, *scale_b;
};

__global__ void reference_kernel(int m, int n, int k, int batch, Operand a, Operand b, Operand c,
                                 double alpha, double beta, DeviceScalars s, Epilogue e,
                                 double* out, double* pre_activation) {
  int const j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (j >= n) return;
  if (s.alpha != nullptr) alpha = *s.alpha;
  if (s.beta != nullptr) beta = *s.beta;
  if (s.scale_a != nullptr) alpha *= *s.scale_a;
  if (s.scale_b != nullptr) alpha *= *s.scale_b;
  for (int l = static_cast<int>(blockIdx.z); l < batch; l += static_cast<int>(gridDim.z)) {
    for (int i = static_cast<int>(blockIdx.y); i < m; i += static_cast<int>(gridDim.y)) {
      double sum = 0.0;
      for (int p = 0; p < k; ++p) sum += a.at(l, i, p) * b.at(l, p, j);
      double z = alpha * sum;
      if (e.row_scale.data != nullptr) z *= e.row_scale.at(0, i, 0);
      if (e.col_scale.data != nullptr) z *= e.col_scale.at(0, 0, j);
      if (beta != 0.0) z += beta * c.at(l, i, j);
      if (e.bias.data != nullptr) z += e.bias_per_row ? e.bias.at(0, i, 0) : e.bias.at(0, 0, j);
      std::int64_t const at = (std::int64_t{l} * m + i) * n + j;
      if (pre_activation != nullptr) pre_activation[at] = z;
      double r = reference_activation(e.activation, z, e.slope);
      if (e.residual.data != nullptr) r += e.residual.at(l, i, j);
      out[at] = r;
    }
  }
}

}  // namespace

void reference_gemm(GemmArguments const& args, double* out, cudaStream_t stream,
                    double* pre_activation) {
  GemmArguments const r = resolved(args);
  constexpr int kThreads = 128;
  constexpr int kMaxGridYZ = 65535;
  dim3 const grid((r.n + kThreads - 1) / kThreads, r.m < kMaxGridYZ ? r.m : kMaxGridYZ,
                  r.batch < kMaxGridYZ ? r.batch : kMaxGridYZ);
  reference_kernel<<<grid, kThreads, 0, stream>>>(
      r.m, r.n, r.k, r.batch, operand(r.a), operand(r.b), operand(r.c), r.alpha, r.beta,
      DeviceScalars{r.alpha_ptr, r.beta_ptr, r.scale_a, r.scale_b}, epilogue_of(r.epilogue), out,
      pre_activation);
  WL_CUDA_CHECK(cudaGetLastError());
}

}  // namespace warploom::gemm
