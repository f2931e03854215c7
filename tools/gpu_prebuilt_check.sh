#!/usr/bin/env bash
# A GPU check of a build made on another machine (for a device session whose minutes do not allow a
# build there): the GPU tests of the fused epilogue and the plan API, compute-sanitizer (memcheck,
# racecheck, synccheck) on them, the fused-epilogue benchmark against cuBLASLt and the unfused
# chains, the host costs (launch overhead, JIT compile / disk load / lookup) and, when present, the
# Python package's GPU tests.
#
# Where the build was made:
#   cmake --preset release -B build/fused -DWARPLOOM_GEMM_INSTANCES=fused
#   cmake --build build/fused --target warploom_gemm warploom_host gemm_test ops_gemm_plan_test \
#     warploom warploom-bench warploom-precompile host_costs
#   bash tools/gpu_prebuilt_check.sh --pack           # -> build/fused.tar.xz (binaries, no objects)
# On the device, with build/fused.tar.xz, .deps/cutlass and .deps/sysroot carried (the JIT's headers):
#   OUT=<dir> bash tools/gpu_prebuilt_check.sh        # $OUT/check.log (every step's output, as it
#                                                     # goes) and the results as JSON
# Steps run most important first, each under a time limit, so that a device session cut short
# still brings back what ran.
#
# The build tree holds absolute paths (ctest's commands, the JIT's include directories): the tree
# is linked at the path it was built at ($BUILT_AT, default /work/main) when it lies elsewhere.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build/fused}
if [[ ${1:-} == --pack ]]; then
  # The installed package too: the Python package builds against it (tools/python_gpu_check.sh).
  cmake --install "$BUILD" --prefix "$BUILD/python-prefix" >/dev/null
  # The commit the binaries were built from, for the results' "commit" (the device's copy of the
  # tree has no .git): the harness reads it from WARPLOOM_COMMIT.
  git describe --always --dirty --abbrev=7 >"$BUILD/commit.txt"
  # What the steps run, nothing else (a build folder's objects and CMake files are most of it): the
  # programs, the shared libraries they load, the GPU test programs and the installed package.
  mapfile -t files < <(find "$BUILD/lib" -name '*.so*'; find "$BUILD/tests/gpu" -maxdepth 1 -type f -perm -u+x)
  tar -cJf "$BUILD.tar.xz" "$BUILD/commit.txt" "$BUILD/bin" "$BUILD/python-prefix" "${files[@]}"
  ls -la "$BUILD.tar.xz"
  exit 0
fi
OUT=${OUT:-$PWD/build/gpu-out}
mkdir -p "$OUT"
LOG=$OUT/${CHECK_LOG:-check.log}  # CHECK_LOG: another name, for a second call into one $OUT
: >"$LOG"
status=0
run() {  # run <label> <seconds> <command...>: output appended to $LOG; keeps going
  local label=$1 limit=$2
  shift 2
  local t0=$SECONDS rc=0
  echo "==== $label: $*" >>"$LOG"
  timeout "$limit" "$@" >>"$LOG" 2>&1 || rc=$?
  if [[ $rc -eq 0 ]]; then
    echo "ok      $label ($((SECONDS - t0)) s)" | tee -a "$LOG"
  else
    echo "FAILED  $label ($((SECONDS - t0)) s, exit $rc)" | tee -a "$LOG"
    status=1
  fi
}
BUILT_AT=${BUILT_AT:-/work/main}
if [[ $(pwd -P) != "$(readlink -f "$BUILT_AT" 2>/dev/null)" ]]; then
  mkdir -p "$(dirname "$BUILT_AT")" && ln -sfn "$PWD" "$BUILT_AT"
fi
# BUILD_HERE=1: configure and build on this machine (16 cores: minutes, where the 2-core build
# machine takes most of an hour after a change to the kernels' headers), then install the package
# the Python steps build against. EXTRA_TARGETS: more targets to build (a new test program). The
# device's copy of the tree has no .git: pass the commit it holds as WARPLOOM_COMMIT=<sha> (the
# results' "commit"; `git describe --always --dirty` where the call is made).
if [[ ${BUILD_HERE:-0} == 1 ]]; then
  # EXTRA_CMAKE_ARGS: e.g. -DWARPLOOM_ATTENTION_INSTANCES=all for the attention step.
  run configure 120 cmake --preset release -B "$BUILD" -DWARPLOOM_GEMM_INSTANCES=fused \
    ${EXTRA_CMAKE_ARGS:-}
  # BUILD_TARGETS: the targets to build instead of the default ones (a short device session).
  run build 480 cmake --build "$BUILD" --parallel "$(nproc)" --target ${BUILD_TARGETS:-warploom_gemm \
    warploom_host gemm_test ops_gemm_plan_test warploom warploom-bench warploom-precompile \
    host_costs tutorial_copy_test ts_pipeline_group_gpu_test ts_pipeline_test ts_warp_roles_test \
    gemm_nvrtc_gpu_test} ${EXTRA_TARGETS:-}
  run install 60 cmake --install "$BUILD" --prefix "$BUILD/python-prefix"
  grep -E "error|FAILED" "$LOG" | head -40
fi
[[ -d $BUILD/bin ]] || tar -xJf "$BUILD.tar.xz"
if [[ -z ${WARPLOOM_COMMIT:-} && -f $BUILD/commit.txt ]]; then
  WARPLOOM_COMMIT=$(cat "$BUILD/commit.txt")
  export WARPLOOM_COMMIT
fi
# One kernel cache for the whole check, kept in the build folder: a later call on a machine still
# warm finds the instances an earlier one compiled.
export WARPLOOM_CACHE_DIR=${WARPLOOM_CACHE_DIR:-$PWD/$BUILD-jit-cache}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit \
  --format=csv,noheader | tee -a "$LOG"
B=$BUILD/bin
T=$BUILD/tests/gpu
# STEPS: the steps to run, by name (default: all of them). They run in this file's order, not in
# STEPS' (attention-sanitizers before python and the sweeps, for one).
steps=" ${STEPS:-nvrtc sanitize-nvrtc precompile gemm-epilogue scalars ops-plan grouped-jit grouped tutorial-pdl tutorial-persistent tutorial-groups bench-groups tutorial-split-k tutorial-pdl-gemm tutorial-merge-gemm tutorial-merge-gemm-02 gemm-edges bench bench-grouped grouped-autotune ncu-grouped ncu host-costs python examples split-k sanitize-split-k ncu-split-k python-bench grouped-bench sanitizers} "
want() { [[ "$steps" == *" $1 "* ]]; }
# default_instances <types>_<letters>: the six configurations Auto may run for them (both designs
# at their default stages, every cluster shape), e.g. bf16_bf16_tt_cooperative_s4_b2_1x1.
default_instances() {
  local design cluster
  for design in cooperative_s4_b2 pingpong_s6_b1; do
    for cluster in 1x1 2x1 1x2; do echo "$1_${design}_${cluster}"; done
  done
}
# The bf16 configurations the edge tests run besides the prebuilt "tn" ones (every operand major,
# both designs, every cluster), compiled side by side first: one at a time, the JIT would spend
# most of the steps' time limits on them.
if want precompile; then
  configs=()
  for letters in tt nn nt; do
    mapfile -t -O "${#configs[@]}" configs < <(default_instances "bf16_bf16_$letters")
  done
  # fp8 outputs and a device alpha in a fused chain (tests/gpu/gemm/fp8_output_test.cpp,
  # device_scalars_test.cpp).
  for design in cooperative_s4_b2 pingpong_s6_b1; do
    for types in bf16_e4m3 bf16_e5m2 e4m3_e4m3 fp16_e4m3; do configs+=("${types}_tn_${design}_1x1"); done
  done
  run precompile 240 "$B/warploom" precompile -j "$(nproc)" "${configs[@]}"
