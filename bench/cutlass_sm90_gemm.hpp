// bench/cutlass_sm90_gemm.hpp
//
// CUTLASS's own sm90 GEMM as a benchmark contender: the kernel CUTLASS's CollectiveBuilders
// assemble from the CUTLASS headers warploom builds on (TMA warp-specialized main loop with
// StageCountAutoCarveout, TMA epilogue, persistent tile scheduler, GemmUniversalAdapter), in two
// schedules:
//
//   Cooperative  both consumer warpgroups on one 128x256x64 tile, 2x1x1 clusters (B multicast):
//                the tile and cluster of warploom's sm90 TS GEMM
//   Pingpong     the consumer warpgroups on alternate 128x128x64 tiles, one's epilogue under the
//                other's main loop; 2x1x1 clusters
//
// It runs D = alpha * A.B + beta * C for bf16 or fp16 A and B, fp32 accumulation, C and D of the
// input type, layout "tn" (A row-major = K-major, B column-major = K-major, C and D row-major),
// any batch count (CUTLASS's L mode); C may be null when beta == 0. cutlass_sm90_gemm.cu, the only
// file that includes CUTLASS's GEMM headers, compiles four kernels: {bf16, fp16} x {Cooperative,
// Pingpong}.
//
//   bench::CutlassSm90Gemm cutlass(bench::CutlassSchedule::Pingpong);
//   if (cutlass.supports(args)) cutlass.run(args, stream);  // else unsupported(args) says why
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <cuda_runtime_api.h>

#include "warploom/gemm.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::bench {

enum class CutlassSchedule { Cooperative, Pingpong };

// The schedule with its tile and cluster, e.g. "cooperative 128x256x64, cluster 2x1x1".
std::string_view to_string(CutlassSchedule s);

// One schedule of CUTLASS's sm90 GEMM, for both input types. Owns the kernels' workspace (empty
// for these kernels, sized by CUTLASS's get_workspace_size); each kernel is prepared on first use
// (shared-memory attribute, SM count and resident clusters of the device current then).
class CutlassSm90Gemm {
 public:
  explicit CutlassSm90Gemm(CutlassSchedule schedule = CutlassSchedule::Cooperative);
  ~CutlassSm90Gemm();
  CutlassSm90Gemm(CutlassSm90Gemm const&) = delete;
  CutlassSm90Gemm& operator=(CutlassSm90Gemm const&) = delete;

  CutlassSchedule schedule() const { return schedule_; }

  // "" when run() can run `args`, else the first rule they break, naming the argument: the rules
  // of gemm::check_arguments for GemmKernel::TensorCore, then CUTLASS's (D of the input type,
  // layout tn, K and N multiples of 8 elements, C under TMA's rules when beta != 0, and
  // can_implement).
  std::string unsupported(gemm::GemmArguments const& args) const;
  bool supports(gemm::GemmArguments const& args) const { return unsupported(args).empty(); }

  // Enqueues the GEMM on `stream`. Throws std::invalid_argument (unsupported(args)) before
  // anything launches, std::runtime_error when CUTLASS fails to initialize or launch.
  void run(gemm::GemmArguments const& args, cudaStream_t stream = nullptr);

  class Kernel;  // one compiled CUTLASS GEMM, prepared for a device (cutlass_sm90_gemm.cu)

 private:
  CutlassSchedule schedule_;
  std::unique_ptr<Kernel> bf16_, fp16_;
  testing::DeviceBuffer workspace_;
};

}  // namespace warploom::bench
