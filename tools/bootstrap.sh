#!/usr/bin/env bash
# Installs warploom's third-party build dependencies into the ignored folder .deps/
# (or $WARPLOOM_DEPS_DIR). Idempotent: each step writes a stamp holding the exact version
# it installed and is skipped while that stamp and the step's output are present, so a
# second run takes well under a second and a machine without network works as long as
# .deps/ was copied over from one that had it.
#
#   .deps/cutlass/include, .deps/cutlass/tools/util/include  CUTLASS/CuTe headers (PyPI wheel)
#   .deps/bin/{cuobjdump,nvdisasm}                           SASS disassembler (PyPI wheels)
#   .deps/googletest                                         GoogleTest sources (Debian)
#   .deps/sysroot/usr/include/{CLI,nlohmann,fmt,xxhash.h,dlpack} header-only host libs (Debian)
#   .deps/python/wheels, .deps/python/site                   nanobind, scikit-build-core, pytest
#                                                            (PyPI; pure-Python wheels)
#
# ccache is the one system-wide install: when missing, and we are root with apt-get, it is
# installed with apt-get; without it the build simply runs uncached.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEPS=${WARPLOOM_DEPS_DIR:-$ROOT/.deps}
STAMPS=$DEPS/.stamps

CUTLASS_WHEEL=nvidia-cutlass==4.2.0.0
# No 13.0.x build of these wheels exists on PyPI; 13.2.51 is the oldest one, and it
# disassembles nvcc 13.0 sm_90a objects. cuobjdump --dump-sass runs nvdisasm, which it
# finds beside itself.
CUOBJDUMP_WHEELS=(nvidia-cuda-cuobjdump==13.2.51 nvidia-cuda-nvdisasm==13.2.51)
SYSROOT_PACKAGES=(libcli11-dev nlohmann-json3-dev libfmt-dev libxxhash-dev libdlpack-dev)
# The Python package's build (nanobind, scikit-build-core) and test (pytest) tools, every
# dependency pinned: all pure-Python wheels, so one folder serves CI's Python 3.11 and the GPU
# machine's 3.12, which has no network. The wheels themselves are kept too, for an offline
# `pip install --no-index --find-links .deps/python/wheels .` (README).
PYTHON_WHEELS=(nanobind==3.1.0 scikit-build-core==1.1.2 packaging==26.4 pathspec==1.1.1
  pytest==9.2.0 pluggy==1.7.0 iniconfig==2.3.1 pygments==2.21.0)

note() { echo "bootstrap: $*"; }

is_root() { [[ $(id -u) -eq 0 ]]; }
have() { command -v "$1" >/dev/null 2>&1; }

all_exist() {
  local path
  for path in "$@"; do [[ -e $path ]] || return 1; done
}

# step NAME KEY FUNCTION OUTPUT...: runs FUNCTION (in a subshell, with a fresh scratch
# folder as $1) unless every OUTPUT exists and the stamp of NAME holds KEY. FUNCTION must
# produce every OUTPUT.
step() {
  local name=$1 key=$2 fn=$3
  shift 3
  local stamp=$STAMPS/$name
  if all_exist "$@" && [[ -f $stamp && $(<"$stamp") == "$key" ]]; then
    note "$name: up to date ($key)"
    return 0
  fi
  local scratch
  scratch=$(mktemp -d "$DEPS/.tmp.$name.XXXXXX")
  local log=$scratch.log rc
  # Not `if (fn)`: errexit is ignored inside a condition, and FUNCTION relies on it.
  set +e
  (
    set -e
    "$fn" "$scratch"
  ) >"$log" 2>&1
  rc=$?
  set -e
  if [[ $rc -eq 0 ]] && all_exist "$@"; then
    echo "$key" >"$stamp"
    note "$name: installed ($key)"
    rm -rf "$scratch" "$log"
    return 0
  fi
  if all_exist "$@"; then
    note "$name: could not install $key; keeping the existing copy (log: $log)"
    rm -rf "$scratch"
    return 0
  fi
  cat "$log" >&2
  note "$name: FAILED to install $key (log above, kept in $log)" >&2
  rm -rf "$scratch"
  return 1
}

