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
    for method in ("run", "check"):
        with pytest.raises(TypeError,
                           match=r"GroupedGemm: groups\[1\]: .*`groups\[1\]\.b` is fp32"):
            getattr(grouped(element="f16", layout=Row), method)([a, a], [b, bad_b], None, [d0, d1])


def test_check_passes_good_groups_without_a_device():
    a, b, d = (DlpackTensor((64, 64), data=(k + 1) << 24) for k in range(3))
    c1, b1, d1 = (DlpackTensor(shape, data=(k + 4) << 24)
                  for k, shape in enumerate([(1, 64), (64, 32), (1, 32)]))
    grouped(element="f16", layout=Row).check([a, c1], [b, b1], None, [d, d1])


@pytest.mark.gpu
def test_every_group_against_torch(cuda):
    # Mixed extents (M = 1, K = 8 beside large groups) and an empty group, bf16 "tn" (prebuilt).
    torch = cuda
    shapes = [(256, 128, 512), (1, 64, 64), (64, 64, 8), (0, 64, 64), (200, 136, 72)]
    A = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for m, n, k in shapes]
    B = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16).t() for m, n, k in shapes]
    D = [torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
         for m, n, k in shapes]
    plan = warploom.op.GroupedGemm(element=torch.bfloat16, layout=Row, layout_B=Col)
    plan.run(A, B, None, D, alpha=0.5)
    for (m, n, k), a, b, d in zip(shapes, A, B, D):
        if m == 0:
            continue
        want = 0.5 * (a.double() @ b.double())
        # bf16 output: a relative rounding of 2^-8, and fp32 accumulation over k.
        error = (d.double() - want).abs().max().item()
        assert error <= 1e-2 * want.abs().max().item() + 1e-3, (m, n, k, error)
