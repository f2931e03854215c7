"""warploom.bench: the arguments it hands the harness's program and what it makes of its exits,
against a stand-in program (a script that records its arguments and writes a report); the GPU
run is test_bench_gpu below, where warploom-bench and a GPU exist."""

import json
import stat
import sys

import pytest

import warploom

_STAND_IN = """#!{python}
import json, os, sys
argv = sys.argv[1:]
with open(os.environ["BENCH_ARGV"], "w") as f:
    json.dump(argv, f)
code = int(os.environ.get("BENCH_EXIT", "0"))
if code in (0, 1):
    with open(argv[argv.index("--json") + 1], "w") as f:
        json.dump({{"family": argv[0], "all_correct": code == 0, "shapes": []}}, f)
else:
    print("warploom bench: --dtype = int7 is not one of bf16, fp16, e4m3, e5m2", file=sys.stderr)
sys.exit(code)
"""


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    program = tmp_path / "warploom-bench"
    program.write_text(_STAND_IN.format(python=sys.executable))
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("WARPLOOM_BENCH", str(program))
    monkeypatch.setenv("BENCH_ARGV", str(tmp_path / "argv.json"))

    def argv():
        with open(tmp_path / "argv.json") as f:
            return json.load(f)

    return argv


def test_arguments_are_the_commands_options(stand_in):
    report = warploom.bench("gemm", shapes=[(8192, 8192, 1024), "4096x4096x4096"],
                            providers=["warploom", "cublaslt"], reps=7, regime="sustained",
                            check=False, epilogue="bias_gelu", dtype="bf16")
    assert report == {"family": "gemm", "all_correct": True, "shapes": []}
    argv = stand_in()
    assert argv[:5] == ["gemm", "--shapes", "8192x8192x1024,4096x4096x4096", "--providers",
                        "warploom,cublaslt"]
    for option, value in (("--reps", "7"), ("--regime", "sustained"), ("--epilogue", "bias_gelu"),
                          ("--dtype", "bf16")):
        assert argv[argv.index(option) + 1] == value
    assert "--no-check" in argv and "--autotune" not in argv
    assert argv[-2] == "--json"


def test_one_shape_needs_no_list(stand_in):
    warploom.bench("copy", shapes=(1 << 30,))
    assert stand_in()[:3] == ["copy", "--shapes", "1073741824"]


def test_a_failed_check_still_returns_the_report(stand_in, monkeypatch):
    monkeypatch.setenv("BENCH_EXIT", "1")
    assert warploom.bench("gemm", shapes=[(64, 64, 64)])["all_correct"] is False


@pytest.mark.parametrize("code, error", [(2, ValueError), (77, RuntimeError), (3, RuntimeError)])
def test_refusals_carry_the_harness_message(stand_in, monkeypatch, code, error):
    monkeypatch.setenv("BENCH_EXIT", str(code))
    with pytest.raises(error, match="warploom.bench: .*(int7|exited with 3)"):
        warploom.bench("gemm", shapes=[(64, 64, 64)], dtype="int7")


def test_without_the_program_it_says_where_to_get_it(monkeypatch, tmp_path):
    monkeypatch.delenv("WARPLOOM_BENCH", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    # As if the package lay outside a build tree (this one may lie in one).
    monkeypatch.setattr(warploom._bench, "__file__", str(tmp_path / "a" / "b" / "_bench.py"))
    with pytest.raises(RuntimeError, match="WARPLOOM_BENCH"):
        warploom.bench("gemm", shapes=[(64, 64, 64)])


@pytest.mark.gpu
def test_bench_gpu(cuda):
    # tools/python_gpu_check.sh names the build's program in WARPLOOM_BENCH.
    try:
        warploom._bench._program(None)
    except RuntimeError as e:
        pytest.skip(str(e))
    report = warploom.bench("gemm", shapes=[(1024, 1024, 1024)], providers=["warploom", "cublas"],
                            reps=3)
    assert report["all_correct"]
    providers = {r["provider"] for r in report["shapes"][0]["results"]}
    assert providers == {"warploom", "cublas"}
