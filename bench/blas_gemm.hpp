// bench/blas_gemm.hpp
//
// cuBLAS and cuBLASLt as GEMM contenders, on warploom's GemmArguments. Both compute warploom's
// row-major D as cuBLAS's column-major D^T = B^T A^T, so every layout of A and B maps onto one
// cuBLAS call without copies.
//
//   CublasGemm   cublasGemmEx, CUBLAS_COMPUTE_32F, default algorithm (16-bit inputs; no fp8)
//   CublasLtGemm cublasLtMatmul planned once per problem: the first of the heuristic's candidates
//                (32 MiB workspace) that runs, what a framework calling cuBLASLt gets; fp8 with
//                per-tensor scale pointers and fast accumulation (like warploom's fp8 kernel);
//                a bias with ReLU or GELU through cuBLASLt's own fused epilogues
//
//   bench::CublasLtGemm lt;
//   lt.plan(args);        // throws std::runtime_error naming the cuBLASLt call that refused
//   lt.run(args, stream); // any arguments of the planned types, layouts and shape
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

#include "warploom/gemm.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::bench {

class CublasGemm {
 public:
  CublasGemm();
  ~CublasGemm();
  CublasGemm(CublasGemm const&) = delete;
  CublasGemm& operator=(CublasGemm const&) = delete;

  // "" when cublasGemmEx runs `args`, else why not (it has no fp8 types).
  static std::string unsupported(gemm::GemmArguments const& args);
  // Throws std::runtime_error when cuBLAS refuses.
  void run(gemm::GemmArguments const& args, cudaStream_t stream = nullptr) const;

 private:
  cublasHandle_t handle_{};
};

// cublasGemmGroupedBatchedEx: every problem of a grouped run in one cuBLAS call (each its own
// "group" of one), as CublasGemm runs one (D row-major: cuBLAS computes D^T = B^T . A^T). The
// pointer arrays cuBLAS reads from device memory are uploaded once per operand set (bind), so a
// run times the call alone.
class CublasGroupedGemm {
 public:
  CublasGroupedGemm();
  ~CublasGroupedGemm();
  CublasGroupedGemm(CublasGroupedGemm const&) = delete;
  CublasGroupedGemm& operator=(CublasGroupedGemm const&) = delete;

  // Every set: the same extents, types and layouts per group, other pointers. Throws
  // std::invalid_argument (CublasGemm::unsupported) for a group cuBLAS does not run.
  void bind(std::vector<std::vector<gemm::GemmArguments>> const& sets);
  // Throws std::runtime_error when cuBLAS refuses.
  void run(int set, cudaStream_t stream = nullptr) const;

 private:
  cublasHandle_t handle_{};
  std::vector<cublasOperation_t> trans_a_, trans_b_;
  std::vector<int> m_, n_, k_, lda_, ldb_, ldc_, group_size_;
  std::vector<float> alpha_, beta_;
  cudaDataType a_type_{}, b_type_{}, c_type_{};
  // Per set: the pointer arrays (cuBLAS's A = our B, its B = our A, its C = our D), 3 x groups.
  std::vector<testing::DeviceBuffer> pointers_;
};

class CublasLtGemm {
 public:
  CublasLtGemm();
  ~CublasLtGemm();
  CublasLtGemm(CublasLtGemm const&) = delete;
  CublasLtGemm& operator=(CublasLtGemm const&) = delete;

  // Plans `args`' problem (types, layouts, extents, leading dimensions, fp8 scale pointers), which
  // every later run() must share. Throws std::runtime_error when no candidate runs (cuBLASLt has
  // no e5m2 x e5m2 kernel).
  void plan(gemm::GemmArguments const& args);
  void run(gemm::GemmArguments const& args, cudaStream_t stream = nullptr) const;

  // "" when cuBLASLt has an epilogue for `args.epilogue` (none; a column bias of D's type, alone or
  // with ReLU, GELU or GELU's tanh form), else why not.
  static std::string unsupported_epilogue(gemm::GemmArguments const& args);
  // What cuBLASLt computes for `args`: its GELU epilogue is the tanh form, whichever GELU was asked
  // for (the reference to check it against).
  static gemm::GemmArguments computed(gemm::GemmArguments args);

 private:
  cublasStatus_t matmul(gemm::GemmArguments const& args, cudaStream_t stream) const;
  void release();

  cublasLtHandle_t handle_{};
  testing::DeviceBuffer workspace_{std::size_t{32} << 20};
  cublasLtMatmulDesc_t op_{};
  cublasLtMatrixLayout_t a_{}, b_{}, d_{};
  cublasLtMatmulAlgo_t algo_{};
  bool bias_ = false;  // the epilogue reads args.epilogue.bias (set on the descriptor per run)
  bool out_of_place_ = false;  // C is c_scratch_ (beta = 0 only), not D
  testing::DeviceBuffer c_scratch_;
};

}  // namespace warploom::bench
