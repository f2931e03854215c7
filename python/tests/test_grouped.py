"""warploom.op.GroupedGemm without a GPU: a plan like Gemm's (types, layouts, activation), its
groups given as lists, and every refusal naming the group. The GPU run is in test_grouped_gpu."""

import pytest

import warploom
from warploom import DataType, LayoutType

from fake_tensors import DlpackTensor

Row, Col = LayoutType.RowMajor, LayoutType.ColumnMajor


def grouped(**kwargs):
    return warploom.op.GroupedGemm(cc=90, **kwargs)


def test_a_grouped_plan_is_a_gemm_plan():
    p = grouped(element="f16", layout=Row, layout_B=Col)
    assert (p.element_A, p.element_D, p.layout_B) == (DataType.f16, DataType.f16, Col)
    p.activation = warploom.epilogue.relu
    assert p.activation == warploom.Activation.relu
    assert repr(p).startswith("warploom.op.GroupedGemm of Gemm fp16 x fp16 -> fp16")
    assert p.tile_descriptions()  # Gemm's, for the plan every group runs with


def test_one_groups_tensors_declare_the_plan():
    a = DlpackTensor((64, 32), dtype="bf16")
    bt = DlpackTensor((48, 32), dtype="bf16", data=2 << 24)  # B^T row-major: B column-major
    d = DlpackTensor((64, 48), dtype="f32", data=3 << 24)
    p = grouped(A=a, B=bt.t(), C=d, D=d)
    assert (p.element_A, p.element_D, p.layout_B) == (DataType.bf16, DataType.f32, Col)


def test_the_lists_must_pair_up():
    a, b, d = DlpackTensor((64, 64)), DlpackTensor((64, 64)), DlpackTensor((64, 64))
    with pytest.raises(ValueError, match="A, B, C and D hold 2, 1, 2 and 2 tensors"):
        grouped(element="f16", layout=Row).run([a, a], [b], None, [d, d])


def test_a_refusal_names_the_group():
    # Group 1's B is fp32 in an fp16 plan: refused naming the group and the argument, before
    # anything runs (every group is checked first: no device is needed for that).
    a, b, d0, d1 = (DlpackTensor((64, 64), data=(k + 1) << 24) for k in range(4))
    bad_b = DlpackTensor((64, 64), dtype="f32", data=5 << 24)
    for method in ("run", "check", "prepare"):
        with pytest.raises(TypeError,
                           match=r"GroupedGemm: groups\[1\]: .*`groups\[1\]\.b` is fp32"):
            getattr(grouped(element="f16", layout=Row), method)([a, a], [b, bad_b], None, [d0, d1])


def test_check_passes_good_groups_without_a_device():
    a, b, d = (DlpackTensor((64, 64), data=(k + 1) << 24) for k in range(3))
    c1, b1, d1 = (DlpackTensor(shape, data=(k + 4) << 24)
                  for k, shape in enumerate([(1, 64), (64, 32), (1, 32)]))
    grouped(element="f16", layout=Row).check([a, c1], [b, b1], None, [d, d1])


def test_the_tile_scheduling_is_the_launchs():
    p = grouped(element="f16", layout=Row)
    assert p.tile_scheduling == warploom.TileScheduling.Auto
    p.tile_scheduling = warploom.TileScheduling.Dynamic
    assert p.tile_scheduling == warploom.TileScheduling.Dynamic
    with pytest.raises(TypeError):
        p.tile_scheduling = 7  # not a TileScheduling


def test_the_dynamic_scheduler_takes_a_pingpong_plan():
    # Ping-pong over the queue takes its tiles in pairs: a plan compiled for it checks with the
    # dynamic scheduler as with the static walk (no device needed).
    # bf16 "tn": its ping-pong instance is prebuilt (compile() needs no nvcc).
    a = DlpackTensor((64, 64), dtype="bf16", data=1 << 24)
    b = DlpackTensor((64, 64), dtype="bf16", data=2 << 24).t()
    d = DlpackTensor((64, 64), dtype="bf16", data=3 << 24)
    p = grouped(element="bf16", layout=Row, layout_B=Col)
    td = next(t for t in p.tile_descriptions()
              if t.design == warploom.ConsumerDesign.PingPong and t.stages == 6
              and t.staging_buffers == 1 and (t.cluster_m, t.cluster_n) == (1, 1))
    p.compile(td)
    p.tile_scheduling = warploom.TileScheduling.Dynamic
    p.check([a], [b], None, [d])


