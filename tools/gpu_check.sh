#!/usr/bin/env bash
# A short GPU check of a change, for when the device budget does not allow tools/gpu.sh in full:
# build every GEMM instance, run every GPU test, compute-sanitizer memcheck on the GEMM test's
# cluster and persistent-loop cases, and the GEMM benchmark (bf16, the five large shapes and an odd
# one, against cuBLAS, cuBLASLt and CUTLASS, interleaved) with the stage ablation.
#
#   OUT=<dir> bash tools/gpu_check.sh      # logs and results in $OUT (default build/gpu-out)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${OUT:-$PWD/build/gpu-out}
mkdir -p "$OUT"
status=0
run() {  # run <label> <seconds> <command...>: output into $OUT/<label>.log; keeps going
  local label=$1 limit=$2
  shift 2
  local t0=$SECONDS
  if timeout "$limit" "$@" >"$OUT/$label.log" 2>&1; then
    echo "ok      $label ($((SECONDS - t0)) s)"
  else
    echo "FAILED  $label ($((SECONDS - t0)) s)"
    tail -30 "$OUT/$label.log"
    status=1
  fi
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit \
  --format=csv,noheader | tee "$OUT/smi_before.txt"
run bootstrap 30 bash tools/bootstrap.sh
run configure 40 cmake --preset release -DWARPLOOM_GEMM_INSTANCES=all
run build 300 cmake --build --preset release --parallel "$(nproc)" --target warploom_gemm \
  gemm_test tutorial_copy_test ts_pipeline_test gemm_bench warploom
run gpu-tests 150 ctest --preset gpu --output-on-failure
run memcheck 60 compute-sanitizer --tool memcheck --error-exitcode 1 \
  build/release/tests/gpu/gemm_test --gtest_filter='*EveryClusterShape*:*PersistentLoop*'
run gemm-bench 100 build/release/bin/gemm_bench --dtype bf16 --reps 20 --ablate-stages \
  --shapes 4096x4096x4096,8192x8192x8192,8192x8192x1024,1024x8192x8192,16384x16384x4096,3000x5000x700 \
  --json "$OUT/gemm_bench_bf16.json"
tail -25 "$OUT/gemm-bench.log"
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader | tee "$OUT/smi_after.txt"
exit $status
