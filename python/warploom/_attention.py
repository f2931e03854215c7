"""warploom.op.attention: fused attention forward (FlashAttention-3's design, in TS) on torch
tensors.

    out, lse = warploom.op.attention(q, k, v, causal=True)    # q (B, S_q, H, D),
                                                              # k and v (B, S_k, H_kv, D)
    out, lse = warploom.op.attention(q, k, v, layout="bhsd")  # torch's SDPA layout, (B, H, S, D)

out = softmax(q . k^T * scale [+ causal mask]) . v, in q's layout and dtype; lse is the fp32
log-sum-exp of each row, (B, H, S_q). fp16 or bf16; head dims 64, 128, 256 (as this build
prebuilt them: warploom._core.attention_instance_built); GQA / MQA when H is a multiple of H_kv;
the causal mask aligned to the bottom right (FlashAttention's). Any strides with the head dim
contiguous and the others 16-byte multiples: a transposed view is read in place. The call runs on
torch's current stream (or `stream`) and returns without waiting.

    out, lse = warploom.op.attention(q, k, v, schedule="serial")  # one schedule by name

schedule: "auto" (the default) runs the schedule measured fastest for the head dimension and key
length where this build has it (warploom._core.attention_default_schedule: "overlap", "pingpong"
for keys of at most 1024 at head_dim 128 without a mask; "serial" where those are not built);
"serial" runs a key block's two GEMMs back to back; "overlap" FlashAttention-3's intra-warpgroup
overlap (block j's Q . K^T issued with block j-1's P . V, its softmax under that); "pingpong"
that overlap with the two consumer warpgroups taking turns at the tensor cores (FA3's ping-pong;
head_dim 64 and 128 only). A schedule this build did not prebuild is refused by name
(warploom._core.attention_instance_built).

The rules are the C++ API's (warploom/attention.hpp, docs/kernels/sm90_attention.md); this module
checks only what Python knows first: that the tensors are torch tensors of one dtype, shaped
alike. torch.ops.warploom.attention (warploom.library) wraps it for torch.compile.
"""

import sys

from . import _core
from ._operands import stream_handle

_TYPES = {"float16": _core.AttentionType.f16, "bfloat16": _core.AttentionType.bf16}
_LAYOUTS = ("bshd", "bhsd")
_SCHEDULES = {name: getattr(_core.AttentionSchedule, name)
              for name in ("auto", "serial", "overlap", "pingpong")}


def _schedule(schedule, where="warploom.op.attention"):
    """The _core.AttentionSchedule named `schedule`; ValueError naming the choices otherwise."""
    if not isinstance(schedule, str) or schedule not in _SCHEDULES:
        raise ValueError(f"{where}: schedule = {schedule!r}: schedule must be one of "
                         f"{', '.join(_SCHEDULES)}")
    return _SCHEDULES[schedule]


def _dtype_name(x):
    return str(getattr(x, "dtype", "")).removeprefix("torch.")


def _check_tensor(x, name):
    if not all(hasattr(x, a) for a in ("data_ptr", "stride", "shape", "dtype", "new_empty")):
        raise TypeError(f"warploom.op.attention: {name} ({type(x).__module__}."
                        f"{type(x).__qualname__}) is not a torch tensor")
    if len(x.shape) != 4:
        raise ValueError(f"warploom.op.attention: {name} has {len(x.shape)} dimensions "
                         f"{tuple(x.shape)}: it must have 4, (batch, seqlen, heads, head_dim)")


def _bshd(x, layout):
    """(shape, (batch, row, head) strides, head-dim stride) of x in (B, S, H, D) terms."""
    b, s, h, d = x.shape if layout == "bshd" else (x.shape[0], x.shape[2], x.shape[1], x.shape[3])
    st = x.stride()
    strides = (st[0], st[1], st[2]) if layout == "bshd" else (st[0], st[2], st[1])
    return (b, s, h, d), strides, st[3]


