#!/usr/bin/env bash
# What produced this folder (H100, 2026-12-07 08:05-08:16 UTC, 4c55c3c: the dynamic queue of
# 8343312 on a GPU for the first time). Run from the repository root on the GPU machine, with
# .deps/ (tools/bootstrap.sh) and $OUT set; builds the fused instance set (the grouped kernels
# prebuilt), then the tests, the sanitizers and the measurements.
set -u
B=build/release/bin T=build/release/tests/gpu
cmake --preset release -B build/release -DWARPLOOM_GEMM_INSTANCES=fused
cmake --build build/release --parallel "$(nproc)" --target warploom_gemm warploom_host gemm_test \
  warploom warploom-bench warploom-precompile tutorial_copy_test attention_test
cmake --install build/release --prefix build/release/python-prefix
# Tests the queue's change touches (GroupedGemm.*, tutorial 03's queues, attention's scheduler).
$T/gemm_test --gtest_filter='GroupedGemm.*'
$T/tutorial_copy_test --gtest_filter='*PersistentCopy*:*SegmentCopy*'
$T/attention_test
$T/gemm_test --gtest_filter='GemmSplitK.InKernelAndSeparateReductionsWriteTheSameBits'
G='GroupedGemm.TheSeedsRowMajorFp16Problems:GroupedGemm.CapturedInAGraphAndReplayed:GroupedGemm.TheMaskedLayout*:GroupedGemm.TheContiguousLayout*'
for tool in memcheck synccheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 1 $T/gemm_test --gtest_filter="$G"
  compute-sanitizer --tool $tool --error-exitcode 1 $T/tutorial_copy_test \
    --gtest_filter='*PersistentCopy*_n16376_*:*PersistentCopyGraph*:*SegmentCopy*segments37_*'
done
# Wall clock as captured graphs (20 replays a sample), ours beside CUTLASS's sm90 grouped kernel.
$B/warploom bench grouped --shapes 50x1024 --dtype fp16 --layout tt --mix seed \
  --providers warploom,cutlass_grouped,cublas_grouped --graph 20 --reps 20 --json $OUT/grouped_seed_graph.json
$B/warploom bench grouped --shapes 16x4096 --dtype bf16 --layout tn --mix moe \
  --providers warploom,cutlass_grouped --graph 20 --reps 20 --json $OUT/grouped_moe_graph.json
# Per clock (ncu_kernels.csv: these runs' rows, concatenated).
metrics=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
ncu --metrics $metrics -k regex:'grouped|device_kernel' --launch-count 12 --csv --page raw \
  $B/warploom bench grouped --shapes 50x1024 --dtype fp16 --layout tt --mix seed \
  --providers warploom,cutlass_grouped --reps 5 --no-check
ncu --metrics $metrics -k regex:ts_grouped --launch-count 3 --csv --page raw \
  $B/warploom bench grouped --shapes 16x4096 --dtype bf16 --layout tn --mix moe \
  --providers warploom --reps 3 --no-check
# Through the Python package, against torch (grouped_python.json).
BUILD=build/release OUT=$OUT/python bash tools/python_gpu_check.sh
PYTHONPATH=$PWD/build/python-site python3 bench/python/grouped.py --json $OUT/grouped_python.json
