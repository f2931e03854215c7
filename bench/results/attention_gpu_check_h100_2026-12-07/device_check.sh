#!/usr/bin/env bash
# Attention (issue 18): the GPU tests since the short-key Auto change, the shape and a short one, sanitizers.
export WARPLOOM_COMMIT=$(cat build/commit.txt); S=$SECONDS; mkdir -p /work && ln -sfn $PWD /work/main; [ -d build/release/bin ] || tar -xJf build/release.tar.xz
export WARPLOOM_CACHE_DIR=$PWD/build/release-jit-cache B=build/release/bin T=build/release/tests/gpu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
r() { timeout $1 $T/$2 --gtest_filter="$3" > $OUT/$4.log 2>&1; echo "$4 rc=$? $(grep -E 'PASSED|FAILED  \]' $OUT/$4.log | head -4 | tr '\n' ' ') t=$((SECONDS-S))"; }
r 150 attention_test '*' attention
r 60 ops_attention_plan_test '*' ops_attention
for m in none causal; do timeout 90 $B/warploom bench attention --shapes 4x32x4096x128,32x16x512x128 --mask $m --autotune --reps 10 --json $OUT/attention_$m.json > $OUT/att_$m.log 2>&1; echo "bench $m rc=$? t=$((SECONDS-S))"; grep -E "^ *(warploom|cudnn|flash)" $OUT/att_$m.log | head -12; done
for t in memcheck racecheck synccheck; do [ $((SECONDS-S)) -gt 400 ] && break; timeout 110 compute-sanitizer --tool $t --error-exitcode 1 $T/attention_test > $OUT/san_att_$t.log 2>&1; echo "$t rc=$? $(tail -1 $OUT/san_att_$t.log) t=$((SECONDS-S))"; done
cd $OUT && tar -cJf logs.tar.xz *.log && rm -f *.log; ls
