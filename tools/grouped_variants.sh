#!/usr/bin/env bash
# Times source variants of the grouped GEMM kernel (patches over the checked-out tree) against the
# tree itself, on a build with the minimal instances (tools/gpu_prebuilt_check.sh, BUILD_HERE=1):
# no grouped instance is prebuilt there, so `warploom precompile` compiles them with the JIT, whose
# cache key holds every header's contents — a patched kernel is a new key, and a variant needs no
# rebuild of the binaries. For each variant: apply it, compile the grouped configurations, run the
# grouped GPU tests (a variant that is wrong is not timed), time the seed's 50 problems and the MoE
# layer as captured graphs beside CUTLASS's sm90 grouped kernel and cuBLAS, and read each kernel's
# cycles, DRAM bytes, L2 hit rate and tensor-pipe use with Nsight Compute (clocks locked; the
# seed's launches, its setup kernel's among them, in a second table of the same CSV). Variants
# are separate processes: compare ratios to `base` (the tree itself, timed in the same order).
#   OUT=<dir> BUILD=build/fused bash tools/grouped_variants.sh base bench/variants/a.patch [...]
# A name joined with '+' (a.patch+b.patch) applies both.
# GROUPED_PROFILE=1: also the full Nsight Compute set with per-instruction samples on the MoE layer
#   (our default design and ping-pong, CUTLASS's kernel): grouped_<name>_*.txt / *.csv.xz.
# GROUPED_DENSE=1: also the dense kernels' metrics, after the MoE layer's in the same CSV.
# GROUPED_REBUILD=1: rebuild the prebuilt binaries after applying a variant (a schedule change).
# $OUT brings back 8 files: three per variant and the log, three more per profiled variant.
# GROUPED_SANITIZE=1: memcheck, racecheck and synccheck on the grouped tests of each variant.
# GROUPED_TESTS: the gemm_test filter a variant must pass (default GroupedGemm.*). With the minimal
#   build, pick dense tests on bf16 "tn" (e.g. TsGemm.PersistentLoopAndRasterPanels): TsGemm.* has
#   the JIT compile every type pair and layout and runs past the tests' 180 s.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${BUILD:-build/fused}
OUT=${OUT:?OUT: the folder the results go to}
B=$BUILD/bin
T=$BUILD/tests/gpu
LOG=$OUT/grouped_variants.log
export WARPLOOM_CACHE_DIR=${WARPLOOM_CACHE_DIR:-$PWD/$BUILD-jit-cache}
base_commit=${WARPLOOM_COMMIT:-unknown}
tests=${GROUPED_TESTS:-GroupedGemm.*}  # the GPU tests a variant must pass (and is sanitized on)
# What the grouped tests and the two benchmarks' tuning spaces run.
configs=(bf16_bf16_tn_pingpong_s6_b1_1x1_grouped_colbiasbf16_gelu_residual
  e4m3_bf16_tn_pingpong_s6_b1_1x1_grouped)
# The dynamic tile scheduler's, in both designs (ping-pong at its two verified shapes).
for types in fp16_fp16_tt bf16_bf16_tn; do
  for design in cooperative_s4_b2 pingpong_s6_b1 pingpong_s5_b2; do
    configs+=("${types}_${design}_1x1_grouped_dynamic")
  done
done
for types in fp16_fp16_tt bf16_bf16_tn; do
  for design in cooperative_s4_b2 pingpong_s6_b1 cooperative_s2_b2 cooperative_s3_b2 \
    pingpong_s4_b1 pingpong_s5_b2; do configs+=("${types}_${design}_1x1_grouped"); done
