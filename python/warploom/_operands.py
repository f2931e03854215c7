"""Tensors and streams from Python frameworks, as the binding takes them.

A tensor becomes an (owner, descriptor) pair for warploom._core: the descriptor is the DLPack
capsule of a tensor in GPU memory (torch, CuPy, JAX ... through __dlpack__, made ready for the
run's stream), or the __array_interface__ of a host array (NumPy: the binding copies it to the GPU
and, for D, back), or the DLPack capsule of another framework's host tensor. The owner keeps the
memory alive until the run is waited for.

Nothing here imports torch or CuPy: a framework already imported is found in sys.modules when one
of its tensors is passed.
"""

import sys

# DLPack device types (dlpack.h, DLDeviceType).
_DL_CUDA = 2
_DL_CUDA_MANAGED = 13


# DLPack's (type code, bits) of each torch dtype a GEMM takes, by name (dlpack.h: kDLFloat 2,
# kDLBfloat 4, and DLPack 1.1's float8 codes kDLFloat8_e4m3fn 10, kDLFloat8_e5m2 12).
_TORCH_DLPACK_TYPES = {"float16": (2, 16), "bfloat16": (4, 16), "float32": (2, 32),
                       "float64": (2, 64), "float8_e4m3fn": (10, 8), "float8_e5m2": (12, 8)}


_FRAMEWORKS = {}  # a tensor's type -> its framework's top-level module name


def _framework(x):
    kind = type(x)
    framework = _FRAMEWORKS.get(kind)
    if framework is None:
        framework = _FRAMEWORKS[kind] = kind.__module__.partition(".")[0]
    return framework


def _dlpack(x, **stream):
    """x.__dlpack__(**stream); for a torch fp8 tensor that torch cannot export (DLPack had no
    float8 before 1.1), its bytes as uint8 with the type code beside them. A torch tensor that
    requires grad (a parameter; any tensor inside a custom op's autograd) is exported detached:
    torch refuses to export it otherwise, and the GEMM only reads or writes its memory."""
    if getattr(x, "requires_grad", False) and _framework(x) == "torch":
        x = x.detach()
    try:
        return x.__dlpack__(**stream)
    except (BufferError, RuntimeError, TypeError):
        name = str(getattr(x, "dtype", "")).removeprefix("torch.")
        if _framework(x) != "torch" or not name.startswith("float8_") or \
                name not in _TORCH_DLPACK_TYPES:
            raise
        code = _TORCH_DLPACK_TYPES[name][0]
        return (x.view(sys.modules["torch"].uint8).__dlpack__(**stream), code)


def stream_handle(stream, tensors):
    """(handle, owner): the CUDA stream a run launches on, as an integer handle (0: the legacy
    default stream), and the framework whose current stream it is ("torch", "cupy"; None when the
    caller named the stream or none was found).

    `stream` as given: an int, a torch.cuda.Stream (.cuda_stream), a CuPy stream (.ptr) or any
    object with __cuda_stream__ (the CUDA stream protocol); None: the current stream of the first
    torch (or CuPy) tensor among `tensors`, else the legacy default stream.
    """
    if stream is None:
        for x in tensors:
            framework = _framework(x)
            if framework == "torch" and getattr(x, "is_cuda", False):
                return _torch_current_stream(sys.modules["torch"], x), framework
            if framework == "cupy":
                return sys.modules["cupy"].cuda.get_current_stream().ptr, framework
        return 0, None
    return _named_stream(stream), None


_RAW_STREAM = (None, None)  # (the torch module, its current-raw-stream function or None)


def _raw_stream_query(torch):
    """torch._C._cuda_getCurrentRawStream (device index -> torch's current stream there, what
    torch.compile's generated code calls), or None where this torch has none."""
    return getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)


def _torch_current_stream(torch, x):
    """torch's current stream on x's device, as a handle: the raw query (_raw_stream_query) where
    it exists, a fraction of the public torch.cuda.current_stream(device), which makes a Stream
    object in Python."""
    global _RAW_STREAM
    if _RAW_STREAM[0] is not torch:
        _RAW_STREAM = (torch, _raw_stream_query(torch))
    raw = _RAW_STREAM[1]
    if raw is not None:
        return raw(x.get_device())
    return torch.cuda.current_stream(x.device).cuda_stream


