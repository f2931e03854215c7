"""warploom.op.Gemm on the GPU (marker gpu: the H200; skipped without torch or an sm_90 device),
against torch: every element type and layout, transposed, sliced and batched views (or the named
error where a view cannot be read), alpha and beta, streams (torch's current one, an explicit one,
sync=False), NumPy and torch CPU tensors copied in and out as the seed's notebooks do, every
tile description, print_module (the epilogue: test_epilogue_gpu.py).

Where the element type or layout is not the point, the tests use bf16 with A row-major and B
column-major ("tn"), which every build prebuilds: with WARPLOOM_JIT=0 a test that would compile a
kernel is skipped (conftest.py), so a minimal build runs most of them without nvcc.

Data are small integers, so that fp32 accumulation is exact and each result equals the float64
reference rounded to D's type (fp8 wgmma's reduced-precision accumulation included: the sums stay
below 2^11)."""

import os
import time

import pytest

import warploom
from warploom import LayoutType, OpcodeClass

pytestmark = pytest.mark.gpu

Row, Col = LayoutType.RowMajor, LayoutType.ColumnMajor
M, N, K = 200, 136, 256  # partial tiles in M and N; every leading dimension a multiple of 16 B


def ints(torch, shape, dtype, layout=Row, lo=-2, hi=3):
    """Small integers of `dtype` on the GPU, in `layout` (a column-major matrix is the transpose
    of a contiguous one: torch's own column-major view)."""
    if layout == Col:
        return ints(torch, shape[:-2] + (shape[-1], shape[-2]), dtype, Row, lo, hi).transpose(-1, -2)
    # Drawn as fp32: torch converts integers to fp8 through it anyway.
    return torch.randint(lo, hi, shape, device="cuda", dtype=torch.float32).to(dtype)


def tn(torch, m=M, n=N, k=K, out=None):
    """bf16 A (m x k, row-major), B (k x n, column-major) and a zero D (m x n, row-major)."""
    return (ints(torch, (m, k), torch.bfloat16), ints(torch, (k, n), torch.bfloat16, Col),
            torch.zeros(m, n, dtype=out or torch.bfloat16, device="cuda"))


def reference(torch, A, B, C=None, alpha=1.0, beta=0.0):
    z = alpha * (A.to(torch.float64) @ B.to(torch.float64))
    if C is not None:
        z = z + beta * C.to(torch.float64)
    return z


def assert_exact(torch, D, expected):
    expected = expected.to(D.dtype)
    bad = (D.to(torch.float64) != expected.to(torch.float64)).sum().item()
    assert bad == 0, f"{bad} of {D.numel()} elements differ; first rows:\n{D[:2, :8]}\n{expected[:2, :8]}"


# ---- Element types and layouts ------------------------------------------------------------------

# (input, output, A layout, B layout, the operator class Auto takes)
TYPE_CASES = [
    ("float16", "float16", Row, Row, OpcodeClass.TensorOp),
    ("float16", "float32", Row, Col, OpcodeClass.TensorOp),
    ("bfloat16", "bfloat16", Row, Col, OpcodeClass.TensorOp),
    ("bfloat16", "float32", Col, Row, OpcodeClass.TensorOp),
    ("float8_e4m3fn", "bfloat16", Row, Col, OpcodeClass.TensorOp),
    ("float8_e4m3fn", "float16", Row, Col, OpcodeClass.TensorOp),
    ("float8_e4m3fn", "float32", Row, Col, OpcodeClass.TensorOp),
    ("float8_e5m2", "bfloat16", Row, Col, OpcodeClass.TensorOp),
    ("float8_e4m3fn", "bfloat16", Col, Row, OpcodeClass.Simt),  # wgmma reads fp8 K-major only
    ("float32", "float32", Row, Row, OpcodeClass.Simt),
    ("float64", "float64", Row, Col, OpcodeClass.Simt),
]


@pytest.mark.parametrize("case", TYPE_CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2].name}-{c[3].name}")
def test_every_element_type(cuda, case):
    torch = cuda
    element, out, layout_a, layout_b, opclass = case
    element, out = getattr(torch, element), getattr(torch, out)
    A = ints(torch, (M, K), element, layout_a)
    B = ints(torch, (K, N), element, layout_b)
    D = torch.zeros(M, N, dtype=out, device="cuda")
    plan = warploom.op.Gemm(A=A, B=B, D=D, element_accumulator=torch.float32
                            if element != torch.float64 else torch.float64)
    assert plan.opclass == opclass
    plan.run(A, B, None, D)
    assert_exact(torch, D, reference(torch, A, B))