def attention(q, k, v, *, causal=False, scale=None, out=None, lse=None, layout="bshd",
              stream=None, schedule="auto", check_only=False):
    """(out, lse): see the module's docstring. `out` and `lse` may be given (written in place);
    `schedule` is "auto" (the fastest measured where built), "serial", "overlap" or "pingpong";
    `check_only` checks the arguments without touching the GPU (and returns None)."""
    for name, x in (("q", q), ("k", k), ("v", v)):
        _check_tensor(x, name)
    if layout not in _LAYOUTS:
        raise ValueError(f"warploom.op.attention: layout = {layout!r} is not one of "
                         f"{', '.join(_LAYOUTS)} (bshd: (batch, seqlen, heads, head_dim))")
    kernel_schedule = _schedule(schedule)
    dtype = _dtype_name(q)
    if dtype not in _TYPES:
        raise TypeError(f"warploom.op.attention: q's dtype {dtype} is not one of float16, bfloat16")
    for name, x in (("k", k), ("v", v)):
        if _dtype_name(x) != dtype:
            raise TypeError(f"warploom.op.attention: {name}'s dtype {_dtype_name(x)} is not q's "
                            f"({dtype})")
    (batch, seqlen_q, heads, head_dim), q_strides, q_unit = _bshd(q, layout)
    (kb, seqlen_k, kv_heads, kd), k_strides, k_unit = _bshd(k, layout)
    v_shape, v_strides, v_unit = _bshd(v, layout)
    if (kb, kd) != (batch, head_dim):
        raise ValueError(f"warploom.op.attention: k is {tuple(k.shape)}, q {tuple(q.shape)}: "
                         "they must agree in batch and head_dim")
    if v_shape != (kb, seqlen_k, kv_heads, kd):
        raise ValueError(f"warploom.op.attention: v is {tuple(v.shape)}, k {tuple(k.shape)}: they "
                         "must have one shape")
    for name, unit in (("q", q_unit), ("k", k_unit), ("v", v_unit)):
        if unit != 1 and head_dim > 1:
            raise ValueError(f"warploom.op.attention: {name}'s head_dim stride is {unit}: the head "
                             "dimension must be contiguous (stride 1)")
    if out is None:
        # Packed (B, S, H, D); for "bhsd" the (B, H, S, D) view of it, as SDPA's callers transpose.
        out = q.new_empty((batch, seqlen_q, heads, head_dim))
        if layout == "bhsd":
            out = out.transpose(1, 2)
    else:
        _check_tensor(out, "out")
        if tuple(out.shape) != tuple(q.shape) or _dtype_name(out) != dtype:
            raise ValueError(f"warploom.op.attention: out is {tuple(out.shape)} {_dtype_name(out)}:"
                             f" it must be q's shape and dtype, {tuple(q.shape)} {dtype}")
    _, o_strides, o_unit = _bshd(out, layout)
    if o_unit != 1:
        raise ValueError(f"warploom.op.attention: out's head_dim stride is {o_unit}: it must be 1")
    if lse is None:
        lse = q.new_empty((batch, heads, seqlen_q), dtype=_float32(q))
    elif tuple(lse.shape) != (batch, heads, seqlen_q) or _dtype_name(lse) != "float32" or \
            tuple(lse.stride()) != (heads * seqlen_q, seqlen_q, 1):
        raise ValueError(f"warploom.op.attention: lse is {tuple(lse.shape)} {_dtype_name(lse)}: it "
                         f"must be a packed float32 ({batch}, {heads}, {seqlen_q}) tensor")
    handle, _ = stream_handle(stream, (q,))
    _core.attention_forward(
        _TYPES[dtype], q.data_ptr(), q_strides, k.data_ptr(), k_strides, v.data_ptr(), v_strides,
        out.data_ptr(), o_strides, lse.data_ptr(), batch, seqlen_q, seqlen_k, heads, kv_heads,
        head_dim, 0.0 if scale is None else float(scale), bool(causal), kernel_schedule, handle,
        check_only)
    return None if check_only else (out, lse)


def _float32(x):
    """torch.float32, from the module of x's dtype (this module does not import torch)."""
    return sys.modules[type(x.dtype).__module__.partition(".")[0]].float32
