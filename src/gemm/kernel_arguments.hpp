// src/gemm/kernel_arguments.hpp
//
// What gemm() hands a kernel, for callers inside the library that pick the kernel instance
// themselves (the plan API, src/ops/gemm.cpp, which keeps its compiled instance): the checks, the
// resolution and the column-major-D transposition stay in gemm.cpp, in one place, so a plan runs
// exactly the arguments gemm() would.
#pragma once

#include "warploom/gemm.hpp"

namespace warploom::gemm {

// `args` checked for `kernel` (TensorCore or Simt; Auto is an internal error), resolved (packed
// leading dimensions and batch strides filled in), and with a column-major D turned into the
// row-major D^T = B^T . A^T (A and B swapped and transposed, M and N swapped): the arguments a
// launcher of that kernel takes. A tuning's cluster is then in the transposed problem's terms too:
// swap cluster_m and cluster_n when args.d_layout is column-major, as gemm() does.
GemmArguments kernel_arguments(GemmArguments const& args, GemmKernel kernel);

}  // namespace warploom::gemm
