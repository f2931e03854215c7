"""Tensors without a GPU, torch or NumPy, for the CPU tests: objects that speak DLPack (a capsule
made with ctypes, as a framework's __dlpack__ returns it) or __array_interface__, with any shape,
strides, dtype and device. Their memory is never read: plans read example tensors' dtypes and
strides only, and the runs they take part in are refused before anything launches.
"""

import ctypes

DL_CPU, DL_CUDA = 1, 2
DL_FLOAT, DL_BFLOAT, DL_INT = 2, 4, 0
FLOAT8_E4M3FN = 10

# Each is (code, bits): the DLPack dtypes of the GEMM's element types.
DTYPES = {
    "f16": (DL_FLOAT, 16),
    "bf16": (DL_BFLOAT, 16),
    "f32": (DL_FLOAT, 32),
    "f64": (DL_FLOAT, 64),
    "e4m3": (FLOAT8_E4M3FN, 8),
    "i8": (DL_INT, 8),
    "u8": (1, 8),  # kDLUInt
}


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _Device),
        ("ndim", ctypes.c_int),
        ("dtype", _DataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _ManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _Tensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_NAME = b"dltensor"  # the capsule keeps a pointer to its name: module lifetime


class DlpackTensor:
    """A DLPack producer. `streams` records the stream each __dlpack__ call was given."""

    def __init__(self, shape, strides=None, dtype="f16", device=DL_CUDA, data=1 << 20):
        code, bits = DTYPES[dtype]
        self.shape = tuple(shape)
        self._shape = (ctypes.c_int64 * len(shape))(*shape)
        self._strides = None if strides is None else (ctypes.c_int64 * len(strides))(*strides)
        self._managed = _ManagedTensor()
        t = self._managed.dl_tensor
        t.data = data
        t.device = _Device(device, 0)
        t.ndim = len(shape)
        t.dtype = _DataType(code, bits, 1)
        t.shape = self._shape
        t.strides = self._strides
        self._device = device
        self.streams = []

    def __dlpack_device__(self):
        return (self._device, 0)

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        # No destructor: the memory is this object's, and the binding keeps it while it runs.
        return _capsule_new(ctypes.addressof(self._managed), _NAME, None)

    def t(self):
        """The transpose: the same memory, shape and strides swapped (as torch's .t())."""
        strides = self._strides[:] if self._strides is not None else [self.shape[1], 1]
        code = self._managed.dl_tensor.dtype
        name = next(k for k, v in DTYPES.items() if v == (code.code, code.bits))
        return DlpackTensor(self.shape[::-1], strides[::-1], name, self._device,
                            self._managed.dl_tensor.data)


class HostArray:
    """A NumPy-like host array: __array_interface__ over a ctypes buffer."""

    def __init__(self, shape, typestr="<f2", strides_bytes=None, read_only=False):
        self._buffer = ctypes.create_string_buffer(8 * max(1, _span(shape, strides_bytes, typestr)))
        self.__array_interface__ = {
            "version": 3,
            "data": (ctypes.addressof(self._buffer), read_only),
            "typestr": typestr,
            "shape": tuple(shape),
            "strides": None if strides_bytes is None else tuple(strides_bytes),
        }


def _span(shape, strides_bytes, typestr):
    size = int(typestr[2:])
    if strides_bytes is None:
        n = 1
        for extent in shape:
            n *= extent
        return n * size
    return size + sum((e - 1) * s for e, s in zip(shape, strides_bytes))
