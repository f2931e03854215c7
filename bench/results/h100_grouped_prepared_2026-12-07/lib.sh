# The device scripts' environment and time-bounded step runner (bench/results/h100_grouped_prepared_2026-12-07).
set -u
mkdir -p /work && ln -sfn "$PWD" /work/main
export WARPLOOM_COMMIT=${WARPLOOM_COMMIT:-$(cat build/commit.txt 2>/dev/null || echo unknown)}
export BUILD=build/release
export WARPLOOM_CACHE_DIR=$PWD/build/release-jit-cache
B=$BUILD/bin T=$BUILD/tests/gpu
LOG=$OUT/${LOGNAME_:-log}.txt
T0=$SECONDS
DEADLINE=${DEADLINE:-570}
step() {  # step <label> <limit> <cmd...>
  local label=$1 limit=$2; shift 2
  local left=$((DEADLINE - (SECONDS - T0)))
  if (( left < 20 )); then echo "SKIP $label (no time)" | tee -a "$LOG"; return; fi
  (( limit > left )) && limit=$left
  local t=$SECONDS rc=0
  echo "==== $label: $*" >>"$LOG"
  timeout "$limit" "$@" >>"$LOG" 2>&1 || rc=$?
  echo "$([[ $rc == 0 ]] && echo ok || echo "FAILED rc=$rc") $label $((SECONDS - t)) s" | tee -a "$LOG"
}
