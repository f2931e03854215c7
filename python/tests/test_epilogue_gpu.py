"""The fused epilogue on the GPU (marker gpu), against torch: every activation in every 16/32-bit
element type, then bias (per column and per row), row and column scales, residual and the
pre-activation output in one run. The reference rounds z to D's type before the activation, as
the kernel does (gemm.hpp: the activation reads z as stored in D's type)."""

import pytest

import warploom
from warploom import Broadcast, LayoutType

from test_gemm_gpu import M, N, K, ints, reference

pytestmark = pytest.mark.gpu

Col = LayoutType.ColumnMajor
TOLERANCE = {"bfloat16": 2e-2, "float16": 2e-3, "float32": 1e-5}  # their significant bits


def torch_activation(name):
    from warploom.library import TORCH_ACTIVATIONS  # imports torch: only in GPU tests
    return TORCH_ACTIVATIONS[name]


def check(torch, D, z, activation, slope, residual=None):
    expected = torch_activation(activation)(z.to(D.dtype).to(torch.float32), slope)
    if residual is not None:
        expected = expected + residual.to(torch.float32)
    tolerance = TOLERANCE[str(D.dtype).removeprefix("torch.")]
    torch.testing.assert_close(D.to(torch.float32), expected, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("activation", warploom.op.Gemm.activations(), ids=lambda a: a.name)
@pytest.mark.parametrize("element", ["bfloat16", "float16", "float32"])
def test_every_activation_and_dtype(cuda, activation, element):
    torch = cuda
    dtype = getattr(torch, element)
    A, B = ints(torch, (M, K), dtype), ints(torch, (K, N), dtype, Col)
    D = torch.zeros(M, N, dtype=dtype, device="cuda")
    plan = warploom.op.Gemm(A=A, B=B, D=D)
    plan.activation = (activation, 0.2)
    plan.run(A, B, None, D, alpha=0.25)
    check(torch, D, reference(torch, A, B, alpha=0.25), activation.name, plan.leaky_slope)


@pytest.mark.parametrize("broadcast", [Broadcast.PerColumn, Broadcast.PerRow],
                         ids=lambda b: b.name)
def test_bias_scales_residual_and_pre_activation_in_one_run(cuda, broadcast):
    torch = cuda
    dtype = torch.bfloat16
    A, B = ints(torch, (M, K), dtype), ints(torch, (K, N), dtype, Col)
    C = ints(torch, (M, N), dtype)
    D, Z = (torch.zeros(M, N, dtype=dtype, device="cuda") for _ in range(2))
    per_row = broadcast == Broadcast.PerRow
    bias = ints(torch, (M if per_row else N,), torch.float32)
    row_scale = torch.rand(M, device="cuda") + 0.5
    col_scale = torch.rand(N, device="cuda") + 0.5
    residual = ints(torch, (N, M), dtype).t()  # column-major: its own layout
    plan = warploom.op.Gemm(A=A, B=B, C=C, D=D)
    plan.activation = warploom.epilogue.gelu
    plan.run(A, B, C, D, alpha=0.5, beta=2.0, bias=bias, bias_broadcast=broadcast,
             row_scale=row_scale, col_scale=col_scale, residual=residual, pre_activation=Z)
    f64 = torch.float64
    scaled = 0.5 * row_scale.to(f64)[:, None] * col_scale.to(f64)[None, :] * \
        (A.to(f64) @ B.to(f64))
    z = scaled + 2.0 * C.to(f64) + (bias.to(f64)[:, None] if per_row else bias.to(f64)[None, :])
    torch.testing.assert_close(Z.to(torch.float32), z.to(dtype).to(torch.float32), rtol=1e-2,
                               atol=1e-2)
    check(torch, D, z, "gelu", 0.0, residual)


def test_a_bias_of_the_wrong_length_is_named(cuda):
    torch = cuda
    A, B = ints(torch, (M, K), torch.bfloat16), ints(torch, (K, N), torch.bfloat16, Col)
    D = torch.zeros(M, N, dtype=torch.bfloat16, device="cuda")
    with pytest.raises(ValueError, match="argument `bias` has 200 values; the epilogue reads 136"):
        warploom.op.Gemm(A=A, B=B, D=D).run(A, B, None, D, bias=torch.zeros(M, device="cuda"))
