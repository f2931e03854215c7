#!/usr/bin/env bash
# The one GPU script: builds, runs the GPU tests, runs compute-sanitizer (memcheck, racecheck,
# synccheck) on them, checks the tutorial programs, benchmarks the kernels against their baselines
# and cudaMemcpy, compares their SASS, and prints a short table.
#
#   bash tools/gpu.sh [tutorials] [gemm] [harness]   # parts to run (default: all); logs and results
#                                                    # under $OUT (default build/gpu-out)
#
# On the device machine (no network) `.deps/` must travel with the tree (carry it).
# Options (environment): GEMM_ABLATE=1 adds the raster-panel and 1x2-cluster benchmarks,
# GEMM_PROFILE=1 the Nsight Compute profiles ($OUT/ncu_*.txt); WARPLOOM_COMMIT names the commit in
# the results (the device's copy of the tree may carry a stale .git).
# Results: $OUT/tutorial_copies.json (timings + SASS + device facts), $OUT/gpu.log (everything).
#
# compute-sanitizer (memcheck, racecheck, synccheck) runs on every GPU test program this run built:
# the tests ctest labels gpu, each with its own command line, found through
# `ctest --show-only=json-v1`, so a new GPU test is checked without an edit here. It runs after the
# timings, which it would otherwise heat. The one table of exceptions, "<ctest name>:<tool>" ("*":
# every tool) -> a --gtest_filter, or `skip`, each with its reason:
gemm_sanitizer_filter='TsGemm.AlphaBeta*:TsGemm.Persistent*:TsGemm.Fp8Scales*:TsGemm.*EveryClusterShape'
gemm_sanitizer_filter+=':SimtGemm.ElementAligned*:SimtGemm.Persistent*:SimtGemm.Fp8Scales'
declare -A SANITIZER_EXCEPTIONS=(
  # Correctness: racecheck does not follow the happens-before edge that Agent::Warp relies on (the
  # lanes' reads -> __syncwarp -> the elected lane's release arrive; PTX release is cumulative), so
  # it reports the warp-agent rings; those run under memcheck and synccheck only.
  [ts_pipeline_test:racecheck]='*ThreadArrivals*'
  [ts_pipeline_group_gpu_test:racecheck]='*Merge*:*ThreadArrivals*'
  [ts_warp_roles_test:racecheck]='*ThreadArrivals*'
  # Not ours: `warploom bench gemm` times cuBLASLt too, and racecheck reports hazards inside its
  # kernels (28 in nvjet_sm90_qqtst_256x128_128x4_1x2_v_bz_coopA_TNN on e4m3; H200,
  # compute-sanitizer 2025.3.1, 2026-12-01); leaving them out with --kernel-name-exclude made that
  # compute-sanitizer fail with an internal error. Our GEMM kernels are race-checked by gemm_test.
  [warploom_bench_gemm_check:racecheck]=skip
  [warploom_bench_gemm_fp8_check:racecheck]=skip
  # Time budget: one partial-tile shape, one multi-band shape and the grid-stride edge sizes cover
  # every copy kernel and variant; ...
  # every cluster size of the split-K GEMM; racecheck follows its DSMEM handshakes only when every
  # thread arrives (kernels/tutorial/split_k_gemm.hpp), so it runs those.
  [tutorial_copy_test:*]='Shapes/TmaCopy.*/*_33x384:Shapes/TmaCopy.*/*_1000x128:Sizes/GridStrideCopy.*/*_n1000_*:Sizes/GridStrideCopy.*/*_n31_*:*SplitKGemm*'
  [tutorial_copy_test:racecheck]='Shapes/TmaCopy.*/*_33x384:Shapes/TmaCopy.*/*_1000x128:Sizes/GridStrideCopy.*/*_n1000_*:Sizes/GridStrideCopy.*/*_n31_*:*SplitKGemm*_Split1:*SplitKGemm*EveryThread'
  # Time budget: the problems with several tiles per CTA, partial tiles, C and padding, and every
  # cluster shape (the multicast pipeline), in both designs ...
  [gemm_test:memcheck]=$gemm_sanitizer_filter
  [gemm_test:synccheck]=$gemm_sanitizer_filter
  # ... and racecheck, the slowest tool, on the smaller ones.
  [gemm_test:racecheck]='TsGemm.AlphaBeta*:TsGemm.Fp8Scales*:TsGemm.EveryClusterShape:SimtGemm.ElementAligned*'
)

