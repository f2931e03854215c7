"""The seed's notebooks as scripts (examples/python/): on the CPU each one compiles; on the H200
each runs to its end (every comparison with NumPy or torch is an assert)."""

import os
import py_compile
import subprocess
import sys

import pytest

import warploom

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python")
SCRIPTS = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".py"))


def test_the_notebooks_are_there():
    assert {"00_basic_gemm.py", "01_epilogue.py",
            "02_pytorch_extension_grouped_gemm.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_example_compiles(tmp_path, script):
    py_compile.compile(os.path.join(EXAMPLES, script), cfile=str(tmp_path / "out.pyc"),
                       doraise=True)


@pytest.mark.gpu
@pytest.mark.parametrize("script", SCRIPTS)
def test_example_runs(cuda, script):
    package_parent = os.path.dirname(os.path.dirname(warploom.__file__))
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join([package_parent, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, script)], env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