done
moe=(bench grouped --shapes 16x4096 --dtype bf16 --layout tn --mix moe)
seed=(bench grouped --shapes 50x1024 --dtype fp16 --layout tt --mix seed)
# What the L2 serves the TMA loads (tex), what it misses, and what crosses between its two
# partitions (ltcfabric): where the ping-pong kernel's extra DRAM bytes come from.
metrics=gpu__time_duration.sum,sm__cycles_elapsed.max,dram__bytes_read.sum,dram__bytes_write.sum,\
lts__t_sector_hit_rate.pct,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,\
smsp__inst_executed.sum,lts__t_sectors_srcunit_tex_op_read.sum,\
lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors_srcunit_ltcfabric.sum
# shellcheck source=tools/variant_patches.sh
source tools/variant_patches.sh
for variant in "$@"; do
  variant_apply "$variant"
  # GROUPED_REBUILD=1: a variant of the dense kernels or the schedules rebuilds what the build
  # prebuilt (only what the patch touches; nothing for grouped.cuh alone).
  if ((ok)) && [[ ${GROUPED_REBUILD:-0} == 1 ]]; then
    t0=$SECONDS
    timeout 420 cmake --build "$BUILD" --parallel "$(nproc)" --target warploom warploom-bench \
      gemm_test >>"$LOG" 2>&1 || ok=0
    echo "rebuilt $name ($((SECONDS - t0)) s, ok=$ok)" | tee -a "$LOG"
  fi
  t0=$SECONDS
  if ((ok)) && timeout 300 "$B/warploom" precompile -j "$(nproc)" "${configs[@]}" >>"$LOG" 2>&1; then
    echo "compiled $name ($((SECONDS - t0)) s)" | tee -a "$LOG"
    if timeout 180 "$T/gemm_test" --gtest_filter="$tests" >>"$LOG" 2>&1; then
      echo "tests pass: $name" | tee -a "$LOG"
      for tool in ${GROUPED_SANITIZE:+memcheck racecheck synccheck}; do
        if timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 1 "$T/gemm_test" \
          --gtest_filter="$tests" >>"$LOG" 2>&1; then
          echo "$tool clean: $name" | tee -a "$LOG"
        else
          echo "$tool FAILED: $name" | tee -a "$LOG"
        fi
      done
      # Captured graphs, 20 replays back to back per sample; Auto, ping-pong and the stage variants.
      timeout 150 "$B/warploom" "${moe[@]}" --providers warploom,cutlass_grouped,cublas_grouped \
        --autotune --points design= --graph 20 --reps 10 --json "$OUT/grouped_${name}_moe.json" \
        >>"$LOG" 2>&1
      timeout 150 "$B/warploom" "${seed[@]}" --providers warploom,cutlass_grouped,cublas_grouped \
        --autotune --points variant= --graph 20 --reps 20 --json "$OUT/grouped_${name}_seed.json" \
        >>"$LOG" 2>&1
      # Per clock: each kernel launch's metrics (ours in both designs, CUTLASS's, the setup).
      timeout 180 ncu --metrics "$metrics" -k regex:'grouped|device_kernel' --csv --page raw \
        --log-file "$OUT/grouped_${name}_moe_ncu.csv" "$B/warploom" "${moe[@]}" \
        --providers warploom,cutlass_grouped --autotune --points design= --reps 1 --no-check \
        >>"$LOG" 2>&1
      # The seed's launches too (its setup kernel and each walk's grouped kernel), appended to
      # that file: a second table.
      timeout 120 ncu --metrics "$metrics" -k regex:'grouped|device_kernel' --csv --page raw \
        --log-file /tmp/seed_ncu.csv "$B/warploom" "${seed[@]}" --providers warploom,cutlass_grouped \
        --autotune --points tiles= --reps 3 --no-check >>"$LOG" 2>&1 &&
        cat /tmp/seed_ncu.csv >>"$OUT/grouped_${name}_moe_ncu.csv"
      # GROUPED_DENSE=1: the same metrics on the dense kernels at an expert's shape and at issue
      # 15's 8192x8192x1024 (both designs, CUTLASS's), appended to that file (a third table).
      if [[ ${GROUPED_DENSE:-0} == 1 ]]; then
        timeout 150 ncu --metrics "$metrics" -k regex:'ts_gemm_kernel|device_kernel' --csv \
          --page raw --log-file /tmp/dense_ncu.csv "$B/warploom" bench gemm \
          --shapes 2048x4096x4096,8192x8192x1024 --providers warploom,warploom_pp,cutlass_pp,cutlass \
          --reps 1 --no-check >>"$LOG" 2>&1 && cat /tmp/dense_ncu.csv >>"$OUT/grouped_${name}_moe_ncu.csv"
      fi
      if [[ ${GROUPED_PROFILE:-0} == 1 ]]; then
        for pick in cooperative:'ts_grouped_gemm_kernel.*Cooperative' \
          pingpong:'ts_grouped_gemm_kernel.*Pingpong' cutlass:'device_kernel'; do
          tag=${pick%%:*} who=${pick#*:}
          rep=/tmp/grouped_${name}_$tag
          timeout 180 ncu --set full --import-source yes --kernel-name-base demangled \
            -k regex:"$who" --launch-count 1 -o "$rep" -f "$B/warploom" "${moe[@]}" \
            --providers warploom,cutlass_grouped --autotune --points design= --reps 1 --no-check \
            >>"$LOG" 2>&1
          ncu -i "$rep.ncu-rep" --page details >"$OUT/grouped_${name}_${tag}_details.txt" 2>&1
          [[ $tag == cutlass ]] || ncu -i "$rep.ncu-rep" --page source --csv \
            --print-source sass | xz >"$OUT/grouped_${name}_${tag}_source.csv.xz"
        done
      fi
    else
      echo "TESTS FAIL: $name" | tee -a "$LOG"
      grep -E "FAILED|Failure|error" "$LOG" | tail -20
    fi
  else
    echo "COMPILE FAILED: $name" | tee -a "$LOG"
    grep -E "error" "$LOG" | tail -20
  fi
  variant_revert
done
