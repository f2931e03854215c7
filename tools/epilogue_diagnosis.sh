#!/usr/bin/env bash
# Where a fused epilogue's time goes at short K (8192x8192x1024, where fusing costs most): the
# plain GEMM, a bias alone (no second pass), a bias with ReLU (the cheapest second pass) and with
# GELU, each through ping-pong, in one process per epilogue; then Nsight Compute's full section
# set and per-instruction source view of the bias + GELU kernel. A minimal build (no prebuilt
# fused instances; the four configurations are JIT-compiled side by side).
#   OUT=<dir> bash tools/epilogue_diagnosis.sh    # $OUT/diagnosis.log, $OUT/gelu.ncu-rep, ...
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${OUT:-$PWD/build/gpu-out}
BUILD=${BUILD:-build/diag}
mkdir -p "$OUT"
LOG=$OUT/diagnosis.log
{
  cmake --preset release -B "$BUILD" -DWARPLOOM_GEMM_INSTANCES=minimal >/dev/null &&
    cmake --build "$BUILD" --parallel "$(nproc)" --target warploom | tail -2
} >"$LOG" 2>&1
export WARPLOOM_CACHE_DIR=$PWD/$BUILD-jit-cache
B=$BUILD/bin
ping=bf16_bf16_tn_pingpong
"$B/warploom" precompile -j "$(nproc)" ${ping}_s6_b1_1x1_colbiasbf16 ${ping}_s5_b2_1x1_colbiasbf16_relu \
  ${ping}_s5_b2_1x1_colbiasbf16_gelu >>"$LOG" 2>&1
for epilogue in bias bias_relu bias_gelu; do
  "$B/warploom" bench gemm --shapes 8192x8192x1024,4096x4096x4096 --epilogue "$epilogue" \
    --providers warploom_pp,warploom_plain --reps 10 --json "$OUT/diagnosis_$epilogue.json" >>"$LOG" 2>&1
done
timeout 240 ncu --set full --import-source yes -k regex:ts_gemm_kernel --launch-skip 1 \
  --launch-count 1 -o "$OUT/gelu" -f "$B/warploom" bench gemm --shapes 8192x8192x1024 \
  --epilogue bias_gelu --providers warploom_pp --reps 1 --no-check >>"$LOG" 2>&1
ncu -i "$OUT/gelu.ncu-rep" --page details >"$OUT/gelu_details.txt" 2>&1
ncu -i "$OUT/gelu.ncu-rep" --page source --csv --print-source sass 2>/dev/null | xz >"$OUT/gelu_source.csv.xz"
grep -E "^\s*(8192|4096)" "$LOG" | grep -v "best of"
