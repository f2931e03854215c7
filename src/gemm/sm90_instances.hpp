// src/gemm/sm90_instances.hpp
//
// The compiled instances of the sm90 TS GEMM, by configuration. A configuration is one kernel:
// a schedule (design, stages, staging buffers, cluster) with element types and operand majors.
// The build prebuilds a list of them (WARPLOOM_GEMM_INSTANCES, kernels/gemm/CMakeLists.txt) and
// generates the table below; any other configuration is compiled when first needed (JIT), from
// the same source (sm90_source.hpp).
#pragma once

#include <span>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "gemm/sm90/grouped_workspace.hpp"
#include "gemm/split_k_fold.hpp"
#include "warploom/gemm.hpp"

namespace warploom::gemm::sm90 {

// The fused epilogue of a configuration (kernels/gemm/sm90/epilogue_ops.cuh), as the kernel sees
// it: after gemm.cpp's transposition for a column-major D, which swaps rows and columns. What is
// here is compiled into the instance (which ops exist, the activation, the bias's broadcast and
// type); the pointers, strides and LeakyReLU's slope are run-time arguments. The default is the
// plain GEMM. Canonical: bias_broadcast and bias_type keep their defaults when there is no bias,
// and bias_type is F32 for fp32 D (D's type and fp32 are one type then).
struct EpilogueConfig {
  bool row_scale = false;
  bool col_scale = false;
  bool bias = false;
  Broadcast bias_broadcast = Broadcast::PerColumn;
  ScalarType bias_type = ScalarType::F32;
  bool pre_activation = false;
  Activation activation = Activation::Identity;
  bool residual = false;
  friend bool operator==(EpilogueConfig const&, EpilogueConfig const&) = default;
  bool fused() const { return !(*this == EpilogueConfig{}); }
  // Whether the epilogue makes a second pass over each staged subtile (epilogue_ops.cuh's Chunk
  // phase: an activation, a residual, the pre-activation output).
  bool second_pass() const {
    return activation != Activation::Identity || residual || pre_activation;
  }
};

// The EpilogueConfig of resolved, row-major-D arguments.
EpilogueConfig epilogue_config_of(GemmArguments const& resolved_args);

struct KernelConfig {
  ScalarType in = ScalarType::BF16;  // A and B
  ScalarType out = ScalarType::BF16;
  bool a_k_major = true;  // A row-major
  bool b_k_major = true;  // B column-major
  ConsumerDesign design = ConsumerDesign::Cooperative;
  int stages = 4;
  int staging_buffers = 2;
  int cluster_m = 1;
  int cluster_n = 1;
  // Columns of the accumulator tile: 0 for the design's own (cooperative 256, ping-pong 128), or
  // the cooperative design's narrower 128 or 64 (cooperative.hpp). Canonical: never the design's
  // own width spelled out, so that one kernel has one configuration.
  int tile_n = 0;
  EpilogueConfig epilogue = {};
  // The grouped kernel of the configuration (kernels/gemm/sm90/grouped.cuh: many problems in one
  // launch, 1x1 clusters), launched through a GroupedLaunchFn.
  bool grouped = false;
  // The grouped kernel's tiles handed out by a dynamic tile scheduler (TileScheduling::Dynamic:
  // kernels/gemm/sm90/cooperative_dynamic.hpp, pingpong_dynamic.hpp; 1x1 clusters).
  bool dynamic_tiles = false;
  friend bool operator==(KernelConfig const&, KernelConfig const&) = default;
};

// Whether `c` runs its epilogue's second pass in a finish task of its own (kernels/gemm/sm90/
// pingpong.hpp): ping-pong's dense GEMM with a second pass. (The cooperative design and the grouped
// kernel run it in the MMA warpgroups.)
bool has_finish_task(KernelConfig const& c);

// Whether split-K's slices on `c` can add themselves up (GemmConfig::kSplitKFold, config.cuh: the
// cooperative design, where one tile's MMA threads hold all of it, with 1x1 clusters).
bool folds_split_k(KernelConfig const& c);

// The accumulator tile's columns of `c` (its tile_n, or its design's).
int tile_n_of(KernelConfig const& c);

// e.g. "bf16_bf16_tn_cooperative_s4_b2_1x1" (tn: A row-major, B column-major, as in BLAS); a
// narrower tile than the design's appends its width ("_n64"); the grouped kernel appends "grouped",
// and "grouped_dynamic" with the dynamic tile scheduler; a fused epilogue appends its ops in the
// order they apply, e.g.
// "..._1x1_colbiasbf16_gelu" or "..._1x1_rowscale_colscale_rowbiasfp32_preact_leakyrelu_residual"
// (the tokens of epilogue_tokens).
std::string name_of(KernelConfig const& c);

// The name's tokens of a fused epilogue, in order ("" for none): rowscale, colscale,
// {row,col}bias{fp32,bf16,fp16}, preact, the activation without underscores (relu, leakyrelu,
// gelu, gelutanh, hardswish, sigmoid, silu, tanh), residual.
std::vector<std::string> epilogue_tokens(EpilogueConfig const& e);

// The configuration gemm() runs for resolved, row-major-D arguments and a tuning whose design is
// not Auto (stages 0 and staging_buffers 0 become the design's defaults, or ping-pong's with a
// finish task: 5 stages, 2 staging buffers, or a narrow tile's: cooperative_stages); tile_n 0 or
// the design's width, the design's tile; `grouped`: the grouped kernel's.
KernelConfig config_of(GemmArguments const& resolved_args, GemmTuning const& tuning,
                       bool grouped = false);

// Every configuration gemm() can select with the designs' default stages: fp16/bf16 inputs with D
// of the input type or fp32 in all four operand majors, fp8 inputs with D bf16, fp16 or fp32 "tn",
// both designs (and the cooperative design's narrower tiles), clusters 1x1, 2x1 and 1x2 (`warploom
// precompile --all`; WARPLOOM_GEMM_INSTANCES=all prebuilds them, which gemm_jit_test checks).
std::vector<KernelConfig> selectable_configs();

// Throws std::invalid_argument naming the tuning fields and both sizes unless the configuration's
// stages and staging buffers fit shared memory.
void check_fits(KernelConfig const& c);

// The tile widths (tile_n) a design runs, its own first: cooperative 256, 128 and 64; ping-pong
// 128.
std::span<int const> tile_widths(ConsumerDesign d);

// A design's tile (one accumulator tile: 128 x 256 cooperative, 128 x 128 per consumer warpgroup
// ping-pong; tile_n other than 0: that width), the K tile in bytes (one 128-byte swizzle row: 64
// 16-bit or 128 fp8 elements) and the design's default stages and staging buffers, read off its
// schedule; and the shared memory a configuration's stages and staging take, the number check_fits
// compares with the capacity. For the plan API's tile descriptions (warploom/ops/), so they print
// what the kernel runs.
struct DesignShape {
  int tile_m, tile_n, tile_k_bytes, stages, staging_buffers;
};
DesignShape design_shape(ConsumerDesign d, int tile_n = 0);
long long smem_bytes_of(KernelConfig const& c);

// The name of the schedule `c` runs (e.g. "sm90_ts_gemm_pingpong_c2"), and a check that the
// build verified it (its schedule unit is registered): throws std::invalid_argument naming the
// tuning fields and the schedules that exist otherwise.
std::string schedule_of(KernelConfig const& c);
void check_schedule(KernelConfig const& c);
// Whether check_schedule(c) passes, without building its message.
bool schedule_verified(KernelConfig const& c);

// A dense configuration's launcher: resolved, row-major-D arguments; `fold` inactive, or (a
// configuration with it: folds_split_k) the batches are split-K's slices adding themselves up
// (gemm/split_k_fold.hpp).
using LaunchFn = void (*)(GemmArguments const&, GemmTuning const&, SplitKFold const& fold,
                          cudaStream_t);
// A grouped configuration's launcher: every group a resolved, row-major-D problem of the
// configuration, none empty; `valid_m` empty, or per group the device address of its count of
// valid rows of A and D (grouped_gemm_masked), read when the kernel runs; `row_ends` null, or the
// groups' cumulative row ends in device memory, each group the whole stacked A, C and D
// (grouped_gemm_contiguous); `workspace` kGroupedWorkspaceBytesPerGroup bytes a group, aligned to
// kGroupedWorkspaceAlignment (grouped_workspace.hpp), the launch's alone while it runs: the
// problems' kernel parameters (their TMA descriptors, written on the device) and the tile walk's
// tables and counters; `steps`: the setup kernel and the grouped kernel, or one of them
// (GroupedSteps, grouped_workspace.hpp).
using GroupedLaunchFn = void (*)(std::span<GemmArguments const> groups,
                                 std::span<int const* const> valid_m, int const* row_ends,
                                 GemmTuning const&, void* workspace, GroupedSteps steps,
                                 cudaStream_t);

// A configuration's launcher: `launch` for a dense one, `launch_grouped` for a grouped one.
struct Launchers {
  LaunchFn launch = nullptr;
  GroupedLaunchFn launch_grouped = nullptr;
};

struct PrebuiltInstance {
  KernelConfig config;
  Launchers launchers;
};

// Every instance the build compiled (generated: sm90_instance_table.cpp in the build tree).
std::span<PrebuiltInstance const> prebuilt_instances();

// The compiler the JIT compiles `c` with: NVRTC (the kernel; the host compiler its launcher) by
// default, nvcc where NVRTC's path does not apply (grouped kernels, tiles from a queue, no
// loadable libnvrtc) or WARPLOOM_JIT_COMPILER=nvcc asks for it. Throws std::invalid_argument,
// naming the variable, for another value of WARPLOOM_JIT_COMPILER.
enum class JitCompiler { Nvcc, Nvrtc };
JitCompiler jit_compiler_for(KernelConfig const& c);

// The source that compiles `c`: a prebuilt configuration's translation unit, or what the JIT
// compiles for it (nvcc's one translation unit, or NVRTC's kernel and the launcher, under
// headings).
std::string source_of(KernelConfig const& c);

// The launcher of `c`: the prebuilt instance, or else one compiled when first needed (after
// check_fits and check_schedule) and kept in memory and in the on-disk kernel cache.
// Throws std::runtime_error with the compiler's messages when that compilation fails.
LaunchFn instance_for(KernelConfig const& c);
// The launcher of grouped configuration `c` (c.grouped), as instance_for finds or compiles it.
GroupedLaunchFn grouped_instance_for(KernelConfig const& c);

}  // namespace warploom::gemm::sm90
