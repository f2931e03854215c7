"""The PyTorch custom ops (warploom.library) and warploom.nn.Linear. Without a GPU (skipped
without torch): the ops are registered, their fake implementations give the output's shape and
dtype on meta tensors, Linear refuses an unknown activation. With one (marker gpu): results,
gradients through warploom against torch's, torch.compile(fullgraph=True), the current stream."""

import pytest

torch = pytest.importorskip("torch", reason="the custom ops are torch's")

import warploom.library  # noqa: E402  (registers the ops)
import warploom.nn  # noqa: E402


def meta(*shape, dtype=torch.bfloat16):
    return torch.empty(*shape, device="meta", dtype=dtype)


def test_the_ops_are_registered():
    assert hasattr(torch.ops.warploom, "gemm")
    assert hasattr(torch.ops.warploom, "gemm_act")
    assert hasattr(torch.ops.warploom, "grouped_gemm")


def test_grouped_fake_gives_every_groups_shape():
    ds = torch.ops.warploom.grouped_gemm([meta(64, 32), meta(8, 16)], [meta(32, 48), meta(16, 8)])
    assert [tuple(d.shape) for d in ds] == [(64, 48), (8, 8)]
    assert all(d.device.type == "meta" for d in ds)


def test_fake_implementations_give_shape_and_dtype():
    d = torch.ops.warploom.gemm(meta(64, 32), meta(32, 48))
    assert (d.shape, d.dtype, d.device.type) == ((64, 48), torch.bfloat16, "meta")
    d = torch.ops.warploom.gemm_act(meta(3, 64, 32, dtype=torch.float16),
                                    meta(3, 32, 48, dtype=torch.float16), None, "relu", 0.01)
    assert (d.shape, d.dtype) == ((3, 64, 48), torch.float16)


def test_linear_on_meta_tensors_and_its_refusal():
    layer = warploom.nn.Linear(32, 48, activation="gelu", device="meta", dtype=torch.bfloat16)
    assert layer(meta(2, 5, 32)).shape == (2, 5, 48)
    assert "activation=gelu" in repr(layer)
    with pytest.raises(ValueError, match="activation = 'swish' is not one of"):
        warploom.nn.Linear(32, 48, activation="swish")


# ---- On the GPU ----------------------------------------------------------------------------------


def _data(shape, dtype=torch.bfloat16):
    return torch.randn(shape, device="cuda", dtype=torch.float32).div(4).to(dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("activation", sorted(warploom.library.TORCH_ACTIVATIONS))
def test_gemm_act_against_torch(cuda, activation):
    a, w, bias = _data((256, 128)), _data((192, 128)), _data((192,))
    d = torch.ops.warploom.gemm_act(a, w.t(), bias, activation, 0.1)
    z = (a.float() @ w.float().t() + bias.float()).to(torch.bfloat16).float()
    expected = warploom.library.TORCH_ACTIVATIONS[activation](z, 0.1)
    torch.testing.assert_close(d.float(), expected, rtol=2e-2, atol=2e-2)


def _gradients(fn, *leaves):
    """d(sum(fn(leaves)^2)) / d(leaf) for each leaf, the loss in float64."""
    leaves = [x.detach().clone().requires_grad_() for x in leaves]
    fn(*leaves).double().square().sum().backward()
    return [x.grad.double() for x in leaves]


@pytest.mark.gpu
def test_gradients_through_warploom_match_torchs(cuda):
    # Both bf16 paths against float64: warploom's gradients (its GEMMs, the pre-activation
    # recomputed) within twice torch's own bf16 error of the exact ones. An element-wise bound
    # against torch's bf16 gradients would compare two roundings of z that differ by an ulp, which
    # GELU's derivative then amplifies (one element of 32768 off by 0.062 against an allowed 0.05
    # on the H200, 2026-12-01).
    a, w, bias = _data((256, 128)), _data((192, 128)), _data((192,))
    ours = _gradients(lambda a, w, b: torch.ops.warploom.gemm_act(a, w.t(), b, "gelu", 0.01),
                      a, w, bias)
    torchs = _gradients(lambda a, w, b: torch.nn.functional.gelu(a @ w.t() + b), a, w, bias)
    exact = _gradients(lambda a, w, b: torch.nn.functional.gelu(a @ w.t() + b),
                       a.double(), w.double(), bias.double())
    for name, got, theirs, want in zip(("a", "w", "bias"), ours, torchs, exact):
        error, torch_error = (got - want).abs().max(), (theirs - want).abs().max()
        assert error <= 2 * torch_error + 1e-3 * want.abs().max(), (name, error, torch_error)


@pytest.mark.gpu
def test_gemm_gradcheck_in_double(cuda):
    a = torch.randn(32, 16, device="cuda", dtype=torch.float64, requires_grad=True)
    b = torch.randn(16, 24, device="cuda", dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(torch.ops.warploom.gemm, (a, b))


@pytest.mark.gpu
def test_linear_compiles_fullgraph_and_matches_torch(cuda):
    layer = warploom.nn.Linear(128, 192, activation="silu", device="cuda", dtype=torch.bfloat16)
    x = _data((4, 64, 128))
    expected = torch.nn.functional.silu(torch.nn.functional.linear(x, layer.weight, layer.bias))
    compiled = torch.compile(layer, fullgraph=True)
    torch.testing.assert_close(compiled(x).float(), expected.float(), rtol=2e-2, atol=2e-2)


@pytest.mark.gpu
def test_runs_on_the_current_stream(cuda):
    a, b = _data((256, 128)), _data((128, 192))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        d = torch.ops.warploom.gemm(a, b)
        d2 = d * 2  # ordered after the GEMM on the same stream, no synchronization
    side.synchronize()
    torch.testing.assert_close(d2.float(), 2 * (a.float() @ b.float()), rtol=2e-2, atol=2e-2)


@pytest.mark.gpu
def test_grouped_gemm_against_torch(cuda):
    shapes = [(128, 64, 256), (1, 32, 64), (200, 136, 72)]
    As = [_data((m, k)) for m, n, k in shapes]
    Bs = [_data((n, k)).t() for m, n, k in shapes]  # column-major B: the prebuilt "tn" kernels
    Ds = torch.ops.warploom.grouped_gemm(As, Bs)
    for a, b, d in zip(As, Bs, Ds):
        torch.testing.assert_close(d.float(), (a.float() @ b.float()).to(d.dtype).float(),
                                   rtol=2e-2, atol=2e-2)
