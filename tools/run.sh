#!/usr/bin/env bash
# The main job: installs what the build needs, builds, verifies every bundled kernel (schedule
# tables and verdicts, no GPU needed) and, on a Hopper GPU, runs each one on random data, checks
# the result and prints timing tables with `warploom bench`: the copies against their baselines and
# cudaMemcpy, the GEMM against cuBLAS, cuBLASLt and CUTLASS (each as % of its roofline bound).
#
#   bash tools/run.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/bootstrap.sh
cmake --preset release >/dev/null
cmake --build --preset release --parallel "$(nproc)" \
  --target warploom 01_grid_stride_copy 02_tma_copy

bin=build/release/bin
echo "=== warploom verify --all (schedule tables, structural checks, exhaustive model check)"
"$bin/warploom" verify --all
if nvidia-smi -L 2>/dev/null | grep -q "GPU"; then
  for args in "" "--variant vector"; do
    echo "=== 01_grid_stride_copy $args"
    "$bin/01_grid_stride_copy" $args | tail -1
  done
  for args in "--rows_cols 256,512" "--rows_cols 4096,8192 --variant multistage"; do
    echo "=== 02_tma_copy $args"
    "$bin/02_tma_copy" $args | tail -1
  done
  echo "=== warploom bench copy (1 GiB; TS kernels, hand-written baselines, cudaMemcpy; interleaved)"
  "$bin/warploom" bench copy --shapes 1073741824
  echo "=== warploom bench gemm (bf16; checked against the float64 reference first; interleaved)"
  "$bin/warploom" bench gemm --reps 20 --shapes 4096x4096x4096,8192x8192x8192,3000x5000x700
else
  echo "=== no GPU: kernels verified and built; nothing was run"
fi