@pytest.mark.gpu
@pytest.mark.parametrize("scheduling", ["Static", "Dynamic"])
def test_every_group_against_torch(cuda, scheduling):
    # Mixed extents (M = 1, K = 8 beside large groups) and an empty group, bf16 "tn" (prebuilt),
    # over the static tile walk and the dynamic scheduler.
    torch = cuda
    shapes = [(256, 128, 512), (1, 64, 64), (64, 64, 8), (0, 64, 64), (200, 136, 72)]
    A = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for m, n, k in shapes]
    B = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16).t() for m, n, k in shapes]
    D = [torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
         for m, n, k in shapes]
    plan = warploom.op.GroupedGemm(element=torch.bfloat16, layout=Row, layout_B=Col)
    plan.tile_scheduling = getattr(warploom.TileScheduling, scheduling)
    plan.run(A, B, None, D, alpha=0.5)
    for (m, n, k), a, b, d in zip(shapes, A, B, D):
        if m == 0:
            continue
        want = 0.5 * (a.double() @ b.double())
        # bf16 output: a relative rounding of 2^-8, and fp32 accumulation over k.
        error = (d.double() - want).abs().max().item()
        assert error <= 1e-2 * want.abs().max().item() + 1e-3, (m, n, k, error)


@pytest.mark.gpu
def test_a_captured_graph_replays_every_group(cuda):
    # One torch CUDA graph of a grouped run (its workspace from torch's allocator: the graph's own
    # pool), replayed over new inputs: the groups' parameters are written on the device each time.
    torch = cuda
    shapes = [(256, 128, 512), (64, 320, 64), (130, 72, 1000)]
    A = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for m, n, k in shapes]
    B = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16).t() for m, n, k in shapes]
    D = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16) for m, n, k in shapes]
    plan = warploom.op.GroupedGemm(element=torch.bfloat16, layout=Row, layout_B=Col)
    plan.run(A, B, None, D)  # loads the instance outside the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        plan.run(A, B, None, D, sync=False)
    for _ in range(2):
        for a, d in zip(A, D):
            a.copy_(torch.randn_like(a))
            d.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        for a, b, d in zip(A, B, D):
            want = a.double() @ b.double()
            error = (d.double() - want).abs().max().item()
            assert error <= 1e-2 * want.abs().max().item() + 1e-3, error


@pytest.mark.gpu
@pytest.mark.parametrize("scheduling", ["Static", "Dynamic"])
def test_a_prepared_grouped_gemm_runs_again_and_in_a_graph(cuda, scheduling):
    # Set up once, run over new inputs (each run reads them; the dynamic scheduler's counter is
    # rewound by each run), then captured in a torch CUDA graph and replayed: one kernel per run.
    torch = cuda
    shapes = [(256, 128, 512), (1, 64, 64), (0, 64, 64), (130, 72, 1000)]
    A = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for m, n, k in shapes]
    B = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16).t() for m, n, k in shapes]
    D = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16) for m, n, k in shapes]
    plan = warploom.op.GroupedGemm(element=torch.bfloat16, layout=Row, layout_B=Col)
    plan.tile_scheduling = getattr(warploom.TileScheduling, scheduling)
    prepared = plan.prepare(A, B, None, D, alpha=2.0)
    assert (prepared.groups, prepared.grouped_launches) == (3, 1)

    def expect_correct():
        torch.cuda.synchronize()
        for (m, n, k), a, b, d in zip(shapes, A, B, D):
            if m == 0:
                continue
            want = 2.0 * (a.double() @ b.double())
            error = (d.double() - want).abs().max().item()
            assert error <= 1e-2 * want.abs().max().item() + 1e-3, (m, n, k, error)

    def new_inputs():
        for a, d in zip(A, D):
            a.copy_(torch.randn_like(a))
            d.fill_(float("nan"))

    for _ in range(2):
        new_inputs()
        prepared.run()
        expect_correct()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        prepared.run(sync=False)
    for _ in range(2):
        new_inputs()
        graph.replay()
        expect_correct()


@pytest.mark.gpu
def test_prepare_takes_gpu_tensors_only(cuda):
    np = pytest.importorskip("numpy")
    a = np.zeros((64, 64), dtype=np.float16)
    plan = warploom.op.GroupedGemm(element="f16", layout=Row)
    with pytest.raises(ValueError, match="GroupedGemm.prepare: a group's tensor is a host array"):
        plan.prepare([a], [a.copy()], None, [a.copy()])


class _Counts:
    """A stand-in GPU tensor of counts: only its CUDA array interface is read."""

    def __init__(self, shape=(2,), typestr="<i4", strides=None, data=9 << 24):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "strides": strides,
                                          "data": (data, False), "version": 3}


def test_the_masked_layout_names_what_is_wrong_with_its_counts():
    a = DlpackTensor((2, 64, 32), data=1 << 24)
    b = DlpackTensor((2, 32, 48), data=2 << 24)
    d = DlpackTensor((2, 64, 48), data=3 << 24)
    plan = grouped(element="f16", layout=Row)
    with pytest.raises(ValueError, match=r"A must be 3-D \(experts, M, K\), got shape \(64, 32\)"):
        plan.run_masked(DlpackTensor((64, 32)), b, d, _Counts())
    with pytest.raises(TypeError, match="valid_m must be a GPU tensor of int32 counts"):
        plan.run_masked(a, b, d, [64, 64])
    with pytest.raises(TypeError, match="valid_m has dtype '<i8': give int32 counts"):
        plan.run_masked(a, b, d, _Counts(typestr="<i8"))
    with pytest.raises(ValueError, match=r"valid_m has shape \(3,\): give one per expert, "
                                         r"\(2,\)"):
        plan.run_masked(a, b, d, _Counts(shape=(3,)))
    with pytest.raises(ValueError, match="valid_m must be contiguous"):
        plan.run_masked(a, b, d, _Counts(strides=(8,)))


