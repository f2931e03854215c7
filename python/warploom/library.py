"""PyTorch custom ops over the GEMM plan: importing this module (it imports torch) registers

    torch.ops.warploom.gemm(a, b)                                  # a @ b
    torch.ops.warploom.gemm_act(a, b, bias, activation, slope)     # activation(a @ b + bias)
    torch.ops.warploom.grouped_gemm(As, Bs)                        # [a @ b for each pair]
    torch.ops.warploom.attention(q, k, v, causal, scale, schedule) # (out, lse), (B, S, H, D)

with fake (meta) implementations, so torch.compile(fullgraph=True) traces models that call them,
and autograd for the GEMMs (attention is forward only: its backward is not written yet): dA =
dD . B^T and dB = A^T . dD, both through warploom.gemm itself (gemm_act's backward recomputes the
pre-activation with one more GEMM rather than storing it, and takes the activation's derivative
from torch). a is M x K, b K x N, either layout (a transposed view is read in place); bias holds N
values (one per output column, a Linear layer's). Each call runs on
torch.cuda.current_stream() and returns without waiting, as torch's own ops do.

warploom itself never imports this module: `import warploom` leaves torch unimported.
"""

from typing import List, Optional

import torch
import torch.nn.functional as F

from . import op
from ._attention import _schedule
from ._core import Activation

# The activation as torch computes it: gemm_act's backward differentiates it, tests compare with it.
TORCH_ACTIVATIONS = {
    "identity": lambda z, slope: z,
    "relu": lambda z, slope: F.relu(z),
    "leaky_relu": lambda z, slope: F.leaky_relu(z, slope),
    "gelu": lambda z, slope: F.gelu(z),
    "gelu_tanh": lambda z, slope: F.gelu(z, approximate="tanh"),
    "hardswish": lambda z, slope: F.hardswish(z),
    "sigmoid": lambda z, slope: torch.sigmoid(z),
    "silu": lambda z, slope: F.silu(z),
    "tanh": lambda z, slope: torch.tanh(z),
}
assert set(TORCH_ACTIVATIONS) == {a.name for a in Activation}

_plans = {}  # (dtypes, layouts, activation, slope, device) -> warploom.op.Gemm


def _readable(x):
    """x itself when one of its two matrix dimensions has unit stride, else a contiguous copy."""
    return x if x.stride(-1) == 1 or x.stride(-2) == 1 else x.contiguous()


def _plan(a, b, d, activation, slope, kind=op.Gemm):
    """The `kind` plan (op.Gemm or op.GroupedGemm) for these tensors' types and layouts, made
    once per combination."""
    key = (kind, a.dtype, b.dtype, d.dtype, a.stride(-1) == 1, b.stride(-1) == 1, activation,
           slope, a.get_device())
    plan = _plans.get(key)
    if plan is None:
        plan = kind(A=a, B=b, C=d, D=d)
        plan.activation = (Activation[activation], slope)
        _plans[key] = plan
    return plan


def _out(a, b):
    return a.new_empty((*a.shape[:-1], b.shape[-1]))


def _run(a, b, bias, activation, slope):
    if not a.is_cuda or not b.is_cuda:
        raise ValueError(f"warploom::gemm: a ({a.device}) and b ({b.device}) must be CUDA tensors")
    a, b = _readable(a), _readable(b)
    d = _out(a, b)
    _plan(a, b, d, activation, slope).run(a, b, None, d, sync=False, bias=bias)
    return d


def _grouped(As, Bs):
    if len(As) != len(Bs):
        raise ValueError(f"warploom::grouped_gemm: {len(As)} As and {len(Bs)} Bs: group i is "
                         "As[i] @ Bs[i]")
    As, Bs = [_readable(a) for a in As], [_readable(b) for b in Bs]
    Ds = [_out(a, b) for a, b in zip(As, Bs)]
    if not As:
        return Ds
    # One plan: every group in the first group's types and layouts (the plan names a group
    # that differs).
    _plan(As[0], Bs[0], Ds[0], "identity", 0.01, op.GroupedGemm).run(As, Bs, None, Ds, sync=False)
    return Ds


def _attention(q, k, v, causal=False, scale=None, schedule="auto"):
    if not q.is_cuda:
        raise ValueError(f"warploom::attention: q ({q.device}) must be a CUDA tensor")
    return op.attention(q, k, v, causal=causal, scale=scale, schedule=schedule)