fi
epilogue_tests='TsGemmEpilogue.*:SimtGemmEpilogue.*:Activation.*'
# The fused configurations the epilogue tests run that the build does not prebuild, side by side.
if want gemm-epilogue; then
  configs=(bf16_bf16_tn_cooperative_s4_b2_1x1_rowscale_colscale_colbiasfp32_preact_gelu_residual)
  # TsGemmEpilogue.EveryActivationWithABiasOrScalesAlone: each activation with a bias or scales,
  # D row-major and column-major (the kernel's view: the bias trades rows for columns).
  # Ping-pong runs them with a finish task, by default with 5 stages and 2 staging buffers.
  ping=bf16_bf16_tn_pingpong_s5_b2_1x1 coop=bf16_bf16_tn_cooperative_s4_b2_1x1
  for chain in colbiasfp32_relu rowbiasfp32_relu rowscale_colscale_gelu colbiasbf16_hardswish \
    rowbiasbf16_hardswish colbiasfp32_silu rowbiasfp32_silu; do configs+=("${ping}_$chain"); done
  for chain in rowbiasbf16_leakyrelu colbiasbf16_leakyrelu rowbiasfp32_gelutanh \
    colbiasfp32_gelutanh rowscale_colscale_sigmoid rowbiasbf16_tanh colbiasbf16_tanh; do
    configs+=("${coop}_$chain")
  done
  # TsGemmEpilogue.EveryActivationWithEveryOp (every op with each activation, the designs in turn)
  # and PartialChains (each phase alone; ping-pong's chains with a second pass run its finish
  # task, 5 stages and 2 staging buffers).
  every=rowscale_colscale
  for chain in colbiasfp32_preact_residual rowbiasfp32_preact_leakyrelu_residual \
    colbiasbf16_preact_gelutanh_residual rowbiasbf16_preact_sigmoid_residual \
    colbiasfp32_preact_tanh_residual; do configs+=("${coop}_${every}_$chain"); done
  for chain in colbiasbf16_preact_relu_residual rowbiasbf16_preact_gelu_residual \
    colbiasfp32_preact_hardswish_residual rowbiasfp32_preact_silu_residual; do
    configs+=("${ping}_${every}_$chain")
  done
  for chain in colbiasbf16 colbiasfp32_gelu colbiasbf16_preact_gelu residual; do
    configs+=("${coop}_$chain")
  done
  for chain in colbiasfp32_gelu rowscale_colscale relu; do configs+=("${ping}_$chain"); done
  configs+=(bf16_bf16_tn_pingpong_s6_b1_1x1_rowscale_colscale bf16_bf16_tn_pingpong_s6_b1_1x1_relu)
  run precompile-epilogue 180 "$B/warploom" precompile -j "$(nproc)" "${configs[@]}"
  run gemm-epilogue 150 "$T/gemm_test" --gtest_filter="$epilogue_tests"
fi
# Device alpha/beta (graph replays with new values), fp8 D with its scale and amax, and the plain
# kernels' own tests after the epilogue changed (TsGemm's prebuilt bf16 "tn" ones: the rest of
# TsGemm compiles dozens of configurations, more than a step's minutes).
scalar_tests='DeviceScalars.*:Fp8Output.*:SimtGemm.*:TsGemm.EveryClusterShape:TsGemm.PersistentLoop*:TsGemm.LargeProblems*'
want scalars && run scalars 240 "$T/gemm_test" --gtest_filter="$scalar_tests"
want ops-plan && run ops-plan 90 "$T/ops_gemm_plan_test"
# The JIT's NVRTC path, piece by piece: a TS kernel launched by its cudaKernel_t, and the GEMM
# kernel NVRTC compiles, loaded from its cubin and launched by handle, against the nvcc kernel bit
# for bit; then both kernels' Nsight Compute times at locked clocks (the same name, in launch order:
# nvcc's first); then (sanitize-nvrtc) both under each sanitizer.
if want nvrtc; then
  run launch-by-handle 60 "$T/ts_pipeline_test" --gtest_filter='*LaunchedByHandle*'
  run nvrtc-kernel 120 "$T/gemm_nvrtc_gpu_test"
  run ncu-nvrtc-kernel 300 ncu --clock-control base --kernel-name regex:ts_gemm_kernel \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,launch__registers_per_thread \
    "$T/gemm_nvrtc_gpu_test" --gtest_filter='*WritesWhatTheNvccKernelWrites*'
fi
if want sanitize-nvrtc; then
  for tool in memcheck synccheck racecheck; do
    run "$tool-launch-by-handle" 120 compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$T/ts_pipeline_test" --gtest_filter='*LaunchedByHandle*'
    run "$tool-nvrtc-kernel" 300 compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$T/gemm_nvrtc_gpu_test"
  done
fi
# Tutorial 04's PDL copy chain (both stream orders, a captured graph), then under each sanitizer.
if want tutorial-pdl; then
  run tutorial-pdl 120 "$T/tutorial_copy_test" --gtest_filter='*PdlCopyChain*'
  for tool in memcheck synccheck racecheck; do
    run "$tool-tutorial-pdl" 120 compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$T/tutorial_copy_test" --gtest_filter='*PdlCopyChain*'
  done
  # The gap PDL closes: the chain with plain launches against the chain with the second copy a
  # programmatic dependent, small to large, each call timed, then as captured graphs.
  for mode in call graph; do
    graph=()
    [[ $mode == graph ]] && graph=(--graph 20)
    run "bench-pdl-chain-$mode" 120 "$B/warploom" bench copy --shapes 65536,1048576,67108864 \
      --providers ts_chain,ts_chain_pdl,ts_grid_stride "${graph[@]}" --reps 30 \
      --json "$OUT/pdl_chain_$mode.json"
  done
