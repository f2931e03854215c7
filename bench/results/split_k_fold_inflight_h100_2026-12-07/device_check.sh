#!/usr/bin/env bash
# Split-K's fold with its loads in flight: tests, fold vs reduction kernel, decode under ncu, sanitizers.
export WARPLOOM_COMMIT=$(cat build/commit.txt); S=$SECONDS; mkdir -p /work && ln -sfn $PWD /work/main; tar -xJf build/release.tar.xz; tar -xJf build/jit.tar.xz
export WARPLOOM_CACHE_DIR=$PWD/build/release-jit-cache B=build/release/bin T=build/release/tests/gpu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
cfgs=""; for t in bf16 fp16; do for l in tn tt nn nt; do for w in "s8_b2_1x1_n64" "s6_b2_1x1_n128" "s4_b2_1x1"; do cfgs="$cfgs ${t}_fp32_${l}_cooperative_$w"; done; done; done
timeout 150 $B/warploom precompile -j 16 $cfgs e4m3_fp32_tn_cooperative_s4_b2_1x1 > $OUT/pre.log 2>&1; echo "pre rc=$? cached=$(grep -c 'cache\b\|disk' $OUT/pre.log) t=$((SECONDS-S))"; tail -3 $OUT/pre.log
r() { timeout $1 $T/$2 --gtest_filter="$3" > $OUT/$4.log 2>&1; echo "$4 rc=$? $(grep -E 'PASSED|FAILED  \]' $OUT/$4.log | head -6 | tr '\n' ' ') t=$((SECONDS-S))"; }
r 150 gemm_test 'GemmSplitK.*:GemmStreamK.*' splitk
r 40 ops_gemm_plan_test 'GemmPlanRun.SplitK*' plan
timeout 150 $B/warploom bench gemm --shapes 32x8192x8192,64x4096x16384,16x4096x4096,1024x16x8192,512x512x65536 --providers warploom,cublas,cublaslt --autotune --points reduction --graph 20 --reps 10 --json $OUT/split_fold_graph.json > $OUT/fold_graph.log 2>&1; echo "bench graph rc=$? t=$((SECONDS-S))"; grep -E "^ *(warploom|cublas)|^[0-9]+x|reduction" $OUT/fold_graph.log | head -40
timeout 100 ncu --metrics gpu__time_duration.sum,launch__grid_size,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.max --csv --page raw --log-file $OUT/decode_ncu.csv $B/warploom bench gemm --shapes 32x8192x8192,16x4096x4096 --providers warploom,cublaslt --reps 1 --no-check > $OUT/ncu.log 2>&1; echo "ncu rc=$? t=$((SECONDS-S))"; python3 -c "
import csv,sys
rows=list(csv.DictReader(open('$OUT/decode_ncu.csv')))
for r in rows[1:]:
    n=r.get('Kernel Name','')[:60]
    if 'fill' in n or 'random' in n.lower(): continue
    print(n, r.get('launch__grid_size'), r.get('gpu__time_duration.sum'), r.get('dram__throughput.avg.pct_of_peak_sustained_elapsed'), r.get('dram__bytes_read.sum'))
" 2>&1 | tail -30
for t in memcheck racecheck synccheck; do [ $((SECONDS-S)) -gt 520 ] && break; timeout 60 compute-sanitizer --tool $t --error-exitcode 1 $T/gemm_test --gtest_filter='GemmSplitK.InKernel*:GemmSplitK.ACaptured*:GemmStreamK.ThePieces*' > $OUT/san_$t.log 2>&1; echo "$t rc=$? $(tail -1 $OUT/san_$t.log) t=$((SECONDS-S))"; done
cd $OUT && tar -cJf logs.tar.xz *.log && rm -f *.log; ls
