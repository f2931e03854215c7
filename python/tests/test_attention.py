"""warploom.op.attention and torch.ops.warploom.attention.

Without a GPU (torch-like fake tensors: shape, strides, dtype and a pointer, never read): every
argument is checked with check_only=True, which runs the C++ API's checks
(check_attention_arguments) and touches no device — the Python side's own errors (not a tensor,
mixed dtypes, shapes that disagree, a non-contiguous head dimension, a schedule not named) and
the C++ ones it passes on (an unsupported head dimension, heads that are no multiple of the K/V
heads, misaligned strides); and which schedule schedule="auto" runs.

With one (marker gpu, the `cuda` fixture): results against torch's scaled_dot_product_attention in
float32 on the same inputs, and the log-sum-exp against torch's logsumexp of the scaled scores.
Tolerances: O is a convex combination of V's rows in bf16; the kernel rounds P to bf16 before
P . V (as FlashAttention does), so each weight carries a relative error up to 2^-8: O within
2e-2 absolute for V in [-1, 1]; the LSE is fp32 throughout: 1e-3.
"""

import pytest

import warploom


class _Dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


BF16, F16, F32 = _Dtype("bfloat16"), _Dtype("float16"), _Dtype("float32")


class FakeTensor:
    """What warploom.op.attention reads of a torch tensor: shape, stride(), dtype, data_ptr();
    new_empty and transpose for the outputs it makes."""

    _next = 1 << 32

    def __init__(self, shape, dtype=BF16, strides=None, ptr=None):
        self.shape = tuple(shape)
        self.dtype = dtype
        if strides is None:
            strides, step = [], 1
            for extent in reversed(self.shape):
                strides.insert(0, step)
                step *= extent
        self._strides = tuple(strides)
        if ptr is None:
            ptr = FakeTensor._next
            FakeTensor._next += 1 << 30
        self._ptr = ptr

    def stride(self):
        return self._strides

    def data_ptr(self):
        return self._ptr

    def new_empty(self, shape, dtype=None):
        return FakeTensor(shape, dtype or self.dtype)

    def transpose(self, a, b):
        shape, strides = list(self.shape), list(self._strides)
        shape[a], shape[b] = shape[b], shape[a]
        strides[a], strides[b] = strides[b], strides[a]
        return FakeTensor(shape, self.dtype, strides, self._ptr)


def qkv(batch=2, seqlen=256, heads=4, kv_heads=4, head_dim=128, dtype=BF16):
    return (FakeTensor((batch, seqlen, heads, head_dim), dtype),
            FakeTensor((batch, seqlen, kv_heads, head_dim), dtype),
            FakeTensor((batch, seqlen, kv_heads, head_dim), dtype))


def check(q, k, v, **kwargs):
    lse = FakeTensor((q.shape[0], q.shape[2], q.shape[1]), F32)
    return warploom.op.attention(q, k, v, lse=lse, check_only=True, **kwargs)


def test_a_good_problem_passes_the_checks():
    assert check(*qkv()) is None
    assert check(*qkv(heads=8, kv_heads=2), causal=True, scale=0.1) is None  # GQA


def test_the_sdpa_layout_is_read_through_its_strides():
    q, k, v = (x.transpose(1, 2) for x in qkv())  # (B, H, S, D) views
    lse = FakeTensor((2, 4, 256), F32)
    assert warploom.op.attention(q, k, v, layout="bhsd", lse=lse, check_only=True) is None


def test_what_is_not_a_tensor_is_refused_by_name():
    q, k, v = qkv()
    with pytest.raises(TypeError, match="k .* is not a torch tensor"):
        check(q, [1, 2], v)


def test_dtypes_must_be_one_16_bit_type():
    q, k, v = qkv()
    with pytest.raises(TypeError, match="v's dtype float16 is not q's"):
        check(q, k, FakeTensor(v.shape, F16))
    with pytest.raises(TypeError, match="float32 is not one of float16, bfloat16"):
        check(*qkv(dtype=F32))


def test_shapes_must_agree():
    q, k, v = qkv()
    with pytest.raises(ValueError, match="q has 3 dimensions"):
        check(FakeTensor((2, 256, 512)), k, v)
    with pytest.raises(ValueError, match="batch and head_dim"):
        check(q, FakeTensor((3, 256, 4, 128)), FakeTensor((3, 256, 4, 128)))
    with pytest.raises(ValueError, match="must have one shape"):
        check(q, k, FakeTensor((2, 128, 4, 128)))
    with pytest.raises(ValueError, match="layout = 'sbhd'"):
        check(q, k, v, layout="sbhd")