set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${OUT:-$PWD/build/gpu-out}
mkdir -p "$OUT"
LOG="$OUT/gpu.log"
: >"$LOG"
status=0
parts=" ${*:-tutorials gemm harness} "
want() { [[ "$parts" == *" $1 "* ]]; }
step() { echo "== $*" | tee -a "$LOG"; }
run() {  # run <label> <command...>: logs output, records failure, keeps going
  local label=$1; shift
  step "$label: $*"
  if "$@" >>"$LOG" 2>&1; then echo "   ok" | tee -a "$LOG"; else echo "   FAILED ($label)" | tee -a "$LOG"; status=1; fi
}
smi() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu --format=csv,noheader 2>/dev/null; }

step "device"
nvidia-smi >>"$LOG" 2>&1
smi_before=$(smi)
echo "$smi_before" | tee -a "$LOG"

run bootstrap bash tools/bootstrap.sh
# Every GEMM configuration the GPU tests run, compiled in parallel by the build.
run configure cmake --preset release -DWARPLOOM_GEMM_INSTANCES=all
# Only what runs here: the CPU tests run in CI, not on the lease.
targets=()
want tutorials && targets+=(warploom_tutorials tutorial_copy_test ts_pipeline_test ts_warp_roles_test
  01_grid_stride_copy 02_tma_copy copy_bench)
want gemm && targets+=(warploom_gemm gemm_test gemm_bench)
want harness && targets+=(warploom warploom_gemm warploom_tutorials)
run build cmake --build --preset release --parallel "$(nproc)" --target "${targets[@]}"
grep -E "ptxas info *: (Used|Compiling)|spill" "$LOG" >"$OUT/ptxas.txt" || true

if want tutorials; then
  run gpu-tests ctest --preset gpu --output-on-failure -R "tutorial|ts_pipeline"

  run example-01 build/release/bin/01_grid_stride_copy
  run example-01-vector build/release/bin/01_grid_stride_copy --variant vector --num_entries 1000003
  run example-01-raw build/release/bin/01_grid_stride_copy --run-raw-kernel
  run example-02 build/release/bin/02_tma_copy --rows_cols 256,512
  run example-02-raw build/release/bin/02_tma_copy --rows_cols 256,512 --run-raw-kernel
  run example-02-multistage build/release/bin/02_tma_copy --rows_cols 1000,4096 --variant multistage
  run example-02-bad-shape bash -c '! build/release/bin/02_tma_copy --rows_cols 256,100'

  run bench build/release/bin/copy_bench --gib 1 --reps 30 --json "$OUT/copy_bench.json"
  run sass python3 tools/sass_compare.py build/release/kernels/libwarploom_tutorials.a --json "$OUT/sass.json"
  smi_after=$(smi)
  run results python3 tools/collect_results.py --bench "$OUT/copy_bench.json" --sass "$OUT/sass.json" \
    --smi-before "$smi_before" --smi-after "$smi_after" --command "bash tools/gpu.sh" \
    --out "$OUT/tutorial_copies.json"
fi

