"""warploom.bench: the `warploom bench` harness (docs/harness.md) from Python.

    results = warploom.bench("gemm", shapes=[(8192, 8192, 1024)], providers=["warploom", "cublas"],
                             epilogue="bias_gelu", reps=20)
    for shape in results["shapes"]:
        for r in shape["results"]:
            print(shape["shape"], r["provider"], r["tflop_per_s"])
        # each of ours over the best peer (cuBLAS, cuBLASLt, CUTLASS: gemm and grouped families)
        print(shape["vs_best_peer"]["median_ms"]["ratios"])

It runs the harness's own program, warploom-bench (the C++ KernelPlans, cuBLAS and CUTLASS
contenders side by side in one process, checked against the reference first), and returns its JSON
report as a dict: the same numbers `warploom bench --json` writes, with the device, clocks, date and
command. The program is looked for as `executable`, then $WARPLOOM_BENCH, then beside the package
in a build tree (build/<preset>/bin), then on PATH (an installed warploom).
"""

import json
import os
import shutil
import subprocess
import tempfile

# warploom-bench's exit codes (tools/warploom/exit_codes.hpp).
_FAILED, _USAGE, _NO_GPU = 1, 2, 77


def _program(executable):
    if executable is not None:
        return os.fspath(executable)
    named = os.environ.get("WARPLOOM_BENCH")
    if named:
        return named
    package = os.path.dirname(os.path.abspath(__file__))
    in_build_tree = os.path.join(package, "..", "..", "bin", "warploom-bench")
    if os.access(in_build_tree, os.X_OK):
        return os.path.normpath(in_build_tree)
    on_path = shutil.which("warploom-bench")
    if on_path:
        return on_path
    raise RuntimeError(
        "warploom.bench: no warploom-bench program: install warploom's C++ package (it puts "
        "warploom-bench on PATH), run from a build tree, or set WARPLOOM_BENCH to its path"
    )


def _shape_text(shape):
    if isinstance(shape, str):
        return shape
    return "x".join(str(int(extent)) for extent in shape)


def bench(family, shapes, providers=None, *, reps=None, regime=None, sustain_s=None, check=True,
          autotune=False, prof=None, executable=None, timeout=None, **parameters):
    """Times `family`'s providers on `shapes` and returns the report (a dict).

    family: "gemm" or "copy" (`warploom list` shows each one's providers and parameters).
    shapes: extents per shape, as tuples (gemm: (M, N, K); copy: (bytes,)) or "MxNxK" strings.
    providers: names, or None for the family's defaults. parameters: the family's own, by name
    (gemm: dtype="bf16", layout="tn", epilogue="bias_gelu"). reps, regime ("burst" or
    "sustained"), sustain_s, check, autotune, prof ("none", "nvtx", "ncu"): as the command's
    options. A failed check still returns the report (its "all_correct" is False); a refused
    argument raises ValueError with the harness's message, a machine without a suitable GPU
    RuntimeError.
    """
    if isinstance(shapes, (str, tuple)):
        shapes = [shapes]
    argv = [_program(executable), str(family), "--shapes", ",".join(map(_shape_text, shapes))]
    if providers is not None:
        argv += ["--providers", providers if isinstance(providers, str) else ",".join(providers)]
    for option, value in (("--reps", reps), ("--regime", regime), ("--sustain-s", sustain_s),
                          ("--prof", prof)):
        if value is not None:
            argv += [option, str(value)]
    if not check:
        argv.append("--no-check")
    if autotune:
        argv.append("--autotune")
    for name, value in parameters.items():
        argv += ["--" + name.replace("_", "-"), str(value)]
    with tempfile.TemporaryDirectory(prefix="warploom-bench-") as folder:
        report = os.path.join(folder, "report.json")
        done = subprocess.run(argv + ["--json", report], capture_output=True, text=True,
                              timeout=timeout)
        if done.returncode == _USAGE:
            raise ValueError(f"warploom.bench: {done.stderr.strip()}")
        if done.returncode == _NO_GPU:
            raise RuntimeError(f"warploom.bench: {done.stderr.strip() or 'no suitable GPU'}")
        if done.returncode not in (0, _FAILED) or not os.path.exists(report):
            raise RuntimeError(f"warploom.bench: {argv[0]} exited with {done.returncode}:\n"
                               f"{done.stderr.strip()}")
        with open(report) as f:
            return json.load(f)