fi
# Tutorial 03: the persistent copy over both work queues (a dynamic queue's scheduler warp and
# ring, over-launch, skipped tiles, a replayed graph) and the dynamic domain's segment copy; then
# the small cases under each sanitizer (every queue, CTA count and skip pattern, one size).
if want tutorial-persistent; then
  run tutorial-persistent 180 "$T/tutorial_copy_test" \
    --gtest_filter='*PersistentCopy*:*SegmentCopy*'
  for tool in memcheck synccheck racecheck; do
    run "$tool-tutorial-persistent" 300 compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$T/tutorial_copy_test" \
      --gtest_filter='*PersistentCopy*_n16376_*:*PersistentCopyGraph*:*SegmentCopy*segments37_*'
  done
fi
# Pipeline groups (ts::Merge, ts::Fork): the lowering's own test (thread and TMA members, every
# stage count, many laps) and tutorial 07's merge add and fork relu against their baselines; then
# each under every sanitizer (one stage count and shape apiece keeps them to minutes).
if want tutorial-groups; then
  run tutorial-groups 180 "$T/ts_pipeline_group_gpu_test"
  run warp-roles 120 "$T/ts_warp_roles_test"
  run tutorial-07 120 "$T/tutorial_copy_test" --gtest_filter='*MergeAdd*:*ForkRelu*'
  for tool in memcheck synccheck racecheck; do
    # racecheck: the cases whose readers all arrive thread by thread (tools/gpu.sh says why).
    filter='*'
    [[ $tool == racecheck ]] && filter='*Merge*:*ThreadArrivals*'
    run "$tool-pipeline-groups" 300 compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$T/ts_pipeline_group_gpu_test" --gtest_filter="$filter"
    run "$tool-warp-roles" 120 compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$T/ts_warp_roles_test" --gtest_filter="$([[ $tool == racecheck ]] && echo '*ThreadArrivals*' || echo '*')"
    run "$tool-tutorial-07" 300 compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$T/tutorial_copy_test" --gtest_filter='*MergeAdd*1000x384:*ForkRelu*1000x384'
  done
fi
# Tutorial 07's kernels against their hand-written baselines (and the fork against the unfused copy
# + relu), at sizes far beyond L2: short bursts with each contender's Nsight Compute kernel time
# (clocks controlled), then sustained (after back-to-back runs, at the power cap).
if want bench-groups; then
  for family in merge_add fork_relu; do
    run "bench-$family-burst" 150 "$B/warploom" bench "$family" --shapes 8192x8192,16384x16384 \
      --reps 20 --prof ncu --json "$OUT/${family}_burst.json"
    run "bench-$family-sustained" 150 "$B/warploom" bench "$family" \
      --shapes 8192x8192,16384x16384 --reps 20 --regime sustained \
      --json "$OUT/${family}_sustained.json"
  done
  # The fork GEMM + ReLU (07/04) against gemm() and a relu kernel, one run: its outputs are many.
  run bench-fork-gemm-relu 150 "$B/warploom" bench fork_gemm_relu \
    --shapes 4096x4096x4096,8192x8192x1024 --reps 10 --prof ncu
fi
# Tutorial 06's split-K over DSMEM: its tests (every split, the seed's skinny shape), each
# sanitizer on two of them, then the seed's shapes against gemm(), cuBLAS and cuBLASLt, every
# split tried (--autotune), with Nsight Compute's kernel time.
if want tutorial-split-k; then
  run tutorial-split-k 120 "$T/tutorial_copy_test" --gtest_filter='*SplitKGemm*'
  for tool in memcheck synccheck racecheck; do
    # racecheck: the cases where every thread arrives on the handshakes, the only form whose
    # DSMEM exchange it follows (kernels/tutorial/split_k_gemm.hpp).
    filter='*SplitKGemm*1024x16x1024_Split8:*SplitKGemm*_Split1'
    [[ $tool == racecheck ]] && filter='*SplitKGemm*_Split1:*SplitKGemm*EveryThread'
    run "$tool-tutorial-split-k" 180 compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$T/tutorial_copy_test" --gtest_filter="$filter"
  done
  run bench-split-k-gemm 180 "$B/warploom" bench split_k_gemm \
    --shapes 1024x16x1024,1024x16x4096,1024x16x8192 --autotune --reps 20 \
    --json "$OUT/split_k_gemm.json"
  run ncu-split-k-gemm 180 "$B/warploom" bench split_k_gemm \
    --shapes 1024x16x1024,1024x16x4096,1024x16x8192 --prof ncu --reps 5
fi
# Tutorial 04/01's clustered GEMM with PDL (2 x 1 clusters multicasting B): its tests (plain and
# PDL launches, the dependent chain on a stream and in a graph), each sanitizer on its smallest
# shape and the graph chain, then the chain D1 = A . B^T, D2 = D1 . C^T with and without PDL
# against gemm() and cuBLAS twice, stream-launched and as CUDA graphs (where launch gaps are
# smallest, so what PDL hides shows best), and Nsight Compute's kernel times (ncu serializes the
# kernels: no PDL overlap there, the kernels' own durations).
if want tutorial-pdl-gemm; then
  run tutorial-pdl-gemm 180 "$T/tutorial_copy_test" --gtest_filter='*ClusteredGemm*'
  for tool in memcheck synccheck racecheck; do
    run "$tool-tutorial-pdl-gemm" 240 compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$T/tutorial_copy_test" \
      --gtest_filter='Shapes/ClusteredGemm.*/256x128x64:ClusteredGemmChain.CapturedInAGraphAndReplayed'
  done
  run bench-pdl-gemm-chain 180 "$B/warploom" bench pdl_gemm_chain \
    --shapes 2048x2048x2048,4096x1024x1024,512x4096x4096 --reps 20 \
    --json "$OUT/pdl_gemm_chain.json"
  run bench-pdl-gemm-chain-graph 180 "$B/warploom" bench pdl_gemm_chain \
    --shapes 2048x2048x2048,4096x1024x1024,512x4096x4096 --reps 20 --graph 20 \
    --json "$OUT/pdl_gemm_chain_graph.json"
  run ncu-pdl-gemm-chain 180 "$B/warploom" bench pdl_gemm_chain \
    --shapes 2048x2048x2048,4096x1024x1024,512x4096x4096 --prof ncu --reps 5
fi
# Tutorial 07/03's GEMM + residual (two ts::Merge groups): its tests, each sanitizer on its two
# smallest cases, then against gemm() followed by an add kernel and gemm() with its own fused
# residual (JIT-compiled at its first, untimed run if the build did not prebuild it), with Nsight
# Compute's kernel time, and a burst run for the JSON.
if want tutorial-merge-gemm; then
  run tutorial-merge-gemm 120 "$T/tutorial_copy_test" --gtest_filter='*MergeGemmResidual*'
  for tool in memcheck synccheck racecheck; do
    run "$tool-tutorial-merge-gemm" 180 compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$T/tutorial_copy_test" \
      --gtest_filter='*MergeGemmResidual*128x128x64:*MergeGemmResidual*128x256x320'
  done
  run ncu-merge-gemm-residual 180 "$B/warploom" bench merge_gemm_residual \
    --shapes 4096x4096x4096,8192x8192x1024 --reps 10 --prof ncu
  run bench-merge-gemm-residual 150 "$B/warploom" bench merge_gemm_residual \
    --shapes 4096x4096x4096,8192x8192x1024 --reps 20 --json "$OUT/merge_gemm_residual.json"