def _named_stream(stream):
    if isinstance(stream, int):
        return stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        return int(protocol()[1])
    for attribute in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy.cuda.Stream
        handle = getattr(stream, attribute, None)
        if isinstance(handle, int):
            return handle
    raise TypeError(
        f"Gemm.run: stream = {stream!r} is not a CUDA stream: give an int handle, a "
        "torch.cuda.Stream, a CuPy stream or an object with __cuda_stream__"
    )


def _not_a_tensor(x, name):
    return TypeError(
        f"Gemm.run: argument `{name}` ({type(x).__module__}.{type(x).__qualname__}) is not a "
        "tensor: give a DLPack producer (torch, CuPy, JAX ...) or a NumPy array"
    )


_TORCH = (None, None)  # (the torch module warploom._core has the types of, _core.TORCH_VIEW)


def _torch_tag(torch):
    """The descriptor of a torch CUDA tensor on torch's current stream: a tag, for the binding to
    read its pointer, shape, strides, type and device attribute by attribute (python/src/
    operands.cpp, describe_torch), a fraction of a microsecond where __dlpack__ costs several.
    torch's dtype table, torch.strided and the DLPack export (for what the reads do not describe:
    another layout, a dtype outside the table, which DLPack exports or refuses with torch's own
    message) are handed to the binding the first time."""
    global _TORCH
    if _TORCH[0] is not torch:
        from . import _core  # not at import: the CPU tests import this module without the binding
        _core.register_torch({getattr(torch, name): code
                              for name, code in _TORCH_DLPACK_TYPES.items() if hasattr(torch, name)},
                             getattr(torch, "strided", None), lambda x: _dlpack(x, stream=-1),
                             getattr(torch, "Tensor", None), _raw_stream_query(torch))
        _TORCH = (torch, _core.TORCH_VIEW)
    return _TORCH[1]


def run_operand(x, name, handle, owner=None):
    """(x, descriptor) for a run on stream `handle`, the current stream of framework `owner`
    (stream_handle)."""
    if owner == "torch" and _framework(x) == "torch" and getattr(x, "is_cuda", False):
        # The common case first, without torch's __dlpack_device__ (a Python method, microseconds
        # a call): a torch CUDA tensor on torch's current stream (see below), read by the binding.
        return (x, _torch_tag(sys.modules["torch"]))
    device = getattr(x, "__dlpack_device__", None)
    kind = device()[0] if device is not None else None
    if kind in (_DL_CUDA, _DL_CUDA_MANAGED):
        # DLPack's stream argument: the consumer's stream, which the producer makes wait for the
        # tensor's pending work (torch records an event on its current stream when they differ).
        # 0 is not allowed there; 1 is the legacy default stream. On the producer's own current
        # stream the run comes after that work already: -1 asks for no synchronization, which is
        # what torch would decide, without its check (a torch.cuda.ExternalStream made and
        # compared with the current stream, per tensor, in Python).
        if owner is not None and _framework(x) == owner:
            return (x, _dlpack(x, stream=-1))
        return (x, _dlpack(x, stream=handle if handle != 0 else 1))
    interface = getattr(x, "__array_interface__", None)
    if interface is not None:
        return (x, interface)
    if device is not None:
        return (x, _dlpack(x))
    raise _not_a_tensor(x, name)


def example_operand(x, name, handle=None, owner=None):
    """(x, descriptor) of an example tensor: only its dtype and strides are read (`handle` and
    `owner` are run_operand's, unused: the two are called alike)."""
    device = getattr(x, "__dlpack_device__", None)
    if device is not None and device()[0] in (_DL_CUDA, _DL_CUDA_MANAGED):
        return (x, _dlpack(x, stream=-1))  # -1: no synchronization, nothing is read
    interface = getattr(x, "__array_interface__", None)
    if interface is not None:
        return (x, interface)
    if device is not None:
        return (x, _dlpack(x))
    raise _not_a_tensor(x, name)
