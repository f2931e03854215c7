#!/usr/bin/env bash
# The Python package's tests on the GPU machine (the H200: Python 3.12, torch, nanobind,
# scikit-build-core and pytest installed, no network), in about a minute: the package is built
# with pip against the warploom already built there in build/release (installed into a prefix
# first), so only the binding's three sources compile — never the CUDA GEMM library
# (cmake/WarploomPythonPrebuilt.cmake). Then every pytest test runs, GPU ones included.
#
#   bash tools/python_gpu_check.sh            # logs and the JUnit report in $OUT (default: ./out)
#
# Needs $BUILD (default build/release: a release build of this tree, e.g. by tools/test.sh on that
# machine, or one made elsewhere: tools/gpu_prebuilt_check.sh) and .deps/ (tools/bootstrap.sh:
# dlpack.h and fmt for the binding). A prefix $BUILD/python-prefix installed already is used as is.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=$(realpath -m "${OUT:-out}")
mkdir -p "$out"
python=${PYTHON:-python3}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD/..}

BUILD=${BUILD:-build/release}
prefix=$BUILD/python-prefix
start=$SECONDS
# 1. The library as an installed package (a copy: seconds).
if [[ ! -f $prefix/lib/cmake/warploom/warploomConfig.cmake ]]; then
  if [[ ! -f $BUILD/CMakeCache.txt ]]; then
    echo "python_gpu_check: no $BUILD here: build the library first (tools/test.sh)" >&2
    exit 2
  fi
  cmake --install "$BUILD" --prefix "$prefix" >"$out/install.log" 2>&1
  echo "installed $BUILD into $prefix: $((SECONDS - start)) s"
fi

# 2. The wheel against it, into a folder of its own (the interpreter's site-packages untouched).
#    --no-build-isolation: scikit-build-core and nanobind come from the interpreter (no network).
target=build/python-site
rm -rf "$target"
"$python" -m pip install --no-build-isolation --no-index --no-deps --disable-pip-version-check \
  --target "$target" \
  -C cmake.define.WARPLOOM_PREBUILT="$PWD/$prefix" \
  -C build-dir=build/python-prebuilt \
  -C cmake.build-type=Release \
  . >"$out/pip.log" 2>&1 || { tail -40 "$out/pip.log"; exit 1; }
echo "built and installed the package: $((SECONDS - start)) s"

# 3. Every test, against the installed package (not the sources' python/warploom), run from the
#    installed folder so that `import warploom` cannot find the sources' package. tee-sys: what the
#    C++ side writes to stderr reaches the log even when the process dies; with pytest-xdist (where
#    installed) a test that kills its worker is reported and the rest still run. PYTEST_ARGS
#    replaces the test selection (e.g. one test, to read why it died); PYTEST_UNDER_GDB=1 runs it
#    under gdb, whose native backtrace says where a process that aborts died.
tests=$PWD/python/tests
# warploom.bench runs the harness's program: the build's (test_bench.py).
export WARPLOOM_BENCH=${WARPLOOM_BENCH:-$PWD/$BUILD/bin/warploom-bench}
cd "$target"
parallel=()
if "$python" -c "import xdist" 2>/dev/null && [[ -z ${PYTEST_ARGS:-} ]]; then parallel=(-n "${PYTEST_WORKERS:-4}"); fi
debugger=()
if [[ -n ${PYTEST_UNDER_GDB:-} ]]; then
  if command -v gdb >/dev/null; then
    debugger=(gdb -batch -ex run -ex "thread apply all bt" -ex "info sharedlibrary" --args)
  else  # no gdb: the native stack from a preloaded signal handler, and Python's stacks
    echo "python_gpu_check: no gdb here; tools/abort_backtrace.c and faulthandler instead"
    if "${CC:-cc}" -shared -fPIC -O1 -o "$out/abort_backtrace.so" "$tests/../../tools/abort_backtrace.c"; then
      export LD_PRELOAD="$out/abort_backtrace.so${LD_PRELOAD:+:$LD_PRELOAD}"
    fi
    export PYTHONFAULTHANDLER=1
  fi
fi
set +e
# shellcheck disable=SC2086  # PYTEST_ARGS is words
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "${debugger[@]}" "$python" -m pytest \
  -p no:cacheprovider -rs -v --capture=tee-sys "${parallel[@]}" --junitxml="$out/pytest.xml" \
  ${PYTEST_ARGS:-"$tests"} 2>&1 | tee "$out/pytest.log"
rc=${PIPESTATUS[0]}
set -e
echo "python_gpu_check: pytest exit $rc in $((SECONDS - start)) s" | tee -a "$out/pytest.log"
exit "$rc"
