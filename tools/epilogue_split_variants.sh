#!/usr/bin/env bash
# How ping-pong's fused epilogue should split its second pass between the MMA warpgroup and the
# finish task (kernels/gemm/sm90/epilogue.cuh, kFinishedBySelf: the subtiles below it are staged
# for the finish task, the rest the MMA threads finish themselves). Each variant is the tree with
# that constant edited, JIT-compiled into a kernel cache of its own as the ping-pong "pp_s5b2"
# stage variant, and timed in its own process beside the prebuilt plain GEMM (the same binary in
# every process: compare the variants through their ratios to it), in burst and in Nsight Compute's
# kernel cycles (clocks locked).
#
#   split_half   the tree: the first half of a tile's subtiles to the finish task
#   split_none   every subtile finished by the MMA threads (the finish task only hands buffers back)
#   split_all    every subtile finished by the finish task
#
# Needs a build with warploom and warploom-bench (tools/gpu_prebuilt_check.sh with BUILD_HERE=1).
# The header is edited in place and restored at the end.
#   OUT=<dir> bash tools/epilogue_split_variants.sh   # $OUT/split_<variant>_<epilogue>{,_ncu}.json
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build/fused}
OUT=${OUT:-$PWD/build/gpu-out}
SHAPES=${SHAPES:-8192x8192x1024,4096x4096x4096}
EPILOGUES=${EPILOGUES:-bias_gelu bias_relu}
VARIANTS=${VARIANTS:-split_half split_none split_all}
mkdir -p "$OUT"
body=kernels/gemm/sm90/epilogue.cuh
cp "$body" "$OUT/.body.orig"
reset() { cp "$OUT/.body.orig" "$body"; }
trap 'reset; rm -f "$OUT/.body.orig"' EXIT

for variant in $VARIANTS; do
  reset
  case $variant in
    split_half) ;;
    split_none) split=0 ;;
    split_all) split=kEpiTiles ;;
    *) echo "unknown variant $variant"; exit 2 ;;
  esac
  if [[ $variant != split_half ]]; then
    sed -i "s/static constexpr int kFinishedBySelf = .*;/static constexpr int kFinishedBySelf = $split;/" "$body"
    grep -q "kFinishedBySelf = $split;" "$body" || { echo "$variant: the edit did not apply"; exit 2; }
  fi
  export WARPLOOM_CACHE_DIR=$PWD/$BUILD-jit-cache-$variant
  configs=()
  for epilogue in $EPILOGUES; do configs+=("bf16_bf16_tn_pingpong_s5_b2_1x1_colbiasbf16_${epilogue#bias_}"); done
  "$BUILD/bin/warploom" precompile -j "$(nproc)" "${configs[@]}" >"$OUT/split_${variant}_precompile.log" 2>&1
  for epilogue in $EPILOGUES; do
    name=split_${variant#split_}_$epilogue
    "$BUILD/bin/warploom" bench gemm --shapes "$SHAPES" --epilogue "$epilogue" \
      --providers warploom,warploom_plain --autotune --points variant=pp_s5b2 --reps 20 \
      --json "$OUT/$name.json" >"$OUT/$name.log" 2>&1
    "$BUILD/bin/warploom" bench gemm --shapes "$SHAPES" --epilogue "$epilogue" --prof ncu \
      --providers warploom,warploom_plain --autotune --points variant=pp_s5b2 --reps 3 \
      --json "$OUT/${name}_ncu.json" >"$OUT/${name}_ncu.log" 2>&1
    grep -E "^[0-9]+x.*(pp_s5b2|plain)" "$OUT/${name}_ncu.log" | sed "s/^/$variant $epilogue /"
  done
done
