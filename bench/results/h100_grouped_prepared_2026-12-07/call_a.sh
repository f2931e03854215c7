# Call A (session 47): prebuilt binaries (build/release.tar.xz); grouped configs JIT-compiled side
# by side; the prepared-run tests, the seed as graphs (grouped_gemm, the prepared run, CUTLASS),
# sanitizers on the prepared tests, the rest of GroupedGemm.*, the MoE layer, the seed per clock.
LOGNAME_=a; source tools/device_steps.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader | tee -a "$LOG"
cfgs=(bf16_bf16_tn_pingpong_s6_b1_1x1_grouped_colbiasbf16_gelu_residual e4m3_bf16_tn_pingpong_s6_b1_1x1_grouped)
for t in fp16_fp16_tt bf16_bf16_tn; do
  cfgs+=(${t}_pingpong_s6_b1_1x1_grouped ${t}_cooperative_s4_b2_1x1_grouped
    ${t}_cooperative_s4_b2_1x1_grouped_dynamic ${t}_pingpong_s6_b1_1x1_grouped_dynamic)
done
cfgs+=(bf16_bf16_nt_pingpong_s6_b1_1x1_grouped bf16_bf16_nt_cooperative_s4_b2_1x1_grouped_dynamic)
step precompile 170 $B/warploom precompile -j 16 "${cfgs[@]}"
P='GroupedGemm.Prepared*'
step prepared-tests 90 $T/gemm_test --gtest_filter="$P"
grep -E "^\[  FAILED|^\[  PASSED|Failure|Expected|Which is" "$LOG" | head -20
seed=(bench grouped --shapes 50x1024 --dtype fp16 --layout tt --mix seed)
moe=(bench grouped --shapes 16x4096 --dtype bf16 --layout tn --mix moe)
step seed 60 $B/warploom "${seed[@]}" --providers warploom,warploom_prepared,warploom_workspace,cutlass_grouped \
  --graph 20 --reps 30 --json $OUT/seed.json
for tool in memcheck racecheck synccheck; do
  step $tool-prepared 60 compute-sanitizer --tool $tool --error-exitcode 1 $T/gemm_test --gtest_filter="$P"
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$LOG"
step grouped-tests 150 $T/gemm_test --gtest_filter="GroupedGemm.*-$P"
grep -E "^\[  FAILED|^\[  PASSED" "$LOG" | tail -4
step moe 60 $B/warploom "${moe[@]}" --providers warploom,warploom_prepared,cutlass_grouped \
  --graph 20 --reps 10 --json $OUT/moe.json
metrics=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
step ncu-seed 80 sh -c "ncu --metrics $metrics -k regex:'grouped|device_kernel' --csv --page raw \
  $B/warploom ${seed[*]} --providers warploom,warploom_prepared,cutlass_grouped --reps 3 \
  --no-check > $OUT/seed_ncu.csv"
python3 tools/bench_medians.py $OUT/seed.json $OUT/moe.json | tee -a "$LOG"