def test_the_head_dimension_must_be_contiguous():
    q, k, v = qkv()
    strided = FakeTensor(q.shape, strides=(256 * 4 * 256, 4 * 256, 256, 2))
    with pytest.raises(ValueError, match="q's head_dim stride is 2"):
        check(strided, k, v)


def test_the_kernels_rules_come_back_by_name():
    with pytest.raises(ValueError, match="head_dim = 96"):
        check(*qkv(head_dim=96))
    with pytest.raises(ValueError, match="multiple of kv_heads = 3"):
        check(*qkv(heads=4, kv_heads=3))
    q, k, v = qkv()
    odd_rows = FakeTensor(q.shape, strides=(256 * 4 * 136, 4 * 136 + 4, 136, 1))  # 2-byte units
    with pytest.raises(ValueError, match="row_stride"):
        check(odd_rows, k, v)


def test_out_and_lse_must_fit():
    q, k, v = qkv()
    with pytest.raises(ValueError, match="out is"):
        warploom.op.attention(q, k, v, out=FakeTensor((2, 256, 4, 64)), check_only=True)
    with pytest.raises(ValueError, match="lse is"):
        warploom.op.attention(q, k, v, lse=FakeTensor((2, 256, 4), F32), check_only=True)


def test_the_schedule_is_chosen_by_name():
    for schedule in ("auto", "serial", "overlap", "pingpong"):
        assert check(*qkv(), schedule=schedule) is None
    for bad in ("fast", "Overlap", "", None, True, warploom._core.AttentionSchedule.overlap):
        with pytest.raises(ValueError, match="schedule must be one of auto, serial, overlap, "
                                             "pingpong"):
            check(*qkv(), schedule=bad)
    with pytest.raises(TypeError):  # the bools it replaced
        check(*qkv(), overlap_gemms=True)


def test_auto_runs_the_measured_fastest_schedule():
    core = warploom._core
    bf16, f16 = core.AttentionType.bf16, core.AttentionType.f16
    for causal in (False, True):
        # The minimal instance set (CI's) has bf16 head_dim 128 in every schedule: there the
        # overlap schedule, measured fastest; elsewhere too where it is built, else the serial one.
        assert core.attention_default_schedule(bf16, 128, causal) == core.AttentionSchedule.overlap
        # Keys of at most 1024 without the mask: the ping-pong, measured faster there.
        short = core.AttentionSchedule.overlap if causal else core.AttentionSchedule.pingpong
        assert core.attention_default_schedule(bf16, 128, causal, seqlen_k=512) == short
        assert core.attention_default_schedule(bf16, 128, causal, 2048) == \
            core.AttentionSchedule.overlap
        for kind in (bf16, f16):
            for head_dim in (64, 128, 256):
                fastest = core.AttentionSchedule.overlap
                expected = fastest if core.attention_instance_built(kind, head_dim, causal,
                                                                    fastest) \
                    else core.AttentionSchedule.serial
                assert core.attention_default_schedule(kind, head_dim, causal) == expected
        assert core.attention_instance_built(bf16, 128, causal)  # schedule auto
        for schedule in ("serial", "overlap", "pingpong"):
            assert core.attention_instance_built(bf16, 128, causal,
                                                 getattr(core.AttentionSchedule, schedule))
        # No build has the ping-pong at head_dim 256 (its warpgroups' registers do not hold it),
        # and none a kernel that attention_schedule_runs says does not exist.
        for kind in (bf16, f16):
            assert not core.attention_instance_built(kind, 256, causal,
                                                     core.AttentionSchedule.pingpong)
            for head_dim in (64, 128, 256):
                for schedule in ("auto", "serial", "overlap", "pingpong"):
                    s = getattr(core.AttentionSchedule, schedule)
                    runs = core.attention_schedule_runs(head_dim, s)
                    assert runs == (head_dim != 256 or schedule != "pingpong")
                    assert runs or not core.attention_instance_built(kind, head_dim, causal, s)
    assert not core.attention_schedule_runs(96, core.AttentionSchedule.overlap)


