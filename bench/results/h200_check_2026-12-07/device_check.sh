#!/usr/bin/env bash
# Split-K's fold after D's description moved to registers: the split shapes side by side, tests, sanitizers.
export WARPLOOM_COMMIT=$(cat build/commit.txt); S=$SECONDS; mkdir -p /work && ln -sfn $PWD /work/main; tar -xJf build/release.tar.xz
export WARPLOOM_CACHE_DIR=$PWD/build/release-jit-cache B=build/release/bin T=build/release/tests/gpu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
timeout 150 $B/warploom bench gemm --shapes 32x8192x8192,64x4096x16384,16x4096x4096,1024x16x8192,512x512x65536 --providers warploom,cublas,cublaslt --autotune --points reduction --graph 20 --reps 10 --json $OUT/split_fold_graph.json > $OUT/fold_graph.log 2>&1; echo "bench graph rc=$? t=$((SECONDS-S))"; grep -E "reduction|cublas \[" $OUT/fold_graph.log | awk '{print $1, $2, $3, $4, $5, $6}'
cfgs="bf16_fp32_tn_cooperative_s4_b2_1x1 e4m3_fp32_tn_cooperative_s4_b2_1x1"; for l in tn tt nn nt; do for w in s8_b2_1x1_n64 s6_b2_1x1_n128; do cfgs="$cfgs fp16_fp32_${l}_cooperative_$w"; done; done
timeout 150 $B/warploom precompile -j 10 $cfgs > $OUT/pre.log 2>&1; echo "pre rc=$? t=$((SECONDS-S))"
r() { timeout $1 $T/$2 --gtest_filter="$3" > $OUT/$4.log 2>&1; echo "$4 rc=$? $(grep -E 'PASSED|FAILED  \]' $OUT/$4.log | head -6 | tr '\n' ' ') t=$((SECONDS-S))"; }
r 100 gemm_test 'GemmSplitK.*:GemmStreamK.*' splitk
for t in memcheck racecheck synccheck; do [ $((SECONDS-S)) -gt 330 ] && break; timeout 60 compute-sanitizer --tool $t --error-exitcode 1 $T/gemm_test --gtest_filter='GemmSplitK.InKernel*:GemmSplitK.ACaptured*:GemmStreamK.ThePieces*' > $OUT/san_$t.log 2>&1; echo "$t rc=$? $(tail -1 $OUT/san_$t.log) t=$((SECONDS-S))"; done
cd $OUT && tar -cJf logs.tar.xz *.log && rm -f *.log; ls