@pytest.mark.parametrize("layout_a", [Row, Col], ids=lambda l: f"A{l.name}")
@pytest.mark.parametrize("layout_b", [Row, Col], ids=lambda l: f"B{l.name}")
@pytest.mark.parametrize("layout_d", [Row, Col], ids=lambda l: f"D{l.name}")
@pytest.mark.parametrize("opclass", [OpcodeClass.TensorOp, OpcodeClass.Simt], ids=lambda o: o.name)
def test_every_layout_from_the_tensors_strides(cuda, layout_a, layout_b, layout_d, opclass):
    torch = cuda
    A = ints(torch, (M, K), torch.float16, layout_a)
    B = ints(torch, (K, N), torch.float16, layout_b)
    C = ints(torch, (M, N), torch.float16, layout_d)
    D = ints(torch, (M, N), torch.float16, layout_d)
    plan = warploom.op.Gemm(A=A, B=B, C=C, D=D, opclass=opclass)
    assert (plan.layout_A, plan.layout_B, plan.layout_D) == (layout_a, layout_b, layout_d)
    plan.run(A, B, C, D, alpha=1.0, beta=1.0)
    assert_exact(torch, D, reference(torch, A, B, C, 1.0, 1.0))


def test_alpha_and_beta(cuda):
    torch = cuda
    A, B, D = tn(torch)
    C = ints(torch, (M, N), torch.bfloat16)
    plan = warploom.op.Gemm(element=torch.bfloat16, layout=Row, layout_B=Col, alpha=2.0, beta=0.5)
    plan.run(A, B, C, D)  # the plan's alpha and beta
    assert_exact(torch, D, reference(torch, A, B, C, 2.0, 0.5))
    plan.run(A, B, C, D, alpha=-1.0, beta=0.0)
    assert_exact(torch, D, reference(torch, A, B, C, -1.0, 0.0))


@pytest.mark.parametrize("layout_d", [Row, Col], ids=lambda l: f"D{l.name}")
def test_a_decode_step_splits_on_the_transpose(cuda, layout_d):
    """Few rows of D (a decode step's tokens against a weight; with a column-major D, few
    columns): Auto splits K on D^T = B^T . A^T and the reduction writes the transpose
    (src/gemm/split_k.hpp). Integer operands: every partial sum exact, the result too."""
    torch = cuda
    m, n = (16, 4096) if layout_d == Row else (4096, 16)
    A = ints(torch, (m, 8192), torch.bfloat16)
    B = ints(torch, (8192, n), torch.bfloat16, Col)
    C = ints(torch, (m, n), torch.bfloat16, layout_d)
    D = ints(torch, (m, n), torch.bfloat16, layout_d).fill_(7)  # poisoned, in layout_d
    plan = warploom.op.Gemm(A=A, B=B, C=C, D=D)
    plan.run(A, B, C, D, alpha=1.0, beta=0.5)
    assert_exact(torch, D, reference(torch, A, B, C, 1.0, 0.5))


# ---- Views ---------------------------------------------------------------------------------------


def test_sliced_views_with_a_leading_dimension_and_an_offset(cuda):
    torch = cuda
    big_a = ints(torch, (M + 8, K + 64), torch.bfloat16)
    big_b = ints(torch, (K, N + 24), torch.bfloat16, Col)
    big_d = torch.full((M + 16, N + 40), 7.0, dtype=torch.bfloat16, device="cuda")
    A = big_a[8:, 16:16 + K]  # offset 8 rows, 16 columns (32 bytes: TMA-aligned)
    B = big_b[:, 8:8 + N]  # column-major: 8 columns in, leading dimension K
    D = big_d[16:, 8:8 + N]
    plan = warploom.op.Gemm(element=torch.bfloat16, layout=Row, layout_B=Col)
    assert plan.opclass == OpcodeClass.TensorOp
    plan.run(A, B, None, D)
    assert_exact(torch, D, reference(torch, A, B))
    assert (big_d[:16] == 7).all() and (big_d[:, :8] == 7).all() and (big_d[:, 8 + N:] == 7).all()