# extract_wheel WHEEL PREFIX DEST: unpacks the members of WHEEL under PREFIX into DEST,
# with PREFIX stripped, keeping the executable bit.
extract_wheel() {
  python3 - "$@" <<'EOF'
import os, sys, zipfile
wheel, prefix, dest = sys.argv[1:]
found = 0
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        if not info.filename.startswith(prefix) or info.is_dir():
            continue
        target = os.path.join(dest, info.filename[len(prefix):].lstrip("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with z.open(info) as src, open(target, "wb") as out:
            out.write(src.read())
        mode = (info.external_attr >> 16) & 0o777
        if mode:
            os.chmod(target, mode)
        found += 1
if not found:
    sys.exit(f"{wheel}: nothing under {prefix}")
EOF
}

pip_download() {  # pip_download DIR REQUIREMENT
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --dest "$1" "$2"
}

# apt_get ARGS...: apt-get ARGS..., bounded in time so that a machine without network does
# not hold the build up; on failure, when root, refreshes the package lists once and retries.
apt_get() {
  local run=(timeout 120 apt-get -qq -o Acquire::Retries=1 -o Acquire::http::Timeout=20)
  "${run[@]}" "$@" && return 0
  is_root || return 1
  "${run[@]}" update && "${run[@]}" "$@"
}

# apt_get_download DIR PACKAGE...: fetches .deb files into DIR.
apt_get_download() {
  local dir=$1
  shift
  chmod 777 "$dir"  # lets apt's sandbox user write there when we are root
  (cd "$dir" && apt_get download "$@")
}

# Moves a freshly built folder into place, replacing the old one.
install_dir() {  # install_dir SRC DEST
  rm -rf "$2"
  mkdir -p "$(dirname "$2")"
  mv "$1" "$2"
}

install_cutlass() {
  local tmp=$1
  pip_download "$tmp" "$CUTLASS_WHEEL"
  local wheel=("$tmp"/nvidia_cutlass-*.whl)
  extract_wheel "${wheel[0]}" cutlass_library/source/include/ "$tmp/cutlass/include"
  extract_wheel "${wheel[0]}" cutlass_library/source/tools/util/include/ \
    "$tmp/cutlass/tools/util/include"
  install_dir "$tmp/cutlass" "$DEPS/cutlass"
}

install_cuobjdump() {
  local tmp=$1 requirement wheel
  for requirement in "${CUOBJDUMP_WHEELS[@]}"; do
    pip_download "$tmp" "$requirement"
  done
  for wheel in "$tmp"/*.whl; do
    extract_wheel "$wheel" nvidia/cu13/bin/ "$tmp/bin"
  done
  "$tmp/bin/cuobjdump" --version
  mkdir -p "$DEPS/bin"
  chmod 755 "$tmp/bin/cuobjdump" "$tmp/bin/nvdisasm"
  mv -f "$tmp/bin/cuobjdump" "$tmp/bin/nvdisasm" "$DEPS/bin/"
}

install_googletest() {
  local tmp=$1 src=/usr/src/googletest
  if [[ ! -f $src/CMakeLists.txt ]]; then
    if is_root && have apt-get; then
      apt_get install -y googletest
    else
      # Not root: unpack the package instead of installing it.
      apt_get_download "$tmp" googletest
      dpkg -x "$tmp"/googletest_*.deb "$tmp/root"
      src=$tmp/root/usr/src/googletest
    fi
  fi
  cp -a "$src" "$tmp/googletest"
  install_dir "$tmp/googletest" "$DEPS/googletest"
}

install_sysroot() {
  local tmp=$1
  apt_get_download "$tmp" "${SYSROOT_PACKAGES[@]}"
  local deb
  for deb in "$tmp"/*.deb; do
    dpkg -x "$deb" "$tmp/sysroot"
  done
  install_dir "$tmp/sysroot" "$DEPS/sysroot"
}

install_python() {
  local tmp=$1 requirement
  for requirement in "${PYTHON_WHEELS[@]}"; do
    pip_download "$tmp/wheels" "$requirement"
  done
  python3 -m pip install --quiet --disable-pip-version-check --no-index --no-deps \
    --no-compile --target "$tmp/site" "$tmp"/wheels/*.whl
  # The console scripts pip writes name this machine's interpreter; `python3 -m pytest` is used.
  rm -rf "$tmp/site/bin"
  mkdir -p "$tmp/python"
  mv "$tmp/wheels" "$tmp/site" "$tmp/python/"
  install_dir "$tmp/python" "$DEPS/python"
}

main() {
  mkdir -p "$DEPS" "$STAMPS"
  local inc=$DEPS/sysroot/usr/include
  step cutlass "$CUTLASS_WHEEL" install_cutlass \
    "$DEPS/cutlass/include/cute/tensor.hpp" "$DEPS/cutlass/tools/util/include/cutlass/util"
  step cuobjdump "${CUOBJDUMP_WHEELS[*]}" install_cuobjdump \
    "$DEPS/bin/cuobjdump" "$DEPS/bin/nvdisasm"
  step googletest googletest-sources install_googletest "$DEPS/googletest/CMakeLists.txt"
  step sysroot "${SYSROOT_PACKAGES[*]}" install_sysroot \
    "$inc/CLI/CLI.hpp" "$inc/nlohmann/json.hpp" "$inc/fmt/format.h" "$inc/xxhash.h" "$inc/dlpack/dlpack.h"
  step python "${PYTHON_WHEELS[*]}" install_python \
    "$DEPS/python/site/nanobind/cmake" "$DEPS/python/site/scikit_build_core" \
    "$DEPS/python/site/pytest"

  if have ccache; then
    note "ccache: found ($(command -v ccache))"
  elif is_root && have apt-get && apt_get install -y ccache >/dev/null 2>&1; then
    note "ccache: installed ($(command -v ccache))"
  else
    note "ccache: not available; building without a compiler cache"
  fi
}

main "$@"
