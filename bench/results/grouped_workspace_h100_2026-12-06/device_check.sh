#!/usr/bin/env bash
# The device call that produced gpu_check.log, graph_overheads_*.json and grouped_ws_seed.json (run
# from the repository root on the GPU machine, build/release.tar.xz made by
# `BUILD=build/release bash tools/gpu_prebuilt_check.sh --pack` at the commit below, .deps/cutlass and
# .deps/sysroot carried). The MoE, decode and Python rows came from the commands in README.md.
export WARPLOOM_COMMIT=1edf666; S=$SECONDS; mkdir -p /work && ln -sfn $PWD /work/main; tar -xJf build/release.tar.xz
export WARPLOOM_CACHE_DIR=$PWD/build/release-jit-cache B=build/release/bin T=build/release/tests/gpu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
nvcc -std=c++20 -O2 -gencode arch=compute_90a,code=sm_90a bench/probes/graph_overheads.cu -o /tmp/go && { /tmp/go > $OUT/graph_overheads_25us.json; /tmp/go --spin 2000 > $OUT/graph_overheads_2us.json; cat $OUT/graph_overheads_*.json; }
g=grouped; c=cooperative_s4_b2_1x1; p=pingpong_s6_b1_1x1
timeout 170 $B/warploom precompile -j 16 bf16_bf16_tn_${p}_${g}_colbiasbf16_gelu_residual e4m3_bf16_tn_${p}_$g fp16_fp16_tt_pingpong_s5_b2_1x1_$g bf16_bf16_tn_${c}_$g fp16_fp16_tt_${p}_$g fp16_fp16_tt_${c}_$g bf16_bf16_tn_${p}_$g fp16_fp16_tt_${c}_${g}_dynamic bf16_bf16_tn_${c}_${g}_dynamic bf16_fp32_tn_cooperative_s8_b2_1x1_n64 bf16_fp32_tt_cooperative_s8_b2_1x1_n64 bf16_fp32_nn_cooperative_s8_b2_1x1_n64 bf16_fp32_nt_cooperative_s8_b2_1x1_n64 bf16_fp32_nn_cooperative_s4_b2_1x1 bf16_fp32_nt_cooperative_s4_b2_1x1 fp16_fp32_tt_cooperative_s4_b2_1x1 e4m3_fp32_tn_cooperative_s4_b2_1x1 > $OUT/pre.log 2>&1; grep -c ready $OUT/pre.log; grep FAIL $OUT/pre.log | head -3; echo "t=$((SECONDS-S))"
r() { timeout $1 $T/$2 --gtest_filter="$3" > $OUT/$4.log 2>&1; echo "$4 rc=$? $(grep -E 'PASSED|FAILED  \]' $OUT/$4.log | head -3 | tr '\n' ' ')"; }
r 150 gemm_test 'GroupedGemm.*' grouped
r 120 gemm_test 'GemmSplitK.*' splitk
r 40 ops_gemm_plan_test 'GemmPlanRun.SplitK*' plan
echo "t=$((SECONDS-S))"
timeout 60 $B/warploom bench grouped --shapes 50x1024 --dtype fp16 --layout tt --mix seed --providers warploom,warploom_workspace,cutlass_grouped --graph 20 --reps 15 --json $OUT/grouped_ws_seed.json > $OUT/seed.log 2>&1; grep -E "^ *(warploom|cutlass)" $OUT/seed.log | tail -4
for t in memcheck synccheck; do timeout 70 compute-sanitizer --tool $t --error-exitcode 1 $T/gemm_test --gtest_filter='GroupedGemm.CapturedInAGraphAndReplayed:GemmSplitK.SmallMRunsOnTheTranspose' > $OUT/san_$t.log 2>&1; echo "$t rc=$? $(tail -1 $OUT/san_$t.log)"; [ $((SECONDS-S)) -gt 500 ] && break; done
echo "t=$((SECONDS-S))"