def test_views_the_tensor_cores_cannot_read_are_refused_naming_simt_which_runs_them(cuda):
    torch = cuda
    big_a = ints(torch, (M, K + 1), torch.float16)
    A = big_a[:, 1:]  # starts 2 bytes into a row: TMA needs 16-byte aligned starts and strides
    B, D = ints(torch, (K, N), torch.float16), torch.zeros(M, N, dtype=torch.float16, device="cuda")
    tensor_op = warploom.op.Gemm(element=torch.float16, layout=Row, opclass=OpcodeClass.TensorOp)
    with pytest.raises(ValueError, match="OperatorClass::Simt runs them"):
        tensor_op.run(A, B, None, D)
    simt = warploom.op.Gemm(element=torch.float16, layout=Row, opclass=OpcodeClass.Simt)
    simt.run(A, B, None, D)
    assert_exact(torch, D, reference(torch, A, B))


def test_an_auto_plan_runs_views_the_tensor_cores_cannot_read(cuda):
    # gemm()'s Auto: aligned copies for the tensor cores (large problems) or the SIMT GEMM.
    torch = cuda
    for m, n, k in ((M, N, K), (300, 500, 700)):
        big_a = ints(torch, (m, k + 1), torch.float16)
        A = big_a[:, 1:]  # 2 bytes into each row, rows of k + 1 elements
        B, D = ints(torch, (k, n), torch.float16), torch.zeros(m, n, dtype=torch.float16,
                                                               device="cuda")
        warploom.op.Gemm(element=torch.float16, layout=Row).run(A, B, None, D)
        assert_exact(torch, D, reference(torch, A, B))


def test_views_without_a_unit_stride_are_refused_never_read_wrong(cuda):
    torch = cuda
    plan = warploom.op.Gemm(element=torch.float16, layout=Row)
    B, D = ints(torch, (K, N), torch.float16), torch.zeros(M, N, dtype=torch.float16, device="cuda")
    every_other = ints(torch, (M, 2 * K), torch.float16)[:, ::2]
    with pytest.raises(ValueError, match="argument `a` .* is neither row-major .* nor column-major"):
        plan.run(every_other, B, None, D)
    broadcast = ints(torch, (1, K), torch.float16).expand(M, K)  # row stride 0
    with pytest.raises(ValueError, match="argument `a`"):
        plan.run(broadcast, B, None, D)
    transposed = ints(torch, (M, K), torch.float16, Col)  # right strides, other layout
    with pytest.raises(ValueError, match="is column-major; this plan expects row-major"):
        plan.run(transposed, B, None, D)


def test_a_wrong_dtype_is_a_type_error_naming_both(cuda):
    torch = cuda
    plan = warploom.op.Gemm(element=torch.float16, layout=Row)
    A, D = ints(torch, (M, K), torch.float16), torch.zeros(M, N, dtype=torch.float16, device="cuda")
    with pytest.raises(TypeError, match="argument `b` is bf16; this plan expects fp16"):
        plan.run(A, ints(torch, (K, N), torch.bfloat16), None, D)
    with pytest.raises(ValueError, match="argument `b` is 100 x 136: A is 200 x 256"):
        plan.run(A, ints(torch, (100, N), torch.float16), None, D)


@pytest.mark.parametrize("layout_a", [Row, Col], ids=lambda l: f"A{l.name}")
def test_batches(cuda, layout_a):
    torch = cuda
    L = 3
    A = ints(torch, (L, M, K), torch.bfloat16, layout_a)
    B = ints(torch, (L, K, N), torch.bfloat16, Col)
    D = torch.zeros(L, M, N, dtype=torch.bfloat16, device="cuda")
    plan = warploom.op.Gemm(A=A, B=B, D=D)
    plan.run(A, B, None, D)
    for i in range(L):
        assert_exact(torch, D[i], reference(torch, A[i], B[i]))


# ---- Streams ---------------------------------------------------------------------------------------


def _sleep(torch, seconds):
    """Keeps the current stream busy (torch.cuda._sleep spins for a number of GPU cycles)."""
    if not hasattr(torch.cuda, "_sleep"):
        pytest.skip("torch.cuda._sleep is not available")
    torch.cuda._sleep(int(seconds * 2e9))  # about 2 GHz