def _gemm_act(a, b, bias, activation, slope=0.01):
    if activation not in TORCH_ACTIVATIONS:
        raise ValueError(f"warploom::gemm_act: activation = {activation!r} is not one of "
                         f"{', '.join(TORCH_ACTIVATIONS)}")
    return _run(a, b, bias, activation, slope)


# The ops are defined with torch.library.Library and their implementations registered for the CUDA
# (and CPU, to refuse with our message) dispatch keys directly: torch.library.custom_op wraps each
# call in Python layers that cost ~10 us (measured on torch 2.11), more than the launch itself.
_LIBRARY = torch.library.Library("warploom", "DEF")
_SCHEMAS = {
    "gemm": ("gemm(Tensor a, Tensor b) -> Tensor", lambda a, b: _run(a, b, None, "identity", 0.01)),
    "gemm_act": ("gemm_act(Tensor a, Tensor b, Tensor? bias, str activation, float slope=0.01) "
                 "-> Tensor", _gemm_act),
    "grouped_gemm": ("grouped_gemm(Tensor[] As, Tensor[] Bs) -> Tensor[]", _grouped),
    "attention": ("attention(Tensor q, Tensor k, Tensor v, bool causal=False, float? scale=None, "
                  "str schedule='auto') -> (Tensor, Tensor)", _attention),
}
for _name, (_schema, _impl) in _SCHEMAS.items():
    _LIBRARY.define(_schema)
    for _key in ("CUDA", "CPU"):
        _LIBRARY.impl(_name, _impl, _key)

gemm = torch.ops.warploom.gemm
gemm_act = torch.ops.warploom.gemm_act
grouped_gemm = torch.ops.warploom.grouped_gemm
attention = torch.ops.warploom.attention


@torch.library.register_fake("warploom::gemm")
def _(a, b):
    return _out(a, b)


@torch.library.register_fake("warploom::grouped_gemm")
def _(As, Bs):
    return [_out(a, b) for a, b in zip(As, Bs)]


@torch.library.register_fake("warploom::attention")
def _(q, k, v, causal=False, scale=None, schedule="auto"):
    _schedule(schedule, "warploom::attention")  # refused while tracing, as the call would
    batch, seqlen_q, heads, _ = q.shape
    return q.new_empty(q.shape), q.new_empty((batch, heads, seqlen_q), dtype=torch.float32)


@torch.library.register_fake("warploom::gemm_act")
def _(a, b, bias, activation, slope=0.01):
    return _out(a, b)


def _input_grads(a, b, dz, needs):
    """dA = dZ . B^T and dB = A^T . dZ, through warploom (each only when asked for)."""
    da = gemm(dz, b.mT) if needs[0] else None
    db = gemm(a.mT, dz) if needs[1] else None
    return da, db


def _save(ctx, inputs, output):
    ctx.save_for_backward(*inputs[:2])


def _gemm_backward(ctx, dd):
    a, b = ctx.saved_tensors
    return _input_grads(a, b, dd.contiguous(), ctx.needs_input_grad)


def _save_act(ctx, inputs, output):
    a, b, bias, activation, slope = inputs
    ctx.save_for_backward(a, b, bias)
    ctx.activation, ctx.slope = activation, slope


def _gemm_act_backward(ctx, dd):
    a, b, bias = ctx.saved_tensors
    z = gemm(a, b)  # the pre-activation, recomputed rather than kept from the forward pass
    if bias is not None:
        z = z + bias
    with torch.enable_grad():
        z = z.detach().requires_grad_()
        (dz,) = torch.autograd.grad(TORCH_ACTIVATIONS[ctx.activation](z, ctx.slope), z, dd)
    da, db = _input_grads(a, b, dz.contiguous(), ctx.needs_input_grad)
    dbias = None
    if bias is not None and ctx.needs_input_grad[2]:
        dbias = dz.sum(dim=tuple(range(dz.dim() - 1))).to(bias.dtype)
    return da, db, dbias, None, None


torch.library.register_autograd("warploom::gemm", _gemm_backward, setup_context=_save)
torch.library.register_autograd("warploom::gemm_act", _gemm_act_backward,
                                setup_context=_save_act)