if want gemm; then
  run gemm-tests ctest --preset gpu --output-on-failure -R gemm
  # Before timing anything: every compiled GEMM kernel keeps its wgmma pipelined (a serialized
  # build once halved every number of a GPU run).
  run gemm-sass ctest --preset release --output-on-failure -R gemm_sass_test
  # Both consumer designs side by side with the library's choice; bf16 also with the stage-count
  # variants (the ablations of docs/kernels/sm90_ts_gemm.md).
  run gemm-bench-bf16 build/release/bin/gemm_bench --dtype bf16 --reps 30 --ablate-design \
    --ablate-stages --json "$OUT/gemm_bench_bf16.json"
  run gemm-bench-fp16 build/release/bin/gemm_bench --dtype fp16 --reps 30 --ablate-design \
    --json "$OUT/gemm_bench_fp16.json"
  # fp8 (e4m3, e5m2): layout tn, D bf16, against cuBLASLt (cublasGemmEx has no fp8), on issue 4's
  # fp8 shapes and two of the 16-bit ones.
  for dtype in e4m3 e5m2; do
    run "gemm-bench-$dtype" build/release/bin/gemm_bench --dtype "$dtype" --reps 30 \
      --ablate-design --shapes 8192x8192x8192,4096x7168x16384,4096x4096x4096,8192x8192x1024 \
      --json "$OUT/gemm_bench_$dtype.json"
  done
  for dtype in bf16 fp16; do
    run "gemm-bench-$dtype-sustained" build/release/bin/gemm_bench --dtype "$dtype" --reps 30 \
      --regime sustained --sustain-s 5 --json "$OUT/gemm_bench_${dtype}_sustained.json"
  done
  # Ablation: 2x1 clusters (B multicast into both CTAs; the default is 1x1), both designs. (Raster
  # panels and 1x2 clusters were within noise; their runs are in docs/kernels/sm90_ts_gemm.md:
  # GEMM_ABLATE=1 repeats them.)
  run gemm-bench-cluster2x1 build/release/bin/gemm_bench --dtype bf16 --reps 20 --cluster 2x1 \
    --ablate-design --json "$OUT/gemm_bench_bf16_cluster2x1.json"
  # Short K, where the per-tile cost shows, on 2x1 and 1x1 clusters.
  for cluster in 2x1 1x1; do
    run "gemm-bench-short-k-$cluster" build/release/bin/gemm_bench --dtype bf16 --reps 20 \
      --shapes 8192x8192x512,8192x8192x2048 --cluster "$cluster" --ablate-design \
      --json "$OUT/gemm_bench_bf16_short_k_$cluster.json"
  done
  if [ -n "${GEMM_ABLATE:-}" ]; then
    for panel in 1 4 16; do
      run "gemm-bench-panel$panel" build/release/bin/gemm_bench --dtype bf16 --reps 20 \
        --shapes 8192x8192x8192,16384x16384x4096 --panel "$panel" \
        --json "$OUT/gemm_bench_bf16_panel$panel.json"
    done
    run gemm-bench-cluster1x2 build/release/bin/gemm_bench --dtype bf16 --reps 20 --cluster 1x2 \
      --json "$OUT/gemm_bench_bf16_cluster1x2.json"
  fi
  # Where the short-K time goes: Nsight Compute's warp states and stall sampling (by SASS line)
  # for both designs and CUTLASS's ping-pong kernel, on 8192x8192x1024.
  if [ -n "${GEMM_PROFILE:-}" ] && command -v ncu >/dev/null; then
    for who in cooperative pingpong cutlass_pp; do
      if [ "$who" = cutlass_pp ]; then pick=(--contenders cutlass_pp); kernel='regex:device_kernel'
      else pick=(--contenders warploom --design "$who"); kernel='regex:ts_gemm_kernel'; fi
      run "gemm-profile-$who" ncu --kernel-name "$kernel" --launch-skip 3 --launch-count 1 \
        --section SpeedOfLight --section WarpStateStats --section SourceCounters \
        --log-file "$OUT/ncu_$who.txt" build/release/bin/gemm_bench --dtype bf16 --reps 5 \
        --shapes 8192x8192x1024 "${pick[@]}"
    done
  fi
  gemm_smi_after=$(smi)  # the clocks the timings left, before the sanitizers
fi

