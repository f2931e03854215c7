// kernels/gemm/gemm.hpp
//
// Host API of warploom's GEMMs: D = alpha * (A . B) + beta * C, batched.
//
//   A is M x K, B is K x N, C and D are M x N; each operand row- or column-major, with an optional
//   leading dimension and batch stride (0 = packed). Accumulation is fp32.
//
// Every call is checked before anything launches: a bad argument throws std::invalid_argument
// naming the argument and the rule it breaks (shape, null pointer, type combination, alignment).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "warploom/ts/model.hpp"

namespace warploom::gemm {

enum class ScalarType { F16, BF16, F32 };
enum class MatrixLayout { RowMajor, ColMajor };

std::string_view to_string(ScalarType t);
std::string_view to_string(MatrixLayout l);
int size_of(ScalarType t);

// One operand in global memory. `ld` is the distance between rows (row-major) or columns
// (column-major) in elements, `batch_stride` the distance between batches; 0 means packed.
struct Matrix {
  void const* data = nullptr;
  ScalarType type = ScalarType::BF16;
  MatrixLayout layout = MatrixLayout::RowMajor;
  std::int64_t ld = 0;
  std::int64_t batch_stride = 0;
};

struct GemmArguments {
  int m = 0, n = 0, k = 0;
  int batch = 1;
  Matrix a;  // M x K
  Matrix b;  // K x N
  Matrix c;  // M x N; may be null when beta == 0
  void* d = nullptr;
  ScalarType d_type = ScalarType::BF16;  // D has C's layout, ld and batch stride rules
  MatrixLayout d_layout = MatrixLayout::RowMajor;
  std::int64_t ldd = 0;
  std::int64_t batch_stride_d = 0;
  float alpha = 1.0f;
  float beta = 0.0f;
};

// The TS kernel's tunable knobs (the autotune space). `raster_panel`: consecutive output tile rows
// a CTA sweep walks before moving right (L2 reuse of B); `max_ctas`: persistent grid size cap
// (0 = one CTA per SM).
struct GemmTuning {
  int raster_panel = 8;
  int max_ctas = 0;
};

// Throws std::invalid_argument (argument name + rule) unless `args` is a problem the sm90 TS GEMM
// runs: M, N, K, batch >= 1; A, B, D non-null (C too when beta != 0); A and B of one 16-bit type;
// D of that type or fp32; C of D's type and layout; leading dimensions at least the contiguous
// extent; every leading dimension and batch stride a multiple of 16 bytes and every base pointer
// 16-byte aligned (TMA's rules).
void check_arguments(GemmArguments const& args);

// check_arguments, then `args` with every leading dimension and batch stride resolved (0 -> the
// packed value) and C described even when beta == 0 (then it aliases D's shape, unread).
GemmArguments resolved(GemmArguments const& args);

// Runs the warp-specialized, persistent sm90 TS GEMM (TMA producer warp, two wgmma consumer
// warpgroups). Checks `args` first.
void gemm(GemmArguments const& args, cudaStream_t stream = nullptr, GemmTuning tuning = {});

// The TaskManager of the sm90 TS GEMM, as the verifier sees it.
ts::ManagerModel gemm_model();

}  // namespace warploom::gemm
