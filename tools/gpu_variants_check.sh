#!/usr/bin/env bash
# Two device calls on one warm machine (the machine keeps the build ~30 s between calls):
#   PHASE=a: build the minimal instances, then check the tree on the GPU (the plan test, the
#            attention tests under the three sanitizers, timed and per clock as variant `base`,
#            the TS tutorials, the SIMT GEMM, a checked GEMM bench against cuBLAS);
#   PHASE=b: VARIANTS="bench/variants/a.patch ..." each rebuilt, tested, sanitized, timed and
#            profiled against it (tools/attention_variants.sh).
# It produced bench/results/*_2026-12-03.json of the TS lowering and the attention variants:
#   WARPLOOM_COMMIT=<commit> PHASE=a bash tools/gpu_variants_check.sh   (then PHASE=b at once)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export WARPLOOM_COMMIT=${WARPLOOM_COMMIT:?}
B=build/fused
T=$B/tests/gpu
if [[ ${PHASE:-a} == a ]]; then
  OUT=$OUT BUILD_HERE=1 BUILD=$B EXTRA_CMAKE_ARGS="-DWARPLOOM_GEMM_INSTANCES=minimal" \
    BUILD_TARGETS="warploom_gemm warploom_host warploom warploom-bench warploom-precompile" \
    EXTRA_TARGETS="attention_test ops_attention_plan_test gemm_test tutorial_copy_test" \
    STEPS="none" bash tools/gpu_prebuilt_check.sh >"$OUT/check_a.txt" 2>&1
  grep -E "^(ok|FAIL)" "$OUT/check_a.txt"
  timeout 60 "$T/ops_attention_plan_test" >"$OUT/ops_attention.txt" 2>&1; echo "ops_attention rc=$?"
  OUT=$OUT BUILD=$B ATTENTION_NCU=1 ATTENTION_SANITIZE=1 ATTENTION_TEST_FILTER='-*LongSequence*' \
    bash tools/attention_variants.sh base
  timeout 120 "$T/tutorial_copy_test" >"$OUT/tutorial.txt" 2>&1; echo "tutorial_copy_test rc=$?"
  tail -3 "$OUT/tutorial.txt"
  timeout 90 "$T/gemm_test" --gtest_filter='SimtGemm.*' >"$OUT/simt.txt" 2>&1; echo "simt rc=$?"
  tail -2 "$OUT/simt.txt"
  timeout 120 "$B/bin/warploom" bench gemm --shapes 8192x8192x8192,8192x8192x1024,4096x4096x4096,1000x1000x1000 \
    --providers warploom_pp,warploom_coop,cublas --reps 10 --json "$OUT/gemm_quick.json" \
    >"$OUT/gemm_quick.txt" 2>&1; echo "bench gemm rc=$?"
  grep -iE "fail|mismatch|x[01]\.[0-9]+ cuBLAS" "$OUT/gemm_quick.txt" | head -20
else
  OUT=$OUT BUILD=$B ATTENTION_NCU=1 ATTENTION_SANITIZE=1 \
    ATTENTION_TEST_FILTER='-*LongSequence*' \
    bash tools/attention_variants.sh $VARIANTS
  grep -E "^(====|built|tests pass|TESTS FAIL|BUILD FAILED|.* clean:|.* FAILED:)" "$OUT/variants.log"
fi