fi
# Tutorial 07/02's merge GEMM (A through a load warp's registers and B by TMA, one ts::Merge;
# D = relu(A . B^T)): its tests and argument checks, each sanitizer on its two smallest cases
# (racecheck sees the load warp's st.shared against wgmma's reads only through the barriers),
# then against gemm() followed by a relu kernel, gemm() with its own fused ReLU (JIT-compiled at
# its first, untimed run if the build did not prebuild it) and cuBLAS + the relu kernel, with
# Nsight Compute's kernel time, and a burst run for the JSON.
if want tutorial-merge-gemm-02; then
  run tutorial-merge-gemm-02 120 "$T/tutorial_copy_test" \
    --gtest_filter='Shapes/MergeGemm.*:MergeGemmArgs.*'
  for tool in memcheck synccheck racecheck; do
    run "$tool-tutorial-merge-gemm-02" 180 compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$T/tutorial_copy_test" \
      --gtest_filter='Shapes/MergeGemm.*128x128x64_lda64:Shapes/MergeGemm.*128x256x320_lda328'
  done
  run ncu-merge-gemm 180 "$B/warploom" bench merge_gemm \
    --shapes 4096x4096x4096,8192x8192x1024 --reps 10 --prof ncu
  run bench-merge-gemm 150 "$B/warploom" bench merge_gemm \
    --shapes 4096x4096x4096,8192x8192x1024 --reps 20 --json "$OUT/merge_gemm.json"
fi
# The grouped GEMM (one launch for many problems) against the float64 reference.
# The configurations the grouped tests and benchmarks compile when first used (a fused epilogue,
# fp8, the designs and stage variants the Python benchmark times), side by side first.
if want grouped-jit; then
  run grouped-jit 180 "$B/warploom" precompile -j "$(nproc)" \
    bf16_bf16_tn_pingpong_s6_b1_1x1_grouped_colbiasbf16_gelu_residual \
    e4m3_bf16_tn_pingpong_s6_b1_1x1_grouped fp16_fp16_tt_pingpong_s5_b2_1x1_grouped \
    bf16_bf16_tn_cooperative_s4_b2_1x1_grouped bf16_bf16_tn_pingpong_s5_b2_1x1_grouped \
    fp16_fp16_tt_pingpong_s6_b1_1x1_grouped fp16_fp16_tt_cooperative_s4_b2_1x1_grouped \
    bf16_bf16_tn_pingpong_s6_b1_1x1_grouped \
    fp16_fp16_tt_cooperative_s4_b2_1x1_grouped_dynamic \
    bf16_bf16_tn_cooperative_s4_b2_1x1_grouped_dynamic
fi
want grouped && run grouped 180 "$T/gemm_test" --gtest_filter='GroupedGemm.*'
# Its two measurements in C++ (the seed's 50 problems, an MoE layer), against gemm() and cuBLAS
# per group and cuBLAS's own grouped call.
if want bench-grouped; then
  run bench-grouped-seed 150 "$B/warploom" bench grouped --shapes 50x1024 --dtype fp16 \
    --layout tt --mix seed --reps 20 --json "$OUT/grouped_seed.json"
  run bench-grouped-moe 150 "$B/warploom" bench grouped --shapes 16x4096 --dtype bf16 \
    --layout tn --mix moe --reps 20 --json "$OUT/grouped_moe.json"
  # The same as captured CUDA graphs, 20 replays back to back per sample: the GPU's time alone,
  # CUTLASS's own sm90 grouped kernel beside ours.
  run bench-grouped-seed-graph 150 "$B/warploom" bench grouped --shapes 50x1024 --dtype fp16 \
    --layout tt --mix seed --graph 20 --reps 20 --json "$OUT/grouped_seed_graph.json"
  run bench-grouped-moe-graph 150 "$B/warploom" bench grouped --shapes 16x4096 --dtype bf16 \
    --layout tn --mix moe --graph 20 --reps 20 --json "$OUT/grouped_moe_graph.json"
fi
# The grouped kernel's tunings (bench/grouped_plans.cpp's space: both designs, the stage variants),
# compiled side by side first, then each tried on both problems.
if want grouped-autotune; then
  configs=()
  for types in fp16_fp16_tt bf16_bf16_tn; do
    for design in cooperative_s4_b2 pingpong_s6_b1 cooperative_s2_b2 cooperative_s3_b2 \
      pingpong_s4_b1 pingpong_s5_b2; do configs+=("${types}_${design}_1x1_grouped"); done
    configs+=("${types}_cooperative_s4_b2_1x1_grouped_dynamic")  # tiles=dynamic
  done
  run grouped-precompile 240 "$B/warploom" precompile -j "$(nproc)" "${configs[@]}"
  run grouped-autotune-seed 150 "$B/warploom" bench grouped --shapes 50x1024 --dtype fp16 \
    --layout tt --mix seed --providers warploom,cublas_grouped,cutlass_grouped --autotune \
    --graph 20 --reps 10 \
    --json "$OUT/grouped_seed_autotune.json"
  run grouped-autotune-moe 150 "$B/warploom" bench grouped --shapes 16x4096 --dtype bf16 \
    --layout tn --mix moe --providers warploom,cublas_grouped,cutlass_grouped --autotune \
    --graph 20 --reps 10 \
    --json "$OUT/grouped_moe_autotune.json"
fi
# Nsight Compute on the seed's grouped launch: the setup kernel and the grouped kernel, each one's
# time, occupancy and stall reasons (where the launch's microseconds go).
if want ncu-grouped; then
  run ncu-grouped 180 ncu --section SpeedOfLight --section LaunchStats --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
    --section SourceCounters --import-source yes -k regex:grouped --launch-count 4 -o "$OUT/grouped_seed" -f "$B/warploom" bench grouped \
    --shapes 50x1024 --dtype fp16 --layout tt --mix seed --providers warploom --reps 1 --no-check
  run ncu-grouped-details 60 ncu -i "$OUT/grouped_seed.ncu-rep" --page details
  # Per-instruction warp samples (SASS with the source lines): where a tile's cycles go.
  run ncu-grouped-source 60 sh -c "ncu -i '$OUT/grouped_seed.ncu-rep' --page source --csv \
    --print-source sass,cuda | xz > '$OUT/grouped_seed_source.csv.xz'"
