#!/usr/bin/env bash
# Times source variants of the attention kernel (patches over the checked-out tree) against the
# tree itself, on a build made by tools/gpu_prebuilt_check.sh (BUILD_HERE=1): for each patch, in
# the same build folder, apply it, rebuild only what it touches, run the attention tests (a variant
# that is wrong is not timed) and `warploom bench attention` without and with the causal mask, then
# revert it. Variants are separate processes: compare them in ratios of a schedule's time to the
# same schedule's in the unpatched run, and confirm a winner side by side after it lands.
#   OUT=<dir> BUILD=build/fused bash tools/attention_variants.sh bench/variants/a.patch [b.patch...]
# ATTENTION_TEST_FILTER: the tests a variant must pass (default: all).
# A patch name joined with '+' (a.patch+b.patch) applies both; the name `base` applies none (the
# tree itself, timed in the same way and the same process order as the variants).
# ATTENTION_NCU=1: also each schedule's kernel time per clock (Nsight Compute, clocks locked:
# the power cap's clock moves every wall-clock number, not this one), attention_ncu_<name>_<mask>.txt.
# ATTENTION_SANITIZE=1: the three compute-sanitizer tools on each variant that passes its tests.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build/fused}
OUT=${OUT:?OUT: the folder the results go to}
SHAPES=${ATTENTION_SHAPES:-4x32x4096x128}
LOG=$OUT/variants.log
base_commit=${WARPLOOM_COMMIT:-unknown}
# shellcheck source=tools/variant_patches.sh
source tools/variant_patches.sh
for variant in "$@"; do
  variant_apply "$variant"
  t0=$SECONDS
  if ((ok)) && timeout 300 cmake --build "$BUILD" --parallel "$(nproc)" \
      --target warploom warploom-bench attention_test >>"$LOG" 2>&1; then
    echo "built $name ($((SECONDS - t0)) s)" | tee -a "$LOG"
    if timeout 120 "$BUILD/tests/gpu/attention_test" --gtest_filter="${ATTENTION_TEST_FILTER:-*}" \
      >>"$LOG" 2>&1; then
      echo "tests pass: $name" | tee -a "$LOG"
      # ATTENTION_SANITIZE=1: memcheck, racecheck and synccheck on the odd-length,
      # variable-length and graph-replay tests (seconds each), so that a winner can land without
      # another run.
      sanitized='*OddLengths*:*VariableLengths*:*GraphReplays*'
      for tool in ${ATTENTION_SANITIZE:+memcheck racecheck synccheck}; do
        if timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 1 \
          "$BUILD/tests/gpu/attention_test" --gtest_filter="$sanitized" >>"$LOG" 2>&1; then
          echo "$tool clean: $name" | tee -a "$LOG"
        else
          echo "$tool FAILED: $name" | tee -a "$LOG"
        fi
      done
      for mask in none causal; do
        timeout 120 "$BUILD/bin/warploom" bench attention --shapes "$SHAPES" --mask "$mask" \
          --autotune --reps 10 --json "$OUT/attention_${name}_$mask.json" >>"$LOG" 2>&1
        [[ ${ATTENTION_NCU:-0} == 1 ]] && timeout 180 ncu --metrics gpu__time_duration.sum,\
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active -k regex:attention_kernel \
          --launch-count 12 "$BUILD/bin/warploom" bench attention --shapes "$SHAPES" --mask "$mask" \
          --autotune --reps 1 --no-check >"$OUT/attention_ncu_${name}_$mask.txt" 2>>"$LOG"
      done
    else
      echo "TESTS FAIL: $name" | tee -a "$LOG"
    fi
  else
    echo "BUILD FAILED: $name" | tee -a "$LOG"
  fi
  variant_revert
done
