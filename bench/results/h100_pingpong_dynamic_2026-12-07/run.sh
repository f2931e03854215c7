#!/usr/bin/env bash
# What produced this folder (H100, 2026-12-07 12:47-12:55 UTC; binaries of 9e74372 built on the
# 2-core machine with the minimal instance set and packed: BUILD=build/release bash
# tools/gpu_prebuilt_check.sh --pack). Three device calls on one warm machine, each a script of
# build/ in the session (a step runner with time limits, below); run from the
# repository root with build/release.tar.xz, .deps/cutlass and .deps/sysroot, and $OUT set.
# Call 1: the grouped configurations, the grouped tests in every walk, the seed and MoE, ncu.
# The step runner the calls share (each step time-bounded; its output appended to $LOG).
source tools/device_steps.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee -a "$LOG"
cfgs=(bf16_bf16_tn_pingpong_s6_b1_1x1_grouped_colbiasbf16_gelu_residual e4m3_bf16_tn_pingpong_s6_b1_1x1_grouped)
for t in fp16_fp16_tt bf16_bf16_tn; do
  cfgs+=(${t}_pingpong_s6_b1_1x1_grouped ${t}_cooperative_s4_b2_1x1_grouped
    ${t}_cooperative_s4_b2_1x1_grouped_dynamic ${t}_pingpong_s6_b1_1x1_grouped_dynamic)
done
cfgs+=(fp16_fp16_tt_pingpong_s5_b2_1x1_grouped_dynamic fp16_fp16_tt_pingpong_s5_b2_1x1_grouped)
step precompile 150 $B/warploom precompile -j 16 "${cfgs[@]}"
step grouped-tests 150 $T/gemm_test --gtest_filter='GroupedGemm.*'
grep -E "^\[  FAILED|Failure|Expected|Which is" "$LOG" | head -20
seed=(bench grouped --shapes 50x1024 --dtype fp16 --layout tt --mix seed)
moe=(bench grouped --shapes 16x4096 --dtype bf16 --layout tn --mix moe)
step seed-walks 90 $B/warploom "${seed[@]}" --providers warploom,cutlass_grouped --autotune \
  --points tiles= --graph 20 --reps 20 --json $OUT/seed_walks.json
step moe-designs 90 $B/warploom "${moe[@]}" --providers warploom,cutlass_grouped --autotune \
  --points design= --graph 20 --reps 10 --json $OUT/moe_designs.json
metrics=gpu__time_duration.sum,sm__cycles_elapsed.max,dram__bytes_read.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
step ncu-seed 90 sh -c "ncu --metrics $metrics -k regex:'grouped|device_kernel' --csv --page raw \
  $B/warploom ${seed[*]} --providers warploom,cutlass_grouped --autotune --points tiles= --reps 3 \
  --no-check > $OUT/seed_walks_ncu.csv"
G='GroupedGemm.TheSeedsRowMajorFp16Problems:GroupedGemm.CapturedInAGraphAndReplayed'
step memcheck-grouped 100 compute-sanitizer --tool memcheck --error-exitcode 1 $T/gemm_test --gtest_filter="$G"
step racecheck-grouped 100 compute-sanitizer --tool racecheck --error-exitcode 1 $T/gemm_test --gtest_filter="$G"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$LOG"

# Call 2: the two grouped variants of bench/variants/ against the tree, on the cooperative
# dynamic kernel (the seed and MoE defaults).
[[ -x $B/warploom ]] || tar -xJf build/release.tar.xz
base_commit=$(cat build/release/commit.txt)
seed=(bench grouped --shapes 50x1024 --dtype fp16 --layout tt --mix seed)
moe=(bench grouped --shapes 16x4096 --dtype bf16 --layout tn --mix moe)
metrics=gpu__time_duration.sum,sm__cycles_elapsed.max,dram__bytes_read.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
for v in base bench/variants/grouped_setup_one_release.patch bench/variants/grouped_scheduler_acquires_descriptors.patch; do
  name=$(basename $v .patch)
  [[ $v == base ]] || patch -p1 --forward < $v >>"$LOG" 2>&1
  export WARPLOOM_COMMIT=$base_commit+$name
  step compile-$name 60 $B/warploom precompile -j 4 fp16_fp16_tt_cooperative_s4_b2_1x1_grouped_dynamic bf16_bf16_tn_cooperative_s4_b2_1x1_grouped_dynamic
  step test-$name 30 $T/gemm_test --gtest_filter='GroupedGemm.TheSeedsRowMajorFp16Problems:GroupedGemm.CapturedInAGraphAndReplayed:GroupedGemm.TheContiguous*'
  step seed-$name 40 $B/warploom "${seed[@]}" --providers warploom,cutlass_grouped --graph 20 --reps 20 --json $OUT/seed_$name.json
  step moe-$name 40 $B/warploom "${moe[@]}" --providers warploom,cutlass_grouped --graph 20 --reps 10 --json $OUT/moe_$name.json
  step ncu-$name 40 sh -c "ncu --metrics $metrics -k regex:'grouped' --csv --page raw $B/warploom ${seed[*]} --providers warploom --reps 3 --no-check > $OUT/ncu_$name.csv"
  [[ $v == base ]] || patch -p1 -R < $v >>"$LOG" 2>&1
done
grep -E "median|warploom \[|cutlass_grouped \[|PASSED|FAILED" "$LOG" | grep -v "^====" | head -40

# Call 3: synccheck on more grouped tests, split-K and fused-epilogue tests, the host costs.
G='GroupedGemm.ManyGroupsOnAFullGridAndOnThreeCtas:GroupedGemm.TheContiguousLayoutComputesEachGroupsRows:GroupedGemm.TheSeedsRowMajorFp16Problems'
step synccheck-grouped 60 compute-sanitizer --tool synccheck --error-exitcode 1 $T/gemm_test --gtest_filter="$G"
step splitk 60 $T/gemm_test --gtest_filter='GemmSplitK.*'
c=cooperative_s4_b2_1x1 p=pingpong_s5_b2_1x1 e=rowscale_colscale
step fused-jit 90 $B/warploom precompile -j 16 bf16_bf16_tn_${c}_${e}_colbiasfp32_preact_residual \
  bf16_bf16_tn_${c}_${e}_rowbiasfp32_preact_leakyrelu_residual bf16_bf16_tn_${c}_${e}_colbiasbf16_preact_gelutanh_residual \
  bf16_bf16_tn_${c}_${e}_rowbiasbf16_preact_sigmoid_residual bf16_bf16_tn_${c}_${e}_colbiasfp32_preact_tanh_residual \
  bf16_bf16_tn_${p}_${e}_colbiasbf16_preact_relu_residual bf16_bf16_tn_${p}_${e}_rowbiasbf16_preact_gelu_residual \
  bf16_bf16_tn_${p}_${e}_colbiasfp32_preact_hardswish_residual bf16_bf16_tn_${p}_${e}_rowbiasfp32_preact_silu_residual
step epilogue 60 $T/gemm_test --gtest_filter='TsGemmEpilogue.EveryActivationWithEveryOp:TsGemmEpilogue.ColumnMajorD'
grep -E "^\[  FAILED|Failure|Expected|Which is|PASSED|ERROR SUMMARY" "$LOG" | head -20
step host-costs 40 $B/host_costs --json $OUT/host_costs.json
