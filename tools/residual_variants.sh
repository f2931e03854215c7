#!/usr/bin/env bash
# Times source variants of the fused residual's L2 prefetch (kernels/gemm/sm90/mainloop.cuh, load;
# patches bench/variants/residual_*.patch) against the tree itself, on a build with the minimal
# instances (tools/gpu_prebuilt_check.sh, BUILD_HERE=1): the residual's configuration is not
# prebuilt there, so `warploom precompile` compiles it with the JIT, whose cache key holds every
# header's contents — a variant needs no rebuild. For each variant: apply it, compile Auto's
# configuration for the benchmark (ping-pong with its finish task), time tutorial 07/03's
# benchmark (gemm() with its fused residual beside gemm() + an add kernel and the tutorial's
# kernel) burst, then Nsight Compute's kernel times, and revert. Variants are separate processes:
# compare ratios to `base` (the tree itself).
#   OUT=<dir> BUILD=build/fused bash tools/residual_variants.sh base bench/variants/a.patch [...]
# RESIDUAL_SHAPES: the shapes (default 4096x4096x4096,8192x8192x1024; K decides whether the
#   prefetch pays, mainloop.cuh says why). $OUT: one JSON per variant and the log.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build/fused}
OUT=${OUT:?OUT: the folder the results go to}
B=$BUILD/bin
LOG=$OUT/residual_variants.log
export WARPLOOM_CACHE_DIR=${WARPLOOM_CACHE_DIR:-$PWD/$BUILD-jit-cache}
base_commit=${WARPLOOM_COMMIT:-unknown}
shapes=${RESIDUAL_SHAPES:-4096x4096x4096,8192x8192x1024}
# shellcheck source=tools/variant_patches.sh
source tools/variant_patches.sh
for variant in "$@"; do
  variant_apply "$variant"
  if ((ok)) && timeout 120 "$B/warploom" precompile bf16_bf16_tn_pingpong_s5_b2_1x1_residual \
    >>"$LOG" 2>&1; then
    timeout 120 "$B/warploom" bench merge_gemm_residual --shapes "$shapes" --reps 20 \
      --json "$OUT/residual_$name.json" 2>&1 | tee -a "$LOG" | grep -E '^[0-9]+x'
    timeout 180 "$B/warploom" bench merge_gemm_residual --shapes "$shapes" --reps 5 --prof ncu \
      --no-check 2>&1 | tee -a "$LOG" | grep -E '^[0-9]+x'
  else
    echo "$name: not timed (patch or compile failed; $LOG)"
  fi
  variant_revert
done
