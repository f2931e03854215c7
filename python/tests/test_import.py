"""Importing warploom has no side effects beyond loading it (the seed's package opened a sqlite
file in the working directory and set a global temp dir at import, reference A1): no CUDA call, no
file written, no torch or NumPy imported. Checked in a fresh interpreter, with every cache and
home directory pointed at empty folders."""

import json
import os
import subprocess
import sys
import textwrap

import warploom

_PROBE = textwrap.dedent(
    """
    import json, sys
    import warploom
    import warploom.op, warploom.epilogue
    with open("/proc/self/maps") as f:
        maps = f.read()
    facts = {
        "modules": sorted(m for m in ("torch", "numpy", "cupy") if m in sys.modules),
        # The CUDA runtime loads the driver (libcuda) on its first call: a driver in the
        # process means a CUDA call was made.
        "driver_loaded": "libcuda.so" in maps,
        "core_loaded": "_core" in maps and "libwarploom_gemm" in maps,
        "context_active": None,
    }
    # Where a driver and a GPU exist, ask the driver itself (cuInit creates no context)
    # whether device 0's primary context, the one the runtime uses, was created. Only when asked:
    # cuInit writes the driver's own cache folder (~/.nv), which is no write of warploom's.
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1") if "--ask-driver" in sys.argv else None
    except OSError:
        cuda = None
    device, flags, active = ctypes.c_int(), ctypes.c_uint(), ctypes.c_int()
    if (cuda is not None and cuda.cuInit(0) == 0
            and cuda.cuDeviceGet(ctypes.byref(device), 0) == 0
            and cuda.cuDevicePrimaryCtxGetState(device, ctypes.byref(flags),
                                                ctypes.byref(active)) == 0):
        facts["context_active"] = bool(active.value)
    print(json.dumps(facts))
    """
)


def _run_probe(tmp_path, ask_driver):
    folders = {name: tmp_path / name for name in ("home", "cache", "xdg", "cwd", "tmp")}
    for folder in folders.values():
        folder.mkdir()
    env = dict(os.environ)
    env.update(
        HOME=str(folders["home"]),
        WARPLOOM_CACHE_DIR=str(folders["cache"]),
        XDG_CACHE_HOME=str(folders["xdg"]),
        TMPDIR=str(folders["tmp"]),
        PYTHONDONTWRITEBYTECODE="1",
    )
    # The package as this test imported it: the build tree's or an installed one.
    package_parent = os.path.dirname(os.path.dirname(warploom.__file__))
    env["PYTHONPATH"] = os.pathsep.join([package_parent, env.get("PYTHONPATH", "")])
    command = [sys.executable, "-c", _PROBE] + (["--ask-driver"] if ask_driver else [])
    done = subprocess.run(command, cwd=folders["cwd"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    written = {name: sorted(os.listdir(folder)) for name, folder in folders.items()}
    return json.loads(done.stdout.strip().splitlines()[-1]), written


def test_import_starts_no_cuda_and_imports_no_framework(tmp_path):
    facts, _ = _run_probe(tmp_path, ask_driver=True)
    assert facts["core_loaded"], "the probe did not load warploom._core and libwarploom_gemm"
    assert facts["modules"] == [], f"importing warploom imported {facts['modules']}"
    assert not facts["driver_loaded"], "importing warploom loaded the CUDA driver"
    # None where there is no driver or no GPU (CI): the check above is the one that applies.
    assert facts["context_active"] in (None, False), "importing warploom created a CUDA context"


def test_import_writes_no_file(tmp_path):
    _, written = _run_probe(tmp_path, ask_driver=False)
    assert written == {name: [] for name in written}, f"files written at import: {written}"