def test_runs_on_torchs_current_stream(cuda):
    # A is written on stream s behind a long sleep, then the GEMM is run inside the same `with`:
    # unless it runs on s (after the copy), it reads the old A.
    torch = cuda
    source, B, D = tn(torch)
    A = torch.zeros_like(source)
    plan = warploom.op.Gemm(A=A, B=B, D=D)
    plan.run(A, B, None, D)  # the kernel is loaded before the race
    torch.cuda.synchronize()
    s = torch.cuda.Stream()  # non-blocking: the legacy default stream does not wait for it
    with torch.cuda.stream(s):
        _sleep(torch, 0.05)
        A.copy_(source)
        plan.run(A, B, None, D)  # sync=True: waits for s
    assert_exact(torch, D, reference(torch, source, B))


def test_an_explicit_stream_waits_for_the_tensors_producer(cuda):
    # A is written on the current stream; the GEMM runs on another one, given as stream=. DLPack's
    # stream argument makes the producer (torch) order the two: the GEMM must see the new A.
    torch = cuda
    source, B, D = tn(torch)
    A = torch.zeros_like(source)
    plan = warploom.op.Gemm(A=A, B=B, D=D)
    plan.run(A, B, None, D)
    torch.cuda.synchronize()
    other = torch.cuda.Stream()
    _sleep(torch, 0.05)
    A.copy_(source)
    plan.run(A, B, None, D, stream=other)
    assert_exact(torch, D, reference(torch, source, B))


def test_sync_false_returns_at_once_and_sync_waits(cuda):
    torch = cuda
    A, B, D = tn(torch)
    plan = warploom.op.Gemm(A=A, B=B, D=D)
    plan.run(A, B, None, D)
    torch.cuda.synchronize()
    _sleep(torch, 0.2)
    start = time.perf_counter()
    run = plan.run(A, B, None, D, sync=False)
    returned = time.perf_counter() - start
    assert isinstance(run, warploom.GemmRun) and not run.done
    assert returned < 0.1, f"run(sync=False) took {returned:.3f} s behind a 0.2 s sleep"
    run.sync()
    assert run.done
    assert_exact(torch, D, reference(torch, A, B))
    assert plan.run(A, B, None, D) is None  # sync=True: nothing left to wait for


# ---- Host arrays, as the seed's notebooks ------------------------------------------------------------


def test_the_basic_gemm_notebook_on_numpy(cuda):
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(1234)
    m = n = k = 128
    A = np.ceil(rng.uniform(-4, 4, size=(m, k))).astype(np.float16)
    B = np.ceil(rng.uniform(-4, 4, size=(k, n))).astype(np.float16)
    C = np.ceil(rng.uniform(-4, 4, size=(m, n))).astype(np.float16)
    D = np.zeros_like(C)
    plan = warploom.op.Gemm(element=np.float16, layout=LayoutType.RowMajor,
                            element_accumulator=np.float32)
    plan.run(A, B, C, D, np.float16(1.0), np.float16(0.0))
    expected = (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float16)
    np.testing.assert_array_equal(D, expected)
    D_simt = np.zeros_like(C)
    plan.opclass = OpcodeClass.Simt
    plan.run(A, B, C, D_simt, 1.0, 0.0)
    np.testing.assert_array_equal(D, D_simt)


def test_numpy_transposed_sliced_and_read_only_arrays(cuda):
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(7)
    A = rng.integers(-2, 3, size=(K, M)).astype(np.float32).T  # Fortran order: column-major
    B = rng.integers(-2, 3, size=(K, N)).astype(np.float32)
    big = np.full((M, N + 8), 5.0, dtype=np.float32)
    D = big[:, 4:4 + N]
    plan = warploom.op.Gemm(A=A, B=B, D=D)
    assert plan.layout_A == Col and plan.opclass == OpcodeClass.Simt
    plan.run(A, B, None, D)
    np.testing.assert_array_equal(D, A.astype(np.float64) @ B)
    assert (big[:, :4] == 5).all() and (big[:, 4 + N:] == 5).all()
    frozen = np.zeros((M, N), dtype=np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="argument `d` is a read-only host array"):
        plan.run(A, B, None, frozen)
    plan.run(A, B, None, D, sync=False).sync()  # D comes back at sync()


