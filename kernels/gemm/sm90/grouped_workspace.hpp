// kernels/gemm/sm90/grouped_workspace.hpp — the device workspace a launch of the grouped kernel
// takes (grouped.cuh), sized by the host before it knows the instance (src/gemm/grouped_gemm.cpp,
// gemm::grouped_gemm_workspace_bytes): a bound per group that every instance fits, asserted where
// each is compiled.
#pragma once

#include <cstddef>

namespace warploom::gemm::sm90 {

// Per group: the problem's kernel parameters (three TMA descriptors written on the device, the
// fused epilogue's pointers and strides: 896 bytes for the plain epilogue, 1024 for the longest
// chain, nvcc 13.0) and its 32-byte tile-walk entry, with room for the padding between the two
// tables, the launch's three counters and a longer chain to come. A multiple of the alignment: each
// launch of a call starts its share aligned.
inline constexpr std::size_t kGroupedWorkspaceBytesPerGroup = 2048;
// The kernel parameters' alignment (their TMA descriptors': 128 bytes).
inline constexpr std::size_t kGroupedWorkspaceAlignment = 128;

// What a launch of the grouped GEMM enqueues. SetUpAndRun: the setup kernel writes the problems'
// kernel parameters into the workspace and the grouped kernel runs on them (a call of
// gemm::grouped_gemm). SetUp: the setup kernel alone, and Run: the grouped kernel alone on a
// workspace set up before for the same problems (gemm::PreparedGroupedGemm, whose runs are one
// kernel each). The masked and contiguous layouts read their rows in the setup kernel: they run
// both steps at every launch.
enum class GroupedSteps { SetUpAndRun, SetUp, Run };

}  // namespace warploom::gemm::sm90
