// kernels/gemm/simt/instances.hpp
//
// The SIMT GEMM instances as the dispatcher (simt_gemm.cpp) sees them: declared here, defined in
// kernel.cuh and explicitly instantiated in two translation units, instances_wide.cu (fp16, bf16,
// fp32 and fp64 inputs) and instances_fp8.cu, six kernels each. Apart, the two build in parallel
// and the dispatcher compiles as plain C++: one unit of all twelve kernels took 28-30 s of CPU,
// each half 17-19 s (about 7 s per unit and 2 s per kernel), so two cores build them in two
// thirds of the time, for a quarter more CPU time in all.
#pragma once

#include <cuda_runtime_api.h>

#include "warploom/gemm.hpp"

namespace warploom::gemm::simt {

// TIn x TIn -> TOut (kernel.cuh).
template <class TIn, class TOut>
struct Instance;

// Runs instance I on `args`, normalised by gemm.cpp (kernel.cuh).
template <class I>
void launch_simt_gemm(GemmArguments const& args, GemmTuning const& tuning, cudaStream_t stream);

}  // namespace warploom::gemm::simt
