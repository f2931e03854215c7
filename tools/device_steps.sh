# tools/device_steps.sh — sourced by the device scripts of bench/results/*/ (run from the repository
# root on the GPU machine, $OUT set): the environment they share and a step runner whose steps each
# run under a time limit, within the call's DEADLINE (seconds, default 570: a device call's 600
# less margin), their output appended to $OUT/$LOGNAME_.txt and a one-line verdict printed, so that
# a call cut short still brings back what ran.
#
#   LOGNAME_=a; source tools/device_steps.sh
#   step precompile 150 "$B/warploom" precompile -j 16 ...
set -u
mkdir -p /work && ln -sfn "$PWD" /work/main  # the build tree's absolute paths (the JIT's headers)
export BUILD=build/release
export WARPLOOM_CACHE_DIR=$PWD/build/release-jit-cache
B=$BUILD/bin T=$BUILD/tests/gpu
LOG=$OUT/${LOGNAME_:-log}.txt
T0=$SECONDS
DEADLINE=${DEADLINE:-570}
step() {  # step <label> <limit> <cmd...>
  local label=$1 limit=$2
  shift 2
  local left=$((DEADLINE - (SECONDS - T0)))
  if ((left < 20)); then
    echo "SKIP $label (no time)" | tee -a "$LOG"
    return
  fi
  ((limit > left)) && limit=$left
  local t=$SECONDS rc=0
  echo "==== $label: $*" >>"$LOG"
  timeout "$limit" "$@" >>"$LOG" 2>&1 || rc=$?
  echo "$([[ $rc == 0 ]] && echo ok || echo "FAILED rc=$rc") $label $((SECONDS - t)) s" | tee -a "$LOG"
}
# The binaries of build/release.tar.xz (tools/gpu_prebuilt_check.sh --pack), and their commit for
# the results' "commit" (the device's copy of the tree has no .git).
[[ -d $BUILD/bin ]] || tar -xJf build/release.tar.xz
export WARPLOOM_COMMIT=$(cat "$BUILD/commit.txt" 2>/dev/null || echo unknown)
