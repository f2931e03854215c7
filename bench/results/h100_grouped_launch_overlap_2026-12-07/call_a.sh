# Call A (session 48): the grouped kernel lets the next launch start early (launch_dependents).
# Tests (the new back-to-back chain, the prepared ones, the rest), the seed as graphs (H200: the
# issue's <= 30 us), its launch gaps (nsys), sanitizers, the MoE layer, the seed per clock.
LOGNAME_=a; source tools/device_steps.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader | tee -a "$LOG"
cfgs=(bf16_bf16_tn_cooperative_s4_b2_1x1_grouped_dynamic)
for w in pingpong_s6_b1_1x1_grouped cooperative_s4_b2_1x1_grouped cooperative_s4_b2_1x1_grouped_dynamic pingpong_s6_b1_1x1_grouped_dynamic; do
  cfgs+=(fp16_fp16_tt_$w)
done
step precompile 90 $B/warploom precompile -j 16 "${cfgs[@]}"
P='GroupedGemm.Prepared*:GroupedGemm.BackToBack*'
step chain-tests 60 $T/gemm_test --gtest_filter="$P"
grep -E "^\[  FAILED|^\[  PASSED|Failure|Expected|Which is" "$LOG" | head -20
seed=(bench grouped --shapes 50x1024 --dtype fp16 --layout tt --mix seed)
moe=(bench grouped --shapes 16x4096 --dtype bf16 --layout tn --mix moe)
step seed 45 $B/warploom "${seed[@]}" --providers warploom,warploom_prepared,warploom_workspace,cutlass_grouped \
  --graph 20 --reps 30 --json $OUT/seed.json
if command -v nsys >/dev/null; then
  step nsys 60 nsys profile --trace=cuda --cuda-graph-trace=node -o /tmp/seed -f true \
    $B/warploom "${seed[@]}" --providers warploom_prepared,cutlass_grouped --graph 20 --reps 5 --no-check
  step nsys-stats 40 nsys stats --report cuda_gpu_trace --format csv -o /tmp/trace /tmp/seed.nsys-rep
  python3 - <<'PY' | tee -a "$LOG"
import csv, glob, statistics as st
f = glob.glob("/tmp/trace*.csv")[0]
rows = list(csv.DictReader(open(f)))
for key in ("ts_grouped_gemm_kernel", "device_kernel"):
    ks = [r for r in rows if key in r.get("Name", "")]
    s = [int(r["Start (ns)"]) for r in ks]; d = [int(r["Duration (ns)"]) for r in ks]
    gaps = [s[i + 1] - s[i] - d[i] for i in range(len(s) - 1) if 0 <= s[i + 1] - s[i] - d[i] < 20000]
    print("nsys", key, "n", len(ks), "duration med us", st.median(d) / 1e3 if d else None,
          "gap med us", st.median(gaps) / 1e3 if gaps else None, "gap p10", sorted(gaps)[len(gaps)//10] / 1e3 if gaps else None)
PY
else
  echo "no nsys" | tee -a "$LOG"
fi
for tool in memcheck racecheck synccheck; do
  step $tool-chain 60 compute-sanitizer --tool $tool --error-exitcode 1 $T/gemm_test --gtest_filter="$P"
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$LOG"
step grouped-tests 120 $T/gemm_test --gtest_filter="GroupedGemm.*-$P"
grep -E "^\[  FAILED|^\[  PASSED" "$LOG" | tail -4
step moe 45 $B/warploom "${moe[@]}" --providers warploom,warploom_prepared,cutlass_grouped \
  --graph 20 --reps 10 --json $OUT/moe.json
metrics=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
step ncu-seed 60 sh -c "ncu --metrics $metrics -k regex:'grouped|device_kernel' --csv \
  $B/warploom ${seed[*]} --providers warploom,warploom_prepared,cutlass_grouped --reps 3 \
  --no-check > $OUT/seed_ncu.csv"
python3 tools/bench_medians.py $OUT/seed.json $OUT/moe.json | tee -a "$LOG"
