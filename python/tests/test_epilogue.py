"""The fused epilogue through warploom.op.Gemm without a GPU: run()'s keyword tensors (bias,
scales, residual, pre-activation) checked by plan.check(), which applies run()'s rules without a
device, and every refusal as the Python exception carrying the C++ message that names the
argument. The fake tensors are never read (fake_tensors.py)."""

import pytest

import warploom
from warploom import Broadcast, LayoutType

from fake_tensors import DlpackTensor

M, N, K = 128, 64, 32
_next_address = [1]


def T(shape, strides=None, dtype="bf16"):
    """A fake GPU tensor at an address of its own (the GEMM refuses outputs overlapping inputs)."""
    _next_address[0] += 1
    return DlpackTensor(shape, strides, dtype, data=_next_address[0] << 24)


def linear_plan():
    """A Linear layer's plan: bf16 X (M x K, row-major) times W^T (K x N, column-major)."""
    return warploom.op.Gemm(element="bf16", layout_A=LayoutType.RowMajor,
                            layout_B=LayoutType.ColumnMajor, layout_C=LayoutType.RowMajor, cc=90)


def operands():
    return (T((M, K), dtype="bf16"), T((K, N), (1, K), dtype="bf16"), None,
            T((M, N), dtype="bf16"))


def test_every_epilogue_tensor_is_taken():
    linear_plan().check(*operands(), bias=T((N,), dtype="f32"),
                        row_scale=T((M,), dtype="f32"),
                        col_scale=T((1, N), dtype="f32"),
                        residual=T((M, N), (1, M), dtype="bf16"),
                        pre_activation=T((M, N), dtype="bf16"))


def test_a_bias_per_row_in_ds_type_by_enum_or_name():
    p = linear_plan()
    p.check(*operands(), bias=T((M,), dtype="bf16"), bias_broadcast=Broadcast.PerRow)
    p.check(*operands(), bias=T((M,), dtype="bf16"), bias_broadcast="row")
    with pytest.raises(TypeError, match="bias_broadcast = 'diagonal' is not a broadcast"):
        p.check(*operands(), bias=T((M,)), bias_broadcast="diagonal")


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(bias=T((M,), dtype="f32")), ValueError,
     r"Gemm.run: argument `bias` has 128 values; the epilogue reads 64 \(N, one per column of D\)"),
    (dict(bias=T((2, N), dtype="f32")), ValueError,
     "argument `bias` .* is not a vector"),
    (dict(bias=T((N,), (2,), dtype="f32")), ValueError,
     "argument `bias` .* is strided: the epilogue reads a contiguous vector"),
    (dict(bias=T((N,), dtype="f16")), TypeError,
     "Gemm.run: argument `bias` is fp16; the epilogue reads it as fp32 or bf16"),
    (dict(col_scale=T((N,), dtype="bf16")), TypeError,
     "argument `col_scale` is bf16; the epilogue reads it as fp32"),
    (dict(residual=T((M, N + 1), dtype="bf16")), ValueError,
     "argument `residual` is bf16 128 x 65 .*: it has D's shape"),
    (dict(pre_activation=T((M, N), dtype="f32")), TypeError,
     "argument `pre_activation` is fp32; this plan expects bf16"),
    (dict(residual="R"), TypeError, "argument `residual` .* is not a tensor"),
])
def test_refusals_carry_the_cpp_message(kwargs, error, message):
    with pytest.raises(error, match=message):
        linear_plan().check(*operands(), **kwargs)


@pytest.mark.parametrize("activation", warploom.op.Gemm.activations())
def test_every_activation_is_a_plan_setting(activation):
    p = linear_plan()
    p.activation = activation
    assert p.activation == activation
    p.check(*operands(), bias=T((N,), dtype="f32"))


def test_leaky_relu_keeps_its_slope():
    p = linear_plan()
    assert p.leaky_slope == pytest.approx(0.01)
    p.activation = (warploom.epilogue.leaky_relu, 0.25)
    assert (p.activation, p.leaky_slope) == (warploom.epilogue.leaky_relu, pytest.approx(0.25))