fi
# Nsight Compute on the MoE layer, ours beside CUTLASS's sm90 pointer-array grouped kernel (same
# tile, 128x128x64 ping-pong): where our cycles go at long K, where per-tile costs are amortised.
# Then the dense kernels at the experts' shapes (does the dense ping-pong lose the same way?).
if want ncu-moe; then
  for provider in warploom cutlass_grouped; do
    run "ncu-moe-$provider" 120 ncu --set full --import-source yes \
      -k regex:'ts_grouped_gemm_kernel|device_kernel' --launch-count 1 -o "$OUT/moe_$provider" -f \
      "$B/warploom" bench grouped --shapes 16x4096 --dtype bf16 --layout tn --mix moe \
      --providers "$provider" --reps 1 --no-check
    run "ncu-moe-$provider-details" 60 ncu -i "$OUT/moe_$provider.ncu-rep" --page details
  done
  run ncu-moe-source 60 sh -c "ncu -i '$OUT/moe_warploom.ncu-rep' --page source --csv \
    --print-source sass,cuda | xz > '$OUT/moe_warploom_source.csv.xz'"
  run bench-moe-dense 150 "$B/warploom" bench gemm --shapes 256x4096x4096,1024x4096x4096,2048x4096x4096 \
    --providers warploom,warploom_pp,cutlass_pp,cutlass,cublas --graph 20 --reps 10 \
    --json "$OUT/moe_dense.json"
fi
# sanitized <label> <filter>: gemm_test's <filter> under memcheck, synccheck and racecheck.
sanitized() {
  for tool in memcheck synccheck racecheck; do
    run "$tool-$1" 180 compute-sanitizer --tool "$tool" --error-exitcode 1 "$T/gemm_test" \
      --gtest_filter="$2"
  done
}
# bench_gemm_both_ways <label> <options...>: `warploom bench gemm` eagerly and as captured graphs,
# $OUT/<label>_{call,graph}.json.
bench_gemm_both_ways() {
  local label=$1 mode
  shift
  for mode in call graph; do
    local graph=()
    [[ $mode == graph ]] && graph=(--graph 20)
    run "bench-$label-$mode" 150 "$B/warploom" bench gemm "$@" "${graph[@]}" --reps 10 \
      --json "$OUT/${label//-/_}_$mode.json"
  done
}
# Split-K (GemmTuning::split_k) and the narrow tiles (GemmTuning::tile_n): the configurations
# their tests run beyond the prebuilt ones, side by side; the tests; then the small-output, long-K
# shapes of issue 15 against cuBLAS and cuBLASLt (Auto beside no split, fixed slice counts and
# each tile width), as graphs and eagerly. sanitize-split-k: the tests under each sanitizer.
# ncu-split-k: Nsight Compute's kernel times of every such point, one shape at a time, reduced per
# kernel and grid by tools/ncu_kernel_times.py.
SPLIT_K_SHAPES=${SPLIT_K_SHAPES:-512x512x65536,1024x16x8192,64x4096x16384,256x4096x4096}
if want split-k; then
  configs=(bf16_fp32_nn_cooperative_s4_b2_1x1 bf16_fp32_nt_cooperative_s4_b2_1x1
    fp16_fp32_tt_cooperative_s4_b2_1x1 e4m3_fp32_tn_cooperative_s4_b2_1x1
    bf16_bf16_tn_cooperative_s8_b2_2x1_n64 fp16_fp16_tn_cooperative_s8_b2_1x1_n64)
  # GemmTileWidth.EveryLayoutOnPartialTiles: each narrow width in every layout.
  for types in bf16_bf16 fp16_fp32; do
    for letters in tn tt nn nt; do
      configs+=("${types}_${letters}_cooperative_s6_b2_1x1_n128" "${types}_${letters}_cooperative_s8_b2_1x1_n64")
    done
  done
  # GemmSplitK.SmallMRunsOnTheTranspose: bf16 slices of D^T, 64 wide, in every layout.
  for letters in tn tt nn nt; do configs+=("bf16_fp32_${letters}_cooperative_s8_b2_1x1_n64"); done
  run split-k-precompile 180 "$B/warploom" precompile -j "$(nproc)" "${configs[@]}"
  run split-k 300 "$T/gemm_test" --gtest_filter='GemmSplitK.*:GemmTileWidth.*'
  bench_gemm_both_ways split-k --shapes "$SPLIT_K_SHAPES" --providers warploom,cublas,cublaslt \
    --autotune --points split
fi
if want sanitize-split-k; then
  sanitized split-k 'GemmSplitK.TheSlicesAddUpToTheGemm:GemmSplitK.ACapturedGraphReplays:GemmSplitK.SmallMRunsOnTheTranspose:GemmTileWidth.*'
