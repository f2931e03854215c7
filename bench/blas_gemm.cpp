// bench/blas_gemm.cpp
#include "blas_gemm.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gemm_operands.hpp"  // is_fp8
#include "warploom/cuda_check.hpp"

namespace warploom::bench {
namespace {

namespace wg = warploom::gemm;

cublasOperation_t blas_op(wg::MatrixLayout l) {
  return l == wg::MatrixLayout::RowMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
}

cudaDataType blas_type(wg::ScalarType t) {
  switch (t) {
    case wg::ScalarType::F16:
      return CUDA_R_16F;
    case wg::ScalarType::BF16:
      return CUDA_R_16BF;
    case wg::ScalarType::E4M3:
      return CUDA_R_8F_E4M3;
    case wg::ScalarType::E5M2:
      return CUDA_R_8F_E5M2;
    case wg::ScalarType::F64:
      return CUDA_R_64F;
    default:
      return CUDA_R_32F;
  }
}

// cuBLASLt's fused epilogue for a supported GemmEpilogue (CublasLtGemm::unsupported_epilogue).
cublasLtEpilogue_t lt_epilogue(wg::GemmEpilogue const& e) {
  if (e.bias == nullptr) return CUBLASLT_EPILOGUE_DEFAULT;
  switch (e.activation) {
    case wg::Activation::ReLU:
      return CUBLASLT_EPILOGUE_RELU_BIAS;
    case wg::Activation::GELU:
    case wg::Activation::GELUTanh:
      return CUBLASLT_EPILOGUE_GELU_BIAS;
    default:
      return CUBLASLT_EPILOGUE_BIAS;
  }
}

void check_lt(cublasStatus_t s, char const* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLASLt: ") + what + " failed (status " +
                             std::to_string(static_cast<int>(s)) + ")");
}

}  // namespace

CublasGemm::CublasGemm() {
  if (cublasCreate(&handle_) != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error("cuBLAS: cublasCreate failed");
}

CublasGemm::~CublasGemm() {
  cublasDestroy(handle_);
}

std::string CublasGemm::unsupported(wg::GemmArguments const& r) {
  if (is_fp8(r.a.type)) return "cublasGemmEx has no fp8 types";
  return {};
}

void CublasGemm::run(wg::GemmArguments const& r, cudaStream_t stream) const {
  if (std::string why = unsupported(r); !why.empty()) throw std::invalid_argument(why);
  cublasSetStream(handle_, stream);
  float const alpha = r.alpha, beta = r.beta;
  cublasStatus_t const s =
      cublasGemmEx(handle_, blas_op(r.b.layout), blas_op(r.a.layout), r.n, r.m, r.k, &alpha,
                   r.b.data, blas_type(r.b.type), static_cast<int>(r.b.ld), r.a.data,
                   blas_type(r.a.type), static_cast<int>(r.a.ld), &beta, r.d, blas_type(r.d_type),
                   static_cast<int>(r.ldd), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error("cuBLAS: cublasGemmEx failed (status " +
                             std::to_string(static_cast<int>(s)) + ")");
}

CublasGroupedGemm::CublasGroupedGemm() {
  if (cublasCreate(&handle_) != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error("cuBLAS: cublasCreate failed");
}

CublasGroupedGemm::~CublasGroupedGemm() {
  cublasDestroy(handle_);
}

void CublasGroupedGemm::bind(std::vector<std::vector<wg::GemmArguments>> const& sets) {
  std::vector<wg::GemmArguments> const& first = sets.at(0);
  for (wg::GemmArguments const& r : first)
    if (std::string why = CublasGemm::unsupported(r); !why.empty())
      throw std::invalid_argument(why);
  std::size_t const groups = first.size();
  trans_a_.clear(), trans_b_.clear(), m_.clear(), n_.clear(), k_.clear();
  lda_.clear(), ldb_.clear(), ldc_.clear(), alpha_.clear(), beta_.clear();
  for (wg::GemmArguments const& r : first) {  // cuBLAS's problem: D^T (n x m) = B^T . A^T
    trans_a_.push_back(blas_op(r.b.layout));
    trans_b_.push_back(blas_op(r.a.layout));
    m_.push_back(r.n);
    n_.push_back(r.m);
    k_.push_back(r.k);
    lda_.push_back(static_cast<int>(r.b.ld));
    ldb_.push_back(static_cast<int>(r.a.ld));
    ldc_.push_back(static_cast<int>(r.ldd));
    alpha_.push_back(r.alpha);
    beta_.push_back(r.beta);
  }
  group_size_.assign(groups, 1);
  a_type_ = blas_type(first.front().b.type);
  b_type_ = blas_type(first.front().a.type);
  c_type_ = blas_type(first.front().d_type);
  pointers_.clear();
  for (std::vector<wg::GemmArguments> const& set : sets) {
    std::vector<void const*> host(3 * groups);
    for (std::size_t g = 0; g < groups; ++g) {
      host[g] = set[g].b.data;
      host[groups + g] = set[g].a.data;
      host[2 * groups + g] = set[g].d;
    }
    pointers_.push_back(testing::upload(host));
  }
}

void CublasGroupedGemm::run(int set, cudaStream_t stream) const {
  auto const* const pointers = pointers_.at(set).as<void const*>();
  std::size_t const groups = m_.size();
  cublasSetStream(handle_, stream);
  cublasStatus_t const s = cublasGemmGroupedBatchedEx(
      handle_, trans_a_.data(), trans_b_.data(), m_.data(), n_.data(), k_.data(), alpha_.data(),
      pointers, a_type_, lda_.data(), pointers + groups, b_type_, ldb_.data(), beta_.data(),
      const_cast<void* const*>(pointers + 2 * groups), c_type_, ldc_.data(),
      static_cast<int>(groups), group_size_.data(), CUBLAS_COMPUTE_32F);
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error("cuBLAS: cublasGemmGroupedBatchedEx failed (status " +
                             std::to_string(static_cast<int>(s)) + ")");
}

CublasLtGemm::CublasLtGemm() {
  check_lt(cublasLtCreate(&handle_), "cublasLtCreate");
}

CublasLtGemm::~CublasLtGemm() {
  release();
  cublasLtDestroy(handle_);
}

std::string CublasLtGemm::unsupported_epilogue(wg::GemmArguments const& r) {
  wg::GemmEpilogue const& e = r.epilogue;
  if (e.row_scale != nullptr || e.col_scale != nullptr || e.residual.data != nullptr ||
      e.pre_activation.data != nullptr)
    return "cuBLASLt's epilogues take no scale vectors, residual or pre-activation output here";
  if (e.bias == nullptr && e.activation != wg::Activation::Identity)
    return "this bench runs cuBLASLt's activations with a bias only";
  if (e.bias != nullptr &&
      (e.bias_broadcast != wg::Broadcast::PerColumn || e.bias_type != r.d_type))
    return "cuBLASLt adds a bias per column of D (per row of its transposed D), of D's type";
  switch (e.activation) {
    case wg::Activation::Identity:
    case wg::Activation::ReLU:
    case wg::Activation::GELU:
    case wg::Activation::GELUTanh:
      return {};
    default:
      return "cuBLASLt has no epilogue of activation " + std::string(wg::to_string(e.activation));
  }
}

wg::GemmArguments CublasLtGemm::computed(wg::GemmArguments args) {
  if (args.epilogue.activation == wg::Activation::GELU)
    args.epilogue.activation = wg::Activation::GELUTanh;
  return args;
}

void CublasLtGemm::plan(wg::GemmArguments const& r) {
  release();
  if (std::string why = unsupported_epilogue(r); !why.empty())
    throw std::invalid_argument("cuBLASLt: " + why);
  cublasOperation_t const op_b = blas_op(r.b.layout), op_a = blas_op(r.a.layout);
  check_lt(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "MatmulDescCreate");
  check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &op_b, sizeof(op_b)),
           "TRANSA");
  check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &op_a, sizeof(op_a)),
           "TRANSB");
  if (is_fp8(r.a.type)) {
    // cuBLASLt's A is our B and its B our A (D^T = B^T A^T), and so are their scales. Fast
    // accumulation: our fp8 kernel adds every wgmma into one accumulator too (no periodic
    // promotion). The scale pointers must be 16-byte aligned (status 15 otherwise, measured).
    check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &r.scale_b,
                                            sizeof(r.scale_b)),
             "A_SCALE_POINTER");
    check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &r.scale_a,
                                            sizeof(r.scale_a)),
             "B_SCALE_POINTER");
    std::int8_t const fast_accum = 1;
    check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum,
                                            sizeof(fast_accum)),
             "FAST_ACCUM");
  }
  // Our D^T is cuBLASLt's D: a bias per column of ours is one per row of its, the vector its bias
  // epilogues add (of D's type by default).
  cublasLtEpilogue_t const epilogue = lt_epilogue(r.epilogue);
  check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                          sizeof(epilogue)),
           "EPILOGUE");
  bias_ = r.epilogue.bias != nullptr;
  // Column-major views: B^T as (N x K) or, transposed, (K x N); A^T as (K x M) or (M x K).
  bool const b_n = op_b == CUBLAS_OP_N, a_n = op_a == CUBLAS_OP_N;
  check_lt(cublasLtMatrixLayoutCreate(&b_, blas_type(r.b.type), b_n ? r.n : r.k, b_n ? r.k : r.n,
                                      r.b.ld),
           "layout B");
  check_lt(cublasLtMatrixLayoutCreate(&a_, blas_type(r.a.type), a_n ? r.k : r.m, a_n ? r.m : r.k,
                                      r.a.ld),
           "layout A");
  check_lt(cublasLtMatrixLayoutCreate(&d_, blas_type(r.d_type), r.n, r.m, r.ldd), "layout D");
  cublasLtMatmulPreference_t pref{};
  check_lt(cublasLtMatmulPreferenceCreate(&pref), "PreferenceCreate");
  std::size_t const workspace_bytes = workspace_.bytes();
  check_lt(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                &workspace_bytes, sizeof(workspace_bytes)),
           "workspace preference");
  // The heuristic's candidates, best first; the first that runs on `r` is the plan (a candidate
  // can still be refused when it runs: cuBLASLt's fp8 kernels have rules the heuristic does not
  // check).
  constexpr int kCandidates = 8;
  cublasLtMatmulHeuristicResult_t results[kCandidates]{};
  int found = 0;
  cublasStatus_t const s = cublasLtMatmulAlgoGetHeuristic(handle_, op_, b_, a_, d_, d_, pref,
                                                          kCandidates, results, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  check_lt(s, "AlgoGetHeuristic");
  if (found == 0) throw std::runtime_error("cuBLASLt: no algorithm for this problem");
  std::string refused;
  auto const first_that_runs = [&] {
    for (int i = 0; i < found; ++i) {
      if (results[i].state != CUBLAS_STATUS_SUCCESS) continue;
      algo_ = results[i].algo;
      cublasStatus_t const ran = matmul(r, nullptr);
      if (ran == CUBLAS_STATUS_SUCCESS) return true;
      refused += (refused.empty() ? "" : ", ") + std::to_string(static_cast<int>(ran));
    }
    return false;
  };
  if (first_that_runs()) return;
  // In place (C = D) refused: with beta = 0, C is never read, so any buffer of D's shape will do.
  if (r.beta == 0.0f) {
    c_scratch_ = testing::DeviceBuffer(static_cast<std::size_t>(r.ldd) * r.m * 4);
    out_of_place_ = true;
    refused += "; out of place: ";
    if (first_that_runs()) return;
  }
  throw std::runtime_error("cuBLASLt: cublasLtMatmul refused all " + std::to_string(found) +
                           " candidate algorithms (status " + refused + ")");
}

