// kernels/gemm/gemm.hpp
//
// Host API of warploom's GEMMs: D = alpha * (A . B) + beta * C, batched.
//
//   A is M x K, B is K x N, C and D are M x N; each operand row- or column-major, with an optional
//   leading dimension and batch stride (0 = packed). Accumulation is fp32 (fp64 for fp64 inputs).
//
// Two kernels run it: the sm90 tensor-core GEMM (fp16/bf16 inputs, TMA's 16-byte alignment) and
// the SIMT GEMM (any supported type, element alignment only). GemmTuning::kernel picks one; Auto
// takes the tensor cores whenever their rules hold and the SIMT GEMM otherwise.
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

enum class ScalarType { F16, BF16, F32, F64 };
enum class MatrixLayout { RowMajor, ColMajor };

std::string_view to_string(ScalarType t);
std::string_view to_string(MatrixLayout l);
int size_of(ScalarType t);

// Which kernel runs a GEMM. TensorCore: the sm90 TS GEMM (TMA + wgmma). Simt: the SIMT TS GEMM
// (FMA on the CUDA cores). Auto: TensorCore when the problem meets its rules (see
// check_arguments), else Simt.
enum class GemmKernel { Auto, TensorCore, Simt };
std::string_view to_string(GemmKernel k);

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
  float alpha = 1.0f;  // widened to double for fp64
  float beta = 0.0f;
};

// How the tensor-core GEMM's two wgmma consumer warpgroups share the work. Cooperative: both on
// one 128 x 256 tile, 64 rows each (the most data reuse per shared-memory byte); PingPong: each on
// a 128 x 128 tile of its own, one warpgroup storing its tile while the other's wgmma run (hides
// the epilogue). Auto: gemm() picks by the problem's size, from H200 measurements.
enum class ConsumerDesign { Auto, Cooperative, PingPong };
std::string_view to_string(ConsumerDesign d);

// The TS kernel's tunable knobs (the autotune space). `raster_panel`: consecutive output tile rows
// a CTA sweep walks before moving right (L2 reuse of B); `max_ctas`: persistent grid size cap
// (0 = one CTA per SM); `cluster_m` x `cluster_n`: the thread-block cluster (1x1, 2x1 or 1x2)
// whose CTAs share, and TMA-multicast, the B tile (2x1) or the A tile (1x2).
struct GemmTuning {
  int raster_panel = 8;
  int max_ctas = 0;
  int cluster_m = 2;
  int cluster_n = 1;
  ConsumerDesign design = ConsumerDesign::Auto;
  // Which GEMM runs (Auto: the tensor-core GEMM when its rules hold, else the SIMT GEMM). The
  // SIMT GEMM honours raster_panel and max_ctas and has no clusters.
  GemmKernel kernel = GemmKernel::Auto;
};

// Throws std::invalid_argument (argument name + rule) unless `args` is a problem `kernel` runs.
// Every kernel: M, N, K, batch >= 1; A, B, D non-null (C too when beta != 0); A and B of one
// type; D of that type, or fp32 for fp16/bf16 inputs; C of D's type and layout; leading
// dimensions at least the contiguous extent, batch strides at least one batch; every base pointer
// aligned to its element. TensorCore adds: fp16 or bf16 inputs; A's, B's and D's base pointers
// 16-byte aligned and their leading dimensions and batch strides multiples of 16 bytes (TMA's
// rules). Auto accepts what either kernel runs.
void check_arguments(GemmArguments const& args, GemmKernel kernel = GemmKernel::Auto);

// check_arguments, then `args` with every leading dimension and batch stride resolved (0 -> the
// packed value) and C described even when beta == 0 (then it aliases D's shape, unread).
GemmArguments resolved(GemmArguments const& args, GemmKernel kernel = GemmKernel::Auto);

// The kernel gemm() runs for `args` when asked for `kernel`: TensorCore or Simt as asked (after
// check_arguments for it); for Auto, TensorCore exactly when its rules hold, else Simt.
GemmKernel selected_kernel(GemmArguments const& args, GemmKernel kernel = GemmKernel::Auto);

// Runs the GEMM on the kernel selected_kernel(args, tuning.kernel) names: the warp-specialized,
// persistent sm90 TS GEMM (TMA producer warp, two wgmma consumer warpgroups) or the SIMT TS GEMM
// (load warps -> shared-memory stages -> FMA warps). Checks `args` first.
void gemm(GemmArguments const& args, cudaStream_t stream = nullptr, GemmTuning tuning = {});

// The design gemm() runs for `args` (after resolve) when asked for `design`: as asked, or for
// Auto the one measured faster for problems of that size (docs/kernels/sm90_ts_gemm.md).
ConsumerDesign selected_design(GemmArguments const& args, ConsumerDesign design);

// The TaskManagers of the sm90 TS GEMM (cooperative and ping-pong), as the verifier sees them.
ts::ManagerModel gemm_model();
ts::ManagerModel gemm_pingpong_model();

// The TaskManager of the SIMT TS GEMM.
ts::ManagerModel simt_gemm_model();

}  // namespace warploom::gemm
