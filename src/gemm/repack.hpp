// src/gemm/repack.hpp — the tensor cores for operands TMA cannot read as they lie.
//
// TMA reads a matrix only from a 16-byte aligned base with leading dimensions and batch strides in
// whole 16-byte units. The tensors users hold often are not: a contiguous bf16 A of K = 700
// (1400-byte rows), a 4097-wide matrix, GPT-2's 50257-wide logits. Left to the SIMT kernel they run
// at a sixth of cuBLAS (3000x5000x700 bf16: 26 against 163 TFLOP/s on the H200, 2026-12-01). Here
// gemm()'s Auto copies each such operand into a workspace laid out for TMA (the same layout, the
// leading dimension rounded up to 16 bytes, batches packed), runs the tensor-core GEMM on the
// copies (split-K included), and copies a D that needed it back: a pass over the operands' bytes
// beside a GEMM of far more work. fp8 operands that are not K-major (a column-major A, a row-major
// B: wgmma reads fp8 K-major only) are copied transposed, so that they too run on the tensor cores
// instead of the SIMT GEMM. (An fp8 D is not copied: Auto refuses one TMA cannot write.)
#pragma once

#include <cuda_runtime_api.h>

#include "warploom/gemm.hpp"

namespace warploom::gemm {

// Whether gemm()'s Auto copies operands of `args` for the tensor cores (false for arguments the
// SIMT GEMM's checks refuse): fp16, bf16 or fp8 inputs, at least 2^26 multiply-adds, an operand
// that breaks TMA's rules or an fp8 operand that is not K-major (the tensor-core rules on the
// copies are checked when it runs).
bool repacks(GemmArguments const& args);

// Runs `args` (checked for the SIMT GEMM, their device pointers checked) on the tensor cores
// through aligned copies of the operands that break TMA's rules, on `stream` with `tuning` (its
// kernel Auto): true when it ran them; false, having enqueued nothing, where copies do not make
// them a tensor-core problem (other types or rules), nothing needs a copy, or the GEMM is too small
// to pay for the copies.
bool run_repacked(GemmArguments const& args, GemmTuning tuning, cudaStream_t stream);

}  // namespace warploom::gemm