def test_numpy_output_is_written_at_sync(cuda):
    np = pytest.importorskip("numpy")
    A = np.ones((M, K), dtype=np.float32)
    B = np.ones((K, N), dtype=np.float32)
    D = np.zeros((M, N), dtype=np.float32)
    run = warploom.op.Gemm(element=np.float32, layout=Row).run(A, B, None, D, sync=False)
    run.sync()
    assert (D == K).all()


def test_torch_cpu_tensors_are_copied_in_and_out(cuda):
    torch = cuda
    A = ints(torch, (M, K), torch.bfloat16).cpu()
    B = ints(torch, (K, N), torch.bfloat16, Col).cpu()
    D = torch.zeros(M, N, dtype=torch.bfloat16)
    warploom.op.Gemm(A=A, B=B, D=D).run(A, B, None, D)
    assert_exact(torch, D, reference(torch, A, B))


def test_cupy_arrays_when_installed(cuda):
    cp = pytest.importorskip("cupy")
    A = cp.ones((M, K), dtype=cp.float16)
    B = cp.ones((K, N), dtype=cp.float16)
    D = cp.zeros((M, N), dtype=cp.float16)
    warploom.op.Gemm(element=cp.float16, layout=Row).run(A, B, None, D)
    assert bool((D == K).all())


# ---- Configurations ------------------------------------------------------------------------------


def test_every_tile_description_runs(cuda):
    # Compiling a configuration the build did not prebuild takes ~20 s (once per machine): those
    # run with WARPLOOM_TEST_JIT=1 (tools/test.sh builds every instance where a GPU is).
    torch = cuda
    A, B = ints(torch, (M, K), torch.bfloat16), ints(torch, (K, N), torch.bfloat16, Col)
    D = torch.zeros(M, N, dtype=torch.bfloat16, device="cuda")
    plan = warploom.op.Gemm(A=A, B=B, D=D)
    ran = 0
    for td in plan.tile_descriptions():
        if not plan.is_prebuilt(td) and os.environ.get("WARPLOOM_TEST_JIT") != "1":
            continue
        D.zero_()
        plan.compile(td)
        plan.run(A, B, None, D)
        assert_exact(torch, D, reference(torch, A, B))
        ran += 1
    assert ran >= 2


def test_print_module_shows_the_kernel_the_run_uses(cuda, capsys):
    torch = cuda
    plan = warploom.op.Gemm(element=torch.bfloat16, layout=Row, layout_B=Col)
    small = [ints(torch, s, torch.bfloat16, l) for s, l in (((M, K), Row), ((K, N), Col))]
    plan.run(*small, None, torch.zeros(M, N, dtype=torch.bfloat16, device="cuda"),
             print_module=True)
    # 200 x 136: two tiles of 128 x 256 would leave the SMs idle; gemm()'s Auto narrows them to
    # 128 x 128 (K = 256 too short to split).
    assert "bf16_bf16_tn_cooperative_s6_b2_1x1_n128" in capsys.readouterr().out
    # gemm()'s size rule: ping-pong for outputs of 8192 x 8192 and more.
    big = 8192
    A = torch.zeros(big, 64, dtype=torch.bfloat16, device="cuda")
    B = torch.zeros(64, big, dtype=torch.bfloat16, device="cuda").t().contiguous().t()
    plan.run(A, B, None, torch.empty(big, big, dtype=torch.bfloat16, device="cuda"),
             print_module=True)
    assert "bf16_bf16_tn_pingpong_s6_b1_1x1" in capsys.readouterr().out


def test_run_overhead_report(cuda):
    """Not a check: prints the host time of plan.run (sync=False) beside torch.mm's, for the
    record (issue 14's target: at most 10 us above the C++ call)."""
    torch = cuda
    A, B = ints(torch, (128, 64), torch.bfloat16), ints(torch, (64, 128), torch.bfloat16, Col)
    D = torch.zeros(128, 128, dtype=torch.bfloat16, device="cuda")
    plan = warploom.op.Gemm(A=A, B=B, D=D)
    plan.run(A, B, None, D)

    def per_call(f, n=2000):
        for _ in range(50):
            f()
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(n):
            f()
        elapsed = time.perf_counter() - start
        torch.cuda.synchronize()
        return elapsed / n * 1e6

    ours = per_call(lambda: plan.run(A, B, None, D, sync=False))
    theirs = per_call(lambda: torch.mm(A, B, out=D))
    print(f"\nhost time per call: warploom plan.run {ours:.1f} us, torch.mm {theirs:.1f} us")