void CublasLtGemm::run(wg::GemmArguments const& r, cudaStream_t stream) const {
  check_lt(matmul(r, stream), "cublasLtMatmul");
}

cublasStatus_t CublasLtGemm::matmul(wg::GemmArguments const& r, cudaStream_t stream) const {
  float const alpha = r.alpha, beta = r.beta;
  if (bias_) {  // every operand set has a bias of its own: a host-side field of the descriptor
    void const* const bias = r.epilogue.bias;
    if (cublasStatus_t const s = cublasLtMatmulDescSetAttribute(
            op_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
        s != CUBLAS_STATUS_SUCCESS)
      return s;
  }
  void const* const c = out_of_place_ ? c_scratch_.get() : r.d;
  return cublasLtMatmul(handle_, op_, &alpha, r.b.data, b_, r.a.data, a_, &beta, c, d_, r.d, d_,
                        &algo_, workspace_.get(), workspace_.bytes(), stream);
}

void CublasLtGemm::release() {
  if (op_) cublasLtMatmulDescDestroy(op_);
  for (cublasLtMatrixLayout_t l : {a_, b_, d_})
    if (l) cublasLtMatrixLayoutDestroy(l);
  op_ = nullptr;
  a_ = b_ = d_ = nullptr;
  out_of_place_ = false;
  bias_ = false;
}

}  // namespace warploom::bench
