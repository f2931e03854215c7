#!/usr/bin/env bash
# Builds everything and runs the tests: bootstrap, configure, build, ctest, with one preset of
# CMakePresets.json (default release).
#
#   bash tools/test.sh [--preset release|sanitize] [ctest arguments...]   e.g. tools/test.sh -L cpu
#
# release builds every target and runs every test; GPU tests report "skipped" on a machine without
# an sm_90 device. sanitize builds only the CPU test programs, with ASan + UBSan, and runs them.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
preset=release
if [[ "${1:-}" == "--preset" ]]; then
  preset=$2
  shift 2
fi

# ---- Cost report: the wall time of each phase and ccache's hits and misses in this run, printed
# at exit (a failed run too), so every CI log shows what a cold or a warm build costs. With
# WARPLOOM_TIMINGS=<file> the report is also appended there (.ci/run prints them all at its end).
start=$SECONDS
timings=""
current=""  # the phase under way, and since when
current_start=0
phase() {  # phase <name> <command...>: runs the command, records its wall time
  current=$1
  current_start=$SECONDS
  shift
  "$@"
  timings+=$(printf '  %-10s %5d s' "$current" $((SECONDS - current_start)))$'\n'
  current=""
}
ccache_stats() {
  if command -v ccache >/dev/null; then ccache --print-stats 2>/dev/null || true; fi
}
stats_before=""  # taken after the bootstrap, which may install ccache
report() {
  local rc=$? text
  if [[ -n "$current" ]]; then
    timings+=$(printf '  %-10s %5d s (failed)' "$current" $((SECONDS - current_start)))$'\n'
  fi
  text="test.sh --preset $preset: $([[ $rc -eq 0 ]] && echo passed || echo "FAILED (exit $rc)")"
  text+=" in $((SECONDS - start)) s"$'\n'"$timings"
  if [[ -n "$stats_before" ]]; then
    # Hits: direct (source and headers unchanged) + preprocessed; the machine's whole cache, so
    # other builds running at the same time count too.
    text+=$(awk -F'\t' 'NR == FNR { before[$1] = $2; next }
      { now[$1] = $2 }
      END {
        hits = now["direct_cache_hit"] + now["preprocessed_cache_hit"]
        hits -= before["direct_cache_hit"] + before["preprocessed_cache_hit"]
        misses = now["cache_miss"] - before["cache_miss"]
        printf "  ccache: %d hits, %d misses", hits, misses
        if (hits + misses > 0) printf " (%.0f%% hits)", 100 * hits / (hits + misses)
        printf "; cache %.2f GiB\n", now["cache_size_kibibyte"] / 1048576
      }' <(echo "$stats_before") <(ccache_stats))
  elif ! command -v ccache >/dev/null; then
    text+="  ccache: not installed, every build is cold"
  fi
  echo "$text"
  if [[ -n "${WARPLOOM_TIMINGS:-}" ]]; then echo "$text" >>"$WARPLOOM_TIMINGS"; fi
}
trap report EXIT

phase bootstrap bash tools/bootstrap.sh
stats_before=$(ccache_stats)
# The GEMM instances the build compiles: on a machine with an sm_90 GPU, every configuration the
# GPU tests run (compiled in parallel here rather than one by one by the JIT while they run);
# elsewhere the minimal set, whose SASS the CPU tests check.
instances=minimal
if nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | grep -q '^9\.0'; then
  instances=all
fi
phase configure cmake --preset "$preset" -DWARPLOOM_GEMM_INSTANCES=$instances
phase build cmake --build --preset "$preset" --parallel "$(nproc)"
phase test ctest --preset "$preset" "$@"