if want harness; then
  # `warploom bench` (the KernelPlan harness) on every family: its GPU tests (bench --check at
  # small shapes), the gemm family on issue 4's shapes with both charts, autotuning (the design,
  # cluster and stage-count space) on two shapes, Nsight Compute's curated metrics on one, the
  # copy family; every kernel's registers, shared memory and spills from the binaries.
  run harness-tests ctest --preset gpu --output-on-failure -R warploom_bench
  wb=build/release/bin/warploom
  shapes=4096x4096x4096,8192x8192x8192,8192x8192x1024,1024x8192x8192,16384x16384x4096,3000x5000x700
  run warploom-bench-gemm "$wb" bench gemm --shapes "$shapes" --json "$OUT/warploom_bench_gemm_bf16.json" \
    --csv "$OUT/warploom_bench_gemm_bf16.csv" --svg "$OUT/warploom_bench_gemm_bf16"
  run warploom-bench-gemm-e4m3 "$wb" bench gemm --dtype e4m3 --shapes 8192x8192x8192,4096x7168x16384 \
    --json "$OUT/warploom_bench_gemm_e4m3.json" --svg "$OUT/warploom_bench_gemm_e4m3"
  run warploom-bench-gemm-autotune "$wb" bench gemm --autotune --reps 20 \
    --providers warploom,cutlass,cutlass_pp --shapes 8192x8192x8192,8192x8192x1024,16384x16384x4096 \
    --json "$OUT/warploom_bench_gemm_autotune.json"
  # Burst against sustained (the 700 W cap), and whether a slow contender interleaved with the
  # others (the SIMT GEMM) moves their numbers: without, with, without again.
  run warploom-bench-gemm-sustained "$wb" bench gemm --regime sustained --sustain-s 5 \
    --providers warploom,cublas,cublaslt --shapes 4096x4096x4096,8192x8192x8192 \
    --json "$OUT/warploom_bench_gemm_sustained.json"
  for who in without with again; do
    pick=warploom,cublas,cublaslt
    [ "$who" = with ] && pick=warploom,warploom_simt,cublas,cublaslt
    run "warploom-bench-gemm-simt-$who" "$wb" bench gemm --providers "$pick" \
      --shapes 4096x4096x4096,8192x8192x1024 --json "$OUT/warploom_bench_gemm_simt_$who.json"
  done
  if command -v ncu >/dev/null; then
    run warploom-bench-gemm-ncu "$wb" bench gemm --prof ncu --reps 5 --shapes 8192x8192x1024 \
      --providers warploom,cublas,cutlass_pp --json "$OUT/warploom_bench_gemm_ncu.json"
  fi
  run warploom-bench-copy "$wb" bench copy --shapes 268435456,1073741824 --autotune \
    --json "$OUT/warploom_bench_copy.json" --svg "$OUT/warploom_bench_copy"
  run resource-usage python3 tools/resource_usage.py build/release/lib/libwarploom_gemm.so \
    build/release/kernels/libwarploom_tutorials.a --json "$OUT/resource_usage.json"
fi

# compute-sanitizer on every GPU test program this run built (the table at the top). gpu_tests: one
# line per test, "<name> TAB <working directory> TAB <command, shell-quoted>", for the tests whose
# program lies in the build tree (not a script) and is one of this run's targets.
gpu_tests=$(ctest --preset gpu --show-only=json-v1 | python3 -c '
import json, os, shlex, sys
build, targets = os.path.realpath(sys.argv[1]), set(sys.argv[2:])
for t in json.load(sys.stdin)["tests"]:
    command = t.get("command")  # absent when the program is not built
    if not command or not os.path.realpath(command[0]).startswith(build + os.sep):
        continue
    if os.path.basename(command[0]) not in targets:
        continue
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    print(t["name"], props.get("WORKING_DIRECTORY", build), shlex.join(command), sep="\t")
' build/release "${targets[@]}")
while IFS=$'\t' read -r name workdir quoted; do
  [[ -n "$name" ]] || continue
  eval "argv=($quoted)"  # shlex.join quoted it for the shell
  for tool in memcheck racecheck synccheck; do
    filter=${SANITIZER_EXCEPTIONS[$name:$tool]:-${SANITIZER_EXCEPTIONS[$name:*]:-}}
    if [[ "$filter" == skip ]]; then  # a note, not a step: the results record steps as checks
      echo "   ($tool skipped on $name: the table at the top of tools/gpu.sh says why)" |
        tee -a "$LOG"
      continue
    fi
    run "sanitizer-$tool-$name" env -C "$workdir" compute-sanitizer --tool "$tool" \
      --error-exitcode 1 "${argv[@]}" ${filter:+"--gtest_filter=$filter"}
  done
done <<<"$gpu_tests"

if want gemm; then
  # After the sanitizers: their steps in the log are among the checks the results record.
  run gemm-results python3 tools/collect_results.py --smi-before "$smi_before" \
    --smi-after "$gemm_smi_after" --command "bash tools/gpu.sh gemm" --regime "burst and sustained" \
    --checks-log "$LOG" \
    --out "$OUT/gemm_sm90_ts.json" $(printf -- '--bench %s ' "$OUT"/gemm_bench_*.json)
fi

step "summary"
grep -E "^== |FAILED|PASS|ERROR SUMMARY" "$LOG" | grep -v "^== device" | tail -40
[ -f "$OUT/copy_bench.json" ] && sed -n '/^group /,/^$/p' "$LOG" | head -32
grep -E "instructions, baseline" "$LOG"
grep -E "^(shape |[0-9]+x[0-9]+x[0-9]+ |geomean)" "$LOG"
echo "gpu.sh: $([ $status -eq 0 ] && echo all steps passed || echo SOME STEPS FAILED)"
exit $status