def test_the_contiguous_layout_names_what_is_wrong_with_its_offsets():
    a = DlpackTensor((300, 32), data=1 << 24)
    b = DlpackTensor((2, 32, 48), data=2 << 24)
    d = DlpackTensor((300, 48), data=3 << 24)
    plan = grouped(element="f16", layout=Row)
    with pytest.raises(ValueError, match=r"B must be 3-D \(experts, K, N\), got shape \(32, 48\)"):
        plan.run_contiguous(a, DlpackTensor((32, 48)), d, _Counts())
    with pytest.raises(TypeError, match="run_contiguous: offsets must be a GPU tensor of int32 "
                                        "cumulative row ends"):
        plan.run_contiguous(a, b, d, [100, 300])
    with pytest.raises(TypeError, match="offsets has dtype '<i8': give int32 cumulative row ends"):
        plan.run_contiguous(a, b, d, _Counts(typestr="<i8"))
    with pytest.raises(ValueError, match=r"offsets has shape \(3,\): give one per expert, "
                                         r"\(2,\)"):
        plan.run_contiguous(a, b, d, _Counts(shape=(3,)))


@pytest.mark.gpu
def test_the_contiguous_layout_against_torch(cuda):
    # torch._grouped_mm's layout: four experts' rows stacked (an empty one, slices ending
    # mid-tile, rows past the last end keep their NaN), bf16 "tn" (prebuilt); then new offsets,
    # written on the device, through one captured CUDA graph; and torch._grouped_mm's own result
    # where this torch has it.
    torch = cuda
    experts, m, n, k = 4, 700, 320, 256
    A = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    W = torch.randn(experts, n, k, device="cuda", dtype=torch.bfloat16)  # (G, N, K): Linear's
    B = W.transpose(1, 2)
    D = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    # Ends that are multiples of 16 first (what torch._grouped_mm may ask of them), then others.
    offsets = torch.tensor([0, 128, 448, 592], device="cuda", dtype=torch.int32)
    plan = warploom.op.GroupedGemm(element=torch.bfloat16, layout=Row, layout_B=Col)

    def expect(ends):
        begin = 0
        for g, end in enumerate(ends):
            end = min(max(end, begin), m)
            want = A[begin:end].double() @ B[g].double()
            if end > begin:
                error = (D[begin:end].double() - want).abs().max().item()
                assert error <= 1e-2 * want.abs().max().item() + 1e-3, (g, begin, end, error)
            begin = end
        assert torch.isnan(D[begin:]).all(), begin

    plan.run_contiguous(A, B, D, offsets)
    expect([0, 128, 448, 592])
    if hasattr(torch, "_grouped_mm"):
        theirs = torch._grouped_mm(A, B, offs=offsets)[:592].double()
        error = (theirs - D[:592].double()).abs().max().item()
        assert error <= 1e-2 * theirs.abs().max().item(), error
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        plan.run_contiguous(A, B, D, offsets, sync=False)
    for ends in ([200, 100, 690, 900], [0, 130, 450, 600]):
        D.fill_(float("nan"))
        offsets.copy_(torch.tensor(ends, dtype=torch.int32))
        graph.replay()
        torch.cuda.synchronize()
        expect(ends)


@pytest.mark.gpu
def test_the_masked_layout_against_torch(cuda):
    # Four experts of 384 rows, bf16 "tn" (prebuilt): counts of none, one, a mid-tile count and
    # more than M; rows past the counts keep the NaN they held. Then new counts, written on the
    # device, through one captured CUDA graph.
    torch = cuda
    experts, m, n, k = 4, 384, 320, 256
    A = torch.randn(experts, m, k, device="cuda", dtype=torch.bfloat16)
    B = torch.randn(experts, n, k, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    D = torch.full((experts, m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    counts = torch.tensor([0, 1, 200, 1000], device="cuda", dtype=torch.int32)
    plan = warploom.op.GroupedGemm(element=torch.bfloat16, layout=Row, layout_B=Col)
    want = A.double() @ B.double()

    def expect(valid):
        for g, rows in enumerate(valid):
            rows = min(rows, m)
            got = D[g, :rows].double()
            error = (got - want[g, :rows]).abs().max().item() if rows else 0.0
            assert error <= 1e-2 * want[g].abs().max().item() + 1e-3, (g, rows, error)
            assert torch.isnan(D[g, rows:]).all(), (g, rows)

    plan.run_masked(A, B, D, counts)
    expect([0, 1, 200, 1000])
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        plan.run_masked(A, B, D, counts, sync=False)
    D.fill_(float("nan"))
    counts.copy_(torch.tensor([384, 129, 0, 64], dtype=torch.int32))
    graph.replay()
    torch.cuda.synchronize()
    expect([384, 129, 0, 64])
