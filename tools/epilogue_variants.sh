#!/usr/bin/env bash
# An A/B of the fused epilogue: the same bias + activation GEMM built from variants of the
# epilogue's headers, each JIT-compiled into a kernel cache of its own as the ping-pong "pp_s5b2"
# stage variant (a configuration the build does not prebuild), each timed in its own process
# beside the prebuilt default (Auto) and the plain GEMM, which are the same binaries in every
# process: compare the variants through their ratios to those. NCU=1 adds Nsight Compute's kernel
# cycles (clocks locked) of each.
#
# Where the activation runs (2026-12-02):
#   in_pass        the activation in the accumulator pass, on z in fp32 (the tree at c77bce8)
#   chunk_pass     the activation in the rolled pass over the staged subtile, one 16-byte chunk
#                  per iteration (before b2f12cb, and again since dbeb3fd reverted it)
#   chunk_pass_u2  the same, two chunks per iteration
# The variants are edits of the tree that had the accumulator pass: to rerun the measurement of
# bench/results/epilogue_variants_2026-12-02.json, check out c77bce8 first. On a later tree in_pass
# and chunk_pass are both the rolled pass (nothing to turn off), chunk_pass_u2 still unrolls it.
#
# How ping-pong splits that pass between the MMA warpgroup and the finish task (2026-12-06;
# epilogue.cuh's kFinishedBySelf: the subtiles below it are staged for the finish task, the rest the
# MMA threads finish themselves):
#   split_half     the tree: the first half of a tile's subtiles to the finish task
#   split_none     every subtile finished by the MMA threads (the finish task hands buffers back)
#   split_all      every subtile finished by the finish task
#
# Needs a build with warploom and warploom-bench (tools/gpu_prebuilt_check.sh with BUILD_HERE=1).
# The headers are edited in place and restored at the end.
#   OUT=<dir> bash tools/epilogue_variants.sh    # $OUT/variant_<name>_<epilogue>{,_ncu}.json, .log
#   OUT=<dir> NCU=1 EPILOGUES=bias_gelu VARIANTS="split_half split_none split_all" \
#     bash tools/epilogue_variants.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build/fused}
OUT=${OUT:-$PWD/build/gpu-out}
SHAPES=${SHAPES:-8192x8192x1024,4096x4096x4096}
EPILOGUES=${EPILOGUES:-bias_gelu bias_silu}
VARIANTS=${VARIANTS:-in_pass chunk_pass chunk_pass_u2}
mkdir -p "$OUT"
ops=kernels/gemm/sm90/epilogue_ops.cuh
body=kernels/gemm/sm90/epilogue.cuh
cp "$ops" "$OUT/.ops.orig" && cp "$body" "$OUT/.body.orig"
reset() { cp "$OUT/.ops.orig" "$ops" && cp "$OUT/.body.orig" "$body"; }
trap 'reset; rm -f "$OUT/.ops.orig" "$OUT/.body.orig"' EXIT

# The split_* variants: epilogue.cuh's kFinishedBySelf set to $1.
finished_by_self() {
  sed -i "s/static constexpr int kFinishedBySelf = .*;/static constexpr int kFinishedBySelf = $1;/" "$body"
  if ! grep -q "kFinishedBySelf = $1;" "$body"; then
    echo "kFinishedBySelf = $1: the edit did not apply"
    exit 2
  fi
}

for variant in $VARIANTS; do
  reset
  case $variant in
    in_pass | split_half) ;;
    chunk_pass | chunk_pass_u2)
      # The accumulator pass off, where the tree has it (b2f12cb .. dbeb3fd).
      sed -i 's/static constexpr bool kActivationInPass = .*;/static constexpr bool kActivationInPass = false;/' "$ops"
      if [[ $variant == chunk_pass_u2 ]]; then
        # finish()'s loop: the one rolled loop between "void finish" and the end of that function.
        sed -i '/WL_DEVICE void finish(/,/^  }$/ s/#pragma unroll 1/#pragma unroll 2/' "$body"
      fi
      ;;
    split_none) finished_by_self 0 ;;
    split_all) finished_by_self kEpiTiles ;;
    *) echo "unknown variant $variant"; exit 2 ;;
  esac
  export WARPLOOM_CACHE_DIR=$PWD/$BUILD-jit-cache-$variant
  configs=()
  for epilogue in $EPILOGUES; do
    act=${epilogue#bias_}
    configs+=("bf16_bf16_tn_pingpong_s5_b2_1x1_colbiasbf16_$act")
  done
  "$BUILD/bin/warploom" precompile -j "$(nproc)" "${configs[@]}" >"$OUT/variant_${variant}_precompile.log" 2>&1
  for epilogue in $EPILOGUES; do
    name=variant_${variant}_$epilogue
    "$BUILD/bin/warploom" bench gemm --shapes "$SHAPES" --epilogue "$epilogue" \
      --providers warploom,warploom_plain --autotune --points variant=pp_s5b2 --reps 20 \
      --json "$OUT/$name.json" >"$OUT/$name.log" 2>&1
    grep -E "^[0-9]+x" "$OUT/$name.log" | sed "s/^/$variant $epilogue /"
    if [[ ${NCU:-0} == 1 ]]; then
      # --prof ncu profiles each provider's default (no autotune points): the fused default is
      # ping-pong with the finish task below K = 4096, compiled from this variant's headers too.
      "$BUILD/bin/warploom" bench gemm --shapes "$SHAPES" --epilogue "$epilogue" --prof ncu \
        --providers warploom,warploom_plain --reps 3 \
        --json "$OUT/${name}_ncu.json" >"$OUT/${name}_ncu.log" 2>&1
      grep -E "^[0-9]+x" "$OUT/${name}_ncu.log" | sed "s/^/$variant $epilogue ncu /"
    fi
  done
done
