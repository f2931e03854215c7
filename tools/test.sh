#!/usr/bin/env bash
# Builds everything and runs the tests: bootstrap, configure (release preset), build all
# targets, ctest. Extra arguments go to ctest, e.g. `tools/test.sh -L cpu`.
# GPU tests report "skipped" on a machine without an sm_90 device.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
start=$SECONDS
report() {
  local rc=$?
  echo "test.sh: $([[ $rc -eq 0 ]] && echo passed || echo "FAILED (exit $rc)")" \
    "in $((SECONDS - start)) s"
}
trap report EXIT

bash tools/bootstrap.sh
cmake --preset release
cmake --build --preset release --parallel "$(nproc)"
ctest --preset release "$@"
