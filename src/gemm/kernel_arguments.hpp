// src/gemm/kernel_arguments.hpp
//
// What gemm() hands a kernel, for callers inside the library that pick the kernel instance
// themselves (the plan API, src/ops/gemm.cpp, which keeps its compiled instance): the checks, the
// resolution and the column-major-D transposition stay in gemm.cpp, in one place, so a plan runs
// exactly the arguments gemm() would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "warploom/gemm.hpp"
#include "warploom/prepared_grouped_gemm.hpp"

namespace warploom::gemm {

// `args` checked for `kernel` (TensorCore or Simt; Auto is an internal error), resolved (packed
// leading dimensions and batch strides filled in), and with a column-major D turned into the
// row-major D^T = B^T . A^T (A and B swapped and transposed, M and N swapped): the arguments a
// launcher of that kernel takes. A tuning's cluster is then in the transposed problem's terms too:
// swap cluster_m and cluster_n when args.d_layout is column-major, as gemm() does.
GemmArguments kernel_arguments(GemmArguments const& args, GemmKernel kernel);

// Throws std::invalid_argument naming the first pointer of checked arguments `r` (as the caller
// wrote them: kernel_arguments' transposition swaps A and B) that the current device cannot reach
// (host memory from malloc without HMM, pinned memory mapped elsewhere), before a launch would end
// the context with an illegal address. Separate from check_arguments, which never asks the driver
// (its tests pass made-up addresses, with or without a GPU); gemm() and Gemm::run call it. A
// pointer the driver cannot classify is left to the launch.
void check_device_pointers(GemmArguments const& r);
// The same for one pointer `p` named `name` (no "gemm: " in front: the caller says whose).
void check_device_pointer(char const* name, void const* p);

// Throws std::invalid_argument ("gemm: workspace overlaps ...") when the `bytes` of workspace at
// `data` share a byte with the resolved arguments `r`'s operands or device scalars: the kernel
// writes its workspace while it reads them and writes D (gemm()'s stream-K, the grouped calls).
void check_workspace_outside(GemmArguments const& r, void const* data, std::size_t bytes);

// The first of TMA's rules that a resolved operand (`name`: "a", "b" or "d") breaks, as an error
// message; "" when it keeps them all: base 16-byte aligned, strides multiples of 16 bytes below
// 2^40 bytes.
std::string tma_violation(std::string_view name, void const* data, ScalarType type,
                          MatrixLayout layout, std::int64_t ld, std::int64_t batch_stride, int rows,
                          int cols, int batch);

// gemm() on the tensor cores, for arguments whose pointers the caller has checked or made itself
// (repack.cpp's workspace: memory a captured graph allocates is not mapped yet, and the driver
// would call it host memory): the checks for the tensor-core GEMM, then split or one launch.
void run_checked_tensor_core(GemmArguments const& args, GemmTuning const& tuning,
                             cudaStream_t stream);

// Whether `t` is an fp8 type (e4m3, e5m2).
bool is_fp8(ScalarType t);
// Whether `t` is a 16-bit float type (fp16, bf16).
bool is_16_bit(ScalarType t);

// Output tiles are counted in tiles of 64 x 64, the smallest of any kernel's (sm90 128 x 128, SIMT
// 128 x 64): the persistent loops (and the grouped kernel's walk over all its groups) count tiles
// in int and step them by the grid, so a launch holds at most kMaxTiles of them.
inline constexpr std::int64_t kMaxTiles = std::int64_t{1} << 30;
constexpr std::int64_t tiles_of_64(std::int64_t m, std::int64_t n) {
  return ((m + 63) / 64) * ((n + 63) / 64);
}

// Throws std::invalid_argument naming the first field of `tuning` out of its range (gemm()'s
// checks, before any argument's).
void check_tuning(GemmTuning const& tuning);

// Checked `tuning` for the tensor-core GEMM on resolved, row-major-D arguments `r`, its tile width
// settled: Auto's for a device of `sms` SMs (split_k.hpp, selected_tile_n) unless one was asked
// for, the design is ping-pong, stages or staging buffers were asked for (a shape of the
// design's own tile), or the problem is one narrow tiles were not measured on (fp8 inputs, a fused
// epilogue); a width with design Auto takes the cooperative design, whose widths they are.
GemmTuning with_tile_width(GemmArguments const& r, GemmTuning tuning, int sms);
// Whether with_tile_width picks the width of `tuning` for `r` (none asked for, and the rules
// above).
bool auto_picks_tile_width(GemmArguments const& r, GemmTuning const& tuning);

// The operands of D^T = B^T . A^T: M and N, A and B (each seen transposed: the same storage) and
// their fp8 scales swapped; C, D and the epilogue as they were (the caller says how D^T is
// stored: a column-major D's is row-major, split-K's partial sums are a workspace's).
GemmArguments operands_swapped(GemmArguments args);

// grouped_gemm on checked `tuning`, each refusal of group i prefixed with group_name(i): for
// callers that name their groups otherwise (ops::GroupedGemm, by their place among its caller's
// groups, empty ones included).
void grouped_gemm_named(std::span<GemmArguments const> groups, cudaStream_t stream,
                        GemmTuning const& tuning,
                        std::function<std::string(std::size_t)> const& group_name,
                        void* workspace = nullptr, std::size_t workspace_bytes = 0,
                        std::string_view who = "grouped_gemm");
// prepare_grouped_gemm likewise (ops::GroupedGemm::prepare).
PreparedGroupedGemm prepare_grouped_gemm_named(
    std::span<GemmArguments const> groups, cudaStream_t stream, GemmTuning const& tuning,
    std::function<std::string(std::size_t)> const& group_name, void* workspace,
    std::size_t workspace_bytes, std::string_view who);

}  // namespace warploom::gemm