def test_the_kernel_shape_is_the_schedules_whatever_the_build():
    # What bench/python/attention.py records beside each timing and tools/attention_sweep_fit.py
    # counts tiles and blocks with (kernels/attention/sm90/shape.hpp, DefaultShape).
    core = warploom._core
    shape = core.attention_kernel_shape(128, False, core.AttentionSchedule.overlap)
    assert shape == {"block_m": 128, "block_n": 160, "stages": 2, "q_stages": 2,
                     "schedule_name": "sm90_ts_attention_overlap_d128_n160"}
    assert core.attention_kernel_shape(64, True, core.AttentionSchedule.overlap)["block_m"] == 192
    assert core.attention_kernel_shape(64, True, core.AttentionSchedule.pingpong)["block_m"] == 128
    with pytest.raises(ValueError, match="schedule = auto names no kernel"):
        core.attention_kernel_shape(128, True, core.AttentionSchedule.auto)
    with pytest.raises(ValueError, match="pingpong schedule does not run head_dim 256"):
        core.attention_kernel_shape(256, True, core.AttentionSchedule.pingpong)


# ---- on the GPU ----------------------------------------------------------------------------------


def reference(torch, q, k, v, causal, scale):
    """torch's SDPA in float32 on (B, S, H, D) tensors (K/V heads repeated for GQA), and the LSE."""
    group = q.shape[2] // k.shape[2]
    qf, kf, vf = (x.float().transpose(1, 2) for x in (q, k, v))  # (B, H, S, D)
    kf, vf = kf.repeat_interleave(group, dim=1), vf.repeat_interleave(group, dim=1)
    scores = qf @ kf.transpose(-1, -2) * scale
    if causal:
        sq, sk = scores.shape[-2:]
        keep = torch.ones(sq, sk, dtype=torch.bool, device=q.device).tril(sk - sq)
        scores = scores.masked_fill(~keep, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    out = torch.softmax(scores, dim=-1) @ vf
    return out.transpose(1, 2), lse


def random_qkv(torch, batch, seqlen_q, seqlen_k, heads, kv_heads, head_dim, dtype):
    make = lambda s, h: torch.rand(batch, s, h, head_dim, device="cuda") * 2 - 1  # noqa: E731
    return (make(seqlen_q, heads).to(dtype), make(seqlen_k, kv_heads).to(dtype),
            make(seqlen_k, kv_heads).to(dtype))


@pytest.mark.gpu
@pytest.mark.parametrize("schedule", ["auto", "serial", "overlap", "pingpong"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("heads,kv_heads", [(4, 4), (8, 2)])
def test_against_torch(cuda, causal, heads, kv_heads, schedule):
    torch = cuda
    if not warploom._core.attention_instance_built(warploom._core.AttentionType.bf16, 128, causal,
                                                   getattr(warploom._core.AttentionSchedule,
                                                           schedule)):
        pytest.skip(f"this build did not prebuild bf16 head_dim 128, schedule {schedule}")
    q, k, v = random_qkv(torch, 2, 300, 300, heads, kv_heads, 128, torch.bfloat16)
    out, lse = warploom.op.attention(q, k, v, causal=causal, schedule=schedule)
    want, want_lse = reference(torch, q, k, v, causal, 128 ** -0.5)
    torch.testing.assert_close(out.float(), want, atol=2e-2, rtol=0)
    torch.testing.assert_close(lse, want_lse, atol=1e-3, rtol=1e-4)


@pytest.mark.gpu
def test_the_sdpa_layout_and_the_torch_op(cuda):
    torch = cuda
    if not warploom._core.attention_instance_built(warploom._core.AttentionType.bf16, 128, False):
        pytest.skip("this build did not prebuild bf16 head_dim 128")
    # Not `import warploom.library`: that would bind `warploom` as a local of this function, and
    # its first use above would fail (UnboundLocalError).
    from warploom import library  # noqa: F401  (registers torch.ops.warploom)
    q, k, v = random_qkv(torch, 1, 256, 256, 4, 4, 128, torch.bfloat16)
    out, _ = warploom.op.attention(*(x.transpose(1, 2) for x in (q, k, v)), layout="bhsd")
    want = torch.nn.functional.scaled_dot_product_attention(
        *(x.transpose(1, 2).float() for x in (q, k, v)))
    torch.testing.assert_close(out.float(), want, atol=2e-2, rtol=0)
    op_out, op_lse = torch.ops.warploom.attention(q, k, v)
    torch.testing.assert_close(op_out.float(), want.transpose(1, 2), atol=2e-2, rtol=0)
    assert op_lse.shape == (1, 4, 256) and op_lse.dtype == torch.float32
    serial_out, _ = torch.ops.warploom.attention(q, k, v, schedule="serial")
    torch.testing.assert_close(serial_out.float(), want.transpose(1, 2), atol=2e-2, rtol=0)
    with pytest.raises(ValueError, match="schedule must be one of"):
        torch.ops.warploom.attention(q, k, v, schedule="fast")
