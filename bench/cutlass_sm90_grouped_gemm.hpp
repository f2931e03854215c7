// bench/cutlass_sm90_grouped_gemm.hpp
//
// CUTLASS's own sm90 grouped GEMM as a contender of `warploom bench grouped`: the pointer-array
// kernel of CUTLASS's example 57 (KernelPtrArrayTmaWarpSpecializedPingpong, its TMA descriptors
// rewritten on the device for each group, GroupProblemShape over device arrays of extents,
// pointers and strides), built from the CUTLASS headers warploom builds on — what issue 16 asks
// our grouped kernel to be measured against, and what CUTLASS's Python interface does not offer on
// Hopper (it falls back to an Ampere kernel).
//
// Two kernels are compiled, the grouped family's two measurements: fp16 with every operand
// row-major (seed 002's problems, BLAS "tt") and bf16 with A row-major and B column-major ("tn",
// an MoE layer's). Both ping-pong, 128x128x64 tiles, 1x1x1 clusters, fp32 accumulation, D of the
// input type.
//
//   bench::CutlassSm90GroupedGemm cutlass;
//   if (std::string why = cutlass.unsupported(groups); why.empty()) {
//     cutlass.bind(sets);            // the device arrays of every operand set, uploaded once
//     cutlass.run(set, stream);
//   }
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "warploom/gemm.hpp"

namespace warploom::bench {

class CutlassSm90GroupedGemm {
 public:
  CutlassSm90GroupedGemm();
  ~CutlassSm90GroupedGemm();
  CutlassSm90GroupedGemm(CutlassSm90GroupedGemm const&) = delete;
  CutlassSm90GroupedGemm& operator=(CutlassSm90GroupedGemm const&) = delete;

  // "" when one launch of a compiled kernel runs every group of `groups`, else the first rule they
  // break, naming the group and argument: gemm::check_arguments for the tensor cores; fp16 "tt"
  // or bf16 "tn", D of the input type and row-major, one batch; K and N multiples of 8 (TMA's
  // 16-byte units); one alpha and beta = 0 for all groups (C is not read).
  std::string unsupported(std::vector<gemm::GemmArguments> const& groups) const;

  // Every set: the same groups (extents, types, layouts), other pointers. Uploads each set's
  // extents, pointers and strides, and prepares a launch of it (workspace, CUTLASS's initialize).
  // Throws std::invalid_argument (unsupported) or std::runtime_error (CUTLASS refuses).
  void bind(std::vector<std::vector<gemm::GemmArguments>> const& sets);
  // Enqueues set `set`'s grouped GEMM on `stream`. Throws std::runtime_error when CUTLASS fails.
  void run(int set, cudaStream_t stream = nullptr);

  class Kernel;  // one compiled kernel with its bound sets (cutlass_sm90_grouped_gemm.cu)

 private:
  std::unique_ptr<Kernel> kernel_;
};

}  // namespace warploom::bench