fi
if want ncu-split-k; then
  reduce_args=()
  for shape in ${SPLIT_K_SHAPES//,/ }; do
    run "ncu-split-k-$shape" 150 sh -c "ncu --csv --metrics gpu__time_duration.sum,launch__grid_size \
      '$B/warploom' bench gemm --shapes $shape --providers warploom,cublaslt --autotune \
      --points split --reps 3 --no-check > '$OUT/ncu_$shape.csv'"
    reduce_args+=("$shape=$OUT/ncu_$shape.csv")
  done
  run ncu-split-k-reduce 30 sh -c "python3 tools/ncu_kernel_times.py ${reduce_args[*]} \
    --skip fill_uniform > '$OUT/split_k_ncu_kernels.json'"
  rm -f "$OUT"/ncu_*.csv
fi
# Issue 15's five "tn" shapes (its per-clock tables and wall-clock targets).
peer_shapes=8192x8192x1024,4096x4096x4096,8192x8192x8192,1024x8192x8192,16384x16384x4096
# Stream-K (TileScheduling::StreamK; kernels/gemm/stream_k_decomposition.hpp): its GPU tests (the three
# configurations they run that a minimal build does not prebuild compiled side by side first), the
# sanitizers on them, then issue 15's five shapes per clock (Nsight Compute) and in wall clock
# (burst and sustained), the cooperative kernel with and without stream-K beside Auto and the peers.
if want stream-k; then
  run stream-k-precompile 180 "$B/warploom" precompile -j "$(nproc)" \
    bf16_fp32_nn_cooperative_s4_b2_1x1 bf16_e4m3_tn_cooperative_s4_b2_1x1 \
    bf16_bf16_tn_cooperative_s4_b2_1x1_rowscale_colscale_colbiasbf16_preact_gelu_residual
  run stream-k 300 "$T/gemm_test" --gtest_filter='GemmStreamK.*'
fi
if want sanitize-stream-k; then
  sanitized stream-k 'GemmStreamK.*:-GemmStreamK.TheSameBitsOnEveryRun'
fi
stream_k_providers=warploom,warploom_coop,warploom_sk,cublas,cublaslt,cutlass,cutlass_pp
want ncu-stream-k && run ncu-stream-k 330 "$B/warploom" bench gemm --prof ncu --reps 3 \
  --shapes "${STREAM_K_SHAPES:-$peer_shapes}" \
  --providers "$stream_k_providers" --json "$OUT/stream_k_ncu.json"
for regime in burst sustained; do
  want "wall-stream-k-$regime" && run "wall-stream-k-$regime" 300 "$B/warploom" bench gemm \
    --regime "$regime" --reps 20 \
    --shapes "${STREAM_K_SHAPES:-$peer_shapes}" \
    --providers "$stream_k_providers" --json "$OUT/stream_k_$regime.json"
done
# Ping-pong's finish task (kernels/gemm/sm90/pingpong.hpp: half of the epilogue's second pass on
# warps 9-11): the Linear chains (Auto: ping-pong, its finish task) beside the cooperative kernel
# (the pass in its MMA warpgroups), the plain GEMM and cuBLASLt's fused epilogue; then the
# sanitizers on the persistent, capped-grid chains (phantom tiles, many tiles per CTA).
if want finish-task; then
  for epilogue in ${FINISH_EPILOGUES:-bias_gelu bias_silu}; do
    run "bench-finish-$epilogue" 150 "$B/warploom" bench gemm \
      --shapes 4096x4096x4096,8192x8192x8192,8192x8192x1024,1024x8192x8192,16384x16384x4096 \
      --epilogue "$epilogue" --providers warploom,warploom_plain,cublaslt,cublas --autotune \
      --points "cluster=1x1 design=cooperative" --reps 10 --json "$OUT/finish_$epilogue.json"
  done
fi
want finish-sanitizers && sanitized finish 'TsGemmEpilogue.PartialChains:TsGemmEpilogue.ColumnMajorD'
# Attention forward (kernels/attention/sm90/): its GPU tests (every prebuilt head dimension, type,
# mask and schedule: build with EXTRA_CMAKE_ARGS=-DWARPLOOM_ATTENTION_INSTANCES=all and
# EXTRA_TARGETS=attention_test), each sanitizer on them ($ATTENTION_FILTER: a subset, when minutes
# are short), then issue 18's shape without and with the causal mask.
if want attention; then
  run attention 180 "$T/attention_test"
  # The attention plan (ops::Attention) against attention_forward, when built (EXTRA_TARGETS).
  [[ -x $T/ops_attention_plan_test ]] && run ops-attention 60 "$T/ops_attention_plan_test"
  for mask in none causal; do
    # --autotune: the serial, overlap and ping-pong schedules, interleaved.
    run "bench-attention-$mask" 120 "$B/warploom" bench attention --shapes 4x32x4096x128 \
      --mask "$mask" --autotune --reps 10 --json "$OUT/attention_$mask.json"
  done
fi
# The attention schedules per clock (Nsight Compute's kernel time, clocks controlled), then the full
# section set of each schedule's kernel (non-causal) with its per-instruction samples; on issue 18's
# shape, or $ATTENTION_NCU_SHAPE (e.g. 32x16x512x128, where a tile visits 4 key blocks and its
# fixed costs weigh most).
if want ncu-attention; then
  ncu_shape=${ATTENTION_NCU_SHAPE:-4x32x4096x128}
  # Each schedule is a tuning of one contender (--prof ncu profiles defaults only): every kernel
  # of a one-round autotune, three launches per schedule.
  for mask in none causal; do
    run "ncu-attention-$mask" 180 sh -c "ncu --metrics gpu__time_duration.sum,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,\
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active \
      -k regex:attention_kernel --launch-count 9 '$B/warploom' bench attention \
      --shapes $ncu_shape --mask $mask --autotune --reps 1 --no-check \
      > '$OUT/attention_ncu_$mask.txt'"
  done
  run ncu-attention-full 240 ncu --set full --import-source yes -k regex:attention_kernel \
    --launch-count 9 -o "$OUT/attention_full" -f "$B/warploom" bench attention \
    --shapes $ncu_shape --mask none --autotune --reps 1 --no-check
  run ncu-attention-details 60 sh -c "ncu -i '$OUT/attention_full.ncu-rep' --page details \
    > '$OUT/attention_full_details.txt'"
  run ncu-attention-source 60 sh -c "ncu -i '$OUT/attention_full.ncu-rep' --page source --csv \
    --print-source sass | xz > '$OUT/attention_full_source.csv.xz'"
  rm -f "$OUT/attention_full.ncu-rep"  # too large to bring back; the pages above are what it says
fi
# The attention tests under each sanitizer ($ATTENTION_FILTER: a subset, when minutes are short).
if want attention-sanitizers; then
  for tool in memcheck synccheck racecheck; do
    run "$tool-attention" 240 compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$T/attention_test" --gtest_filter="${ATTENTION_FILTER:-*}"
  done
fi
# Operands TMA cannot read as they lie (contiguous tensors of odd widths) through aligned copies
# (src/gemm/repack.hpp): its tests, under each sanitizer, then issue 15's shapes against cuBLAS and
# cuBLASLt (contiguous operands: lda = 700, 4097, GPT-2's 50257-wide logits and their transposes).
if want repack; then
  run repack 120 "$T/gemm_test" --gtest_filter='GemmRepack.*'
  # A process whose first copy or split is under stream capture (the workspace pool is created
  # then: a capture-prohibited call until its capture mode was relaxed).
  run repack-capture-first 60 "$T/gemm_test" --gtest_filter='GemmRepack.ACapturedGraphReplays'
  run split-k-capture-first 60 "$T/gemm_test" --gtest_filter='GemmSplitK.ACapturedGraphReplays'
  sanitized repack 'GemmRepack.*'
  bench_gemm_both_ways repack --shapes 3000x5000x700,4097x4097x4097,8192x50257x768,8192x768x50257 \
    --providers warploom,cublas,cublaslt
  # fp8 with a column-major A ("nn": copied transposed) against the SIMT GEMM it ran before and
  # cuBLASLt's fp8 ("tn", the only layout it takes).
  run bench-repack-fp8 150 "$B/warploom" bench gemm --dtype e4m3 --layout nn \
    --shapes 4096x4096x4096,8192x8192x8192 --providers warploom,warploom_simt --graph 20 --reps 5 \
    --json "$OUT/repack_fp8.json"
fi
# Where a split GEMM's time goes: every kernel of ours (the slices' GEMM, the reduction) and of
# cuBLASLt on the split-K shapes, each one's duration, grid, DRAM bytes and throughput (clocks
# controlled by Nsight Compute), one CSV row per launch.
if want ncu-split-k; then
  run ncu-split-k 180 sh -c "ncu --metrics gpu__time_duration.sum,launch__grid_size,\
dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed --csv --page raw \
    --log-file '$OUT/split_k_ncu.csv' '$B/warploom' bench gemm \
    --shapes 512x512x65536,1024x16x8192,64x4096x16384,256x4096x4096 --providers warploom,cublaslt \
    --reps 1 --no-check"
fi
# Bad input and edge inputs (broadcast batches, extents near 2^31, ld 2^40, D in place over C, host
# pointers), and the plain kernel's cluster, persistent-loop and large cases after their changes.
want gemm-edges && run gemm-edges 150 "$T/gemm_test" --gtest_filter='GemmBroadcast.*:GemmEdge.*:GemmAliasing.*:GemmHostPointer.*:GemmCapture.*'
shapes=4096x4096x4096,8192x8192x8192,8192x8192x1024,1024x8192x8192,16384x16384x4096
providers=${EPILOGUE_PROVIDERS:-warploom,warploom_coop,warploom_pp,warploom_plan,warploom_plain,warploom_unfused,cublas,cublaslt}
# bias_gelu_tanh: cuBLASLt's GELU_BIAS is the tanh form (docs/harness.md), so it is the like-for-like
# row; bias_gelu (erf) runs against that same cuBLASLt epilogue. The chains' ping-pong and
# cooperative instances (bias in bf16 per column: not prebuilt) compiled side by side first.
if want bench || want fused-design; then
  configs=()
  for act in gelu gelutanh silu; do
    for design in pingpong_s5_b2 cooperative_s4_b2; do
      configs+=("bf16_bf16_tn_${design}_1x1_colbiasbf16_$act")
    done
  done
  run precompile-bench 180 "$B/warploom" precompile -j "$(nproc)" "${configs[@]}"
fi
for epilogue in ${EPILOGUES:-bias_gelu bias_gelu_tanh bias_silu}; do
  want bench || break
  run "bench-$epilogue" 150 "$B/warploom" bench gemm --shapes "$shapes" --epilogue "$epilogue" \
    --providers "$providers" --reps 10 --json "$OUT/epilogue_$epilogue.json"
done
# Which design a fused epilogue with a second pass should run, by K (Auto's choice,
# gemm.cpp's selected_design): both designs' fused kernels beside the plain GEMM and cuBLASLt, in
# wall clock and in Nsight Compute's kernel time (clocks controlled), K from 1024 to 8192.
fused_design_shapes=8192x8192x1024,8192x8192x2048,8192x8192x4096,8192x8192x8192,4096x4096x2048,\
4096x4096x4096,4096x4096x8192,16384x16384x2048,16384x16384x4096,1024x8192x8192
for epilogue in ${FUSED_DESIGN_EPILOGUES:-bias_gelu bias_silu}; do
  want fused-design || break
  run "fused-design-$epilogue" 300 "$B/warploom" bench gemm --prof ncu --reps 5 \
    --shapes "$fused_design_shapes" --epilogue "$epilogue" \
    --providers warploom,warploom_pp,warploom_coop,warploom_plain,cublaslt \
    --json "$OUT/fused_design_$epilogue.json"
done
# The plain GEMM per clock (Nsight Compute's kernel time, clocks controlled) where its epilogue is
# a large part of each tile (short K) and at 4096^3, beside cuBLAS and CUTLASS's ping-pong.
want ncu-plain && run ncu-plain 240 "$B/warploom" bench gemm --prof ncu --reps 5 \
  --shapes 8192x8192x1024,4096x4096x4096 --providers warploom,warploom_pp,warploom_coop,cublas,cutlass_pp \
  --json "$OUT/plain_ncu.json"
# The per-clock tables' contenders.
peer_providers=warploom,warploom_pp,warploom_coop,cublas,cublaslt,cutlass,cutlass_pp
# Its per-clock table: our three designs beside cuBLAS, cuBLASLt and CUTLASS's cooperative and
# ping-pong kernels, Nsight Compute's kernel time (clocks locked).
want ncu-peers && run ncu-peers 330 "$B/warploom" bench gemm --prof ncu --reps 3 \
  --shapes "$peer_shapes" \
  --providers "$peer_providers" \
  --json "$OUT/gemm_peers_ncu.json"
# The same in fp16 (its instances are not prebuilt in a minimal build: precompile step
# `precompile-fp16` first), and fp8 e4m3 at the issue's two shapes against cuBLASLt, the one peer
# with an e4m3 x e4m3 kernel.
if want precompile-fp16; then
  mapfile -t configs < <(default_instances fp16_fp16_tn)
  run precompile-fp16 240 "$B/warploom" precompile -j "$(nproc)" "${configs[@]}"
fi
want ncu-peers-fp16 && run ncu-peers-fp16 330 "$B/warploom" bench gemm --prof ncu --reps 3 \
  --dtype fp16 --shapes "$peer_shapes" \
  --providers "$peer_providers" \
  --json "$OUT/gemm_peers_ncu_fp16.json"
want ncu-peers-fp8 && run ncu-peers-fp8 200 "$B/warploom" bench gemm --prof ncu --reps 3 \
  --dtype e4m3 --shapes 8192x8192x8192,4096x7168x16384 \
  --providers warploom,warploom_pp,warploom_coop,cublaslt --json "$OUT/gemm_peers_ncu_e4m3.json"
# Issue 15's wall-clock targets on its five shapes (>= 1.05x cuBLAS, >= 1.0x every peer), burst and
# sustained (the power cap's regime), each contender interleaved per round in one process.
for regime in burst sustained; do
  want "wall-peers-$regime" && run "wall-peers-$regime" 300 "$B/warploom" bench gemm \
    --regime "$regime" --reps 20 --shapes "$peer_shapes" \
    --providers warploom,cublas,cublaslt,cutlass,cutlass_pp --json "$OUT/gemm_peers_$regime.json"
done
# Nsight Compute on the fused (bias + GELU) and plain ping-pong kernels at 8192x8192x1024, where
# fusing costs most: the full section set, and the fused kernel's per-instruction stall samples.
if want ncu; then
  run ncu 240 ncu --set full -k regex:ts_gemm_kernel --launch-count 6 \
    -o "$OUT/epilogue_8192x8192x1024" -f "$B/warploom" bench gemm --shapes 8192x8192x1024 \
    --epilogue bias_gelu --providers warploom_pp,warploom_plain --reps 1 --no-check
  run ncu-details 60 ncu -i "$OUT/epilogue_8192x8192x1024.ncu-rep" --page details
  run ncu-source 60 sh -c "ncu -i '$OUT/epilogue_8192x8192x1024.ncu-rep' --page source --csv \
    --print-source sass | xz > '$OUT/epilogue_8192x8192x1024_source.csv.xz'"
fi
want host-costs && run host-costs 150 "$B/host_costs" --json "$OUT/host_costs.json"
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader | tee -a "$LOG"
python_out=$OUT/python  # pytest.log and the JUnit report come back with the results
# Every pytest test, GPU ones included, with a worker per core: the suite JIT-compiles the
# configurations it needs that the build did not prebuild (fp16, other layouts), side by side. A
# process that dies prints its native stack (tools/abort_backtrace.c, PYTEST_UNDER_GDB).
want python && run python "${PYTHON_LIMIT:-420}" env BUILD="$BUILD" OUT="$python_out" \
  PYTEST_WORKERS="${PYTEST_WORKERS:-$(nproc)}" PYTEST_UNDER_GDB=1 bash tools/python_gpu_check.sh
# The seed's three notebooks as scripts (examples/python/), each run to its end, its output kept
# ($OUT/examples/*.txt; committed beside the examples). Example 01 runs a configuration per
# activation and epilogue (fp16, row-major A and B: "tt"), each a JIT compile of ~30 s the first
# time: compiled side by side first.
if want examples; then
  configs=(fp16_fp16_tt_cooperative_s4_b2_1x1 fp16_fp16_tt_pingpong_s6_b1_1x1_colbiasfp32_gelu
    fp16_fp16_tt_pingpong_s6_b1_1x1_rowscale_colscale_rowbiasfp32_preact_relu_residual
    fp16_fp16_tt_pingpong_s6_b1_1x1_rowscale_colscale_colbiasfp32_preact_residual)
  for act in relu leakyrelu gelu gelutanh hardswish sigmoid silu tanh; do
    configs+=("fp16_fp16_tt_pingpong_s6_b1_1x1_$act"
      "fp16_fp16_tt_pingpong_s6_b1_1x1_rowscale_colscale_colbiasfp32_preact_${act}_residual")
  done
  # The package alone, where the "python" step did not build it.
  [[ -d build/python-site/warploom ]] || run python-package 240 env BUILD="$BUILD" \
    OUT="$python_out" PYTEST_ARGS="$PWD/python/tests/test_examples.py -k notebooks_are_there" \
    bash tools/python_gpu_check.sh
  run examples-precompile 300 "$B/warploom" precompile -j "$(nproc)" "${configs[@]}"
  mkdir -p "$OUT/examples"
  for script in examples/python/*.py; do
    name=$(basename "$script" .py)
    run "example-$name" "${EXAMPLE_LIMIT:-300}" sh -c "PYTHONPATH='$PWD/build/python-site' \
      python3 '$script' > '$OUT/examples/$name.txt' 2>&1; rc=\$?; tail -5 '$OUT/examples/$name.txt'; exit \$rc"
  done
fi
# warploom.nn.Linear against torch's Linear + activation, and the host cost of a call from Python
# (the package tools/python_gpu_check.sh installed into build/python-site).
want python-bench && run python-bench 120 env PYTHONPATH="$PWD/build/python-site" \
  python3 bench/python/linear_and_overhead.py --json "$OUT/linear_and_overhead.json"
# Attention against torch's SDPA (cuDNN, FlashAttention-2) in one process, both our schedules.
want attention-torch && run attention-torch 240 env PYTHONPATH="$PWD/build/python-site" \
  python3 bench/python/attention.py --json "$OUT/attention_torch.json" ${ATTENTION_SHAPES:+--shapes "$ATTENTION_SHAPES"}
# The same after 20 s of load before each shape (the sustained regime: the power cap's clocks).
want attention-torch-sustained && run attention-torch-sustained 300 env \
  PYTHONPATH="$PWD/build/python-site" python3 bench/python/attention.py --sustained 20 \
  --json "$OUT/attention_torch_sustained.json" ${ATTENTION_SHAPES:+--shapes "$ATTENTION_SHAPES"}
# The same shape with the C++ bench's inputs (uniform in [-1, 1)) and with q, k, v stored
# (B, S, H, D): whether the inputs or the layout move either side's time.
if want attention-torch-inputs; then
  for how in "uniform bhsd" "normal bshd" "uniform bshd"; do
    set -- $how
    run "attention-torch-$1-$2" 120 env PYTHONPATH="$PWD/build/python-site" \
      python3 bench/python/attention.py --data "$1" --layout "$2" \
      --json "$OUT/attention_torch_$1_$2.json" ${ATTENTION_SHAPES:+--shapes "$ATTENTION_SHAPES"}
  done
fi
# Every contender's kernel per clock (Nsight Compute's kernel time, clocks locked to base): ours,
# cuDNN's and FlashAttention-2's launches of one round of the Python bench, one CSV row each.
want ncu-attention-torch && run ncu-attention-torch 240 env PYTHONPATH="$PWD/build/python-site" \
  ncu --metrics gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active \
  -k regex:'attention|sdpa|flash|fmha' --csv --page raw --log-file "$OUT/attention_torch_ncu.csv" \
  python3 bench/python/attention.py --reps 1 --json "$OUT/attention_torch_ncu_run.json" \
  ${ATTENTION_SHAPES:+--shapes "$ATTENTION_SHAPES"}
# FlashAttention-3's sweep (S = 512 ... 16384, D = 64/128/256, both masks) with its chart.
want attention-sweep && run attention-sweep 420 env PYTHONPATH="$PWD/build/python-site" \
  python3 bench/python/attention.py --sweep --reps 5 --json "$OUT/attention_sweep.json" \
  --svg "$OUT/attention_sweep.svg"
# The grouped GEMM against torch (the seed's problems, an MoE layer against torch._grouped_mm).
want grouped-bench && run grouped-bench 180 env PYTHONPATH="$PWD/build/python-site" \
  python3 bench/python/grouped.py --json "$OUT/grouped.json"
# The sanitizers after the timings (they would heat them): every epilogue test under memcheck and
# synccheck; racecheck, the slowest, on the column-major D's chains and the SIMT epilogue.
# "sanitizers-ops": the plan API's runs and the grouped tests only (the kernels' own tests
# unchanged); "sanitizers-grouped": the grouped tests alone ($GROUPED_FILTER: a subset, when minutes
# are short).
for tool in memcheck synccheck racecheck; do
  want sanitizers || want sanitizers-ops || want sanitizers-grouped || break
  filter="$epilogue_tests:DeviceScalars.*:Fp8Output.*"
  [[ $tool == racecheck ]] && filter='TsGemmEpilogue.ColumnMajorD:SimtGemmEpilogue.*:Fp8Output.*'
  want sanitizers && run "$tool-gemm" 90 compute-sanitizer --tool "$tool" --error-exitcode 1 \
    "$T/gemm_test" --gtest_filter="$filter"
  { want sanitizers || want sanitizers-ops; } && run "$tool-ops" 45 compute-sanitizer --tool \
    "$tool" --error-exitcode 1 "$T/ops_gemm_plan_test" --gtest_filter='GemmPlanRun.*'
  run "$tool-grouped" 120 compute-sanitizer --tool "$tool" --error-exitcode 1 \
    "$T/gemm_test" --gtest_filter="${GROUPED_FILTER:-GroupedGemm.*}"
done
# The MoE layer's DRAM traffic and tensor-pipe activity per design (every kernel the grouped
# autotune launches, and CUTLASS's): ours read 2.4 GB from DRAM where CUTLASS's read 0.97 GB
# (82c879b); which designs and stage counts do, one CSV row per launch (the kernel's name carries
# its design and stages).
if want ncu-moe-metrics; then
  run ncu-moe-metrics 180 sh -c "ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,\
dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__cycles_active.avg,\
sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed \
    -k regex:'ts_grouped_gemm_kernel|device_kernel' --launch-count 60 --csv --page raw \
    --log-file '$OUT/moe_metrics.csv' '$B/warploom' bench grouped --shapes 16x4096 --dtype bf16 \
    --layout tn --mix moe --providers warploom,cutlass_grouped --autotune --reps 1 --no-check"
fi
exit $status
