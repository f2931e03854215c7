"""warploom.op.Gemm without a GPU: plans made for cc=90, how element types and layouts resolve
(tensors > per-operand > generic), dtypes named by torch, NumPy and strings, the operator class,
tile descriptions, activations, and every refusal as the Python exception that carries the C++
message naming the argument. Example tensors are fake DLPack producers and host arrays
(fake_tensors.py); runs are refused before anything launches."""

import ctypes
import os
import sys

import pytest

import warploom
from warploom import DataType, LayoutType, OpcodeClass

from fake_tensors import DL_CUDA, DlpackTensor, HostArray

Row, Col = LayoutType.RowMajor, LayoutType.ColumnMajor


def plan(**kwargs):
    kwargs.setdefault("cc", 90)
    return warploom.op.Gemm(**kwargs)


# ---- Declaring a plan ------------------------------------------------------------------------


def test_generic_element_and_layout():
    p = plan(element=DataType.f16, layout=Row)
    assert (p.element_A, p.element_B, p.element_C, p.element_D) == (DataType.f16,) * 4
    assert p.element_accumulator == DataType.f32
    assert (p.layout_A, p.layout_B, p.layout_C, p.layout_D) == (Row,) * 4
    assert p.cc == 90
    assert p.opclass == OpcodeClass.TensorOp
    assert repr(p) == (
        "warploom.op.Gemm fp16 x fp16 -> fp16 (row-major A, row-major B, row-major C and D; "
        "fp32 accumulation), tensor-op, sm_90a"
    )


class _NumpyLikeType:  # numpy.float16 is a class whose __name__ names the type
    pass


class _TorchLikeDtype:  # torch.bfloat16 prints as "torch.bfloat16" and has no .name
    def __str__(self):
        return "torch.bfloat16"


class _NumpyLikeDtype:  # numpy.dtype("float32").name
    name = "float32"


@pytest.mark.parametrize(
    "element, expected",
    [
        ("float16", DataType.f16),
        ("f16", DataType.f16),
        ("bfloat16", DataType.bf16),
        (type("float16", (_NumpyLikeType,), {}), DataType.f16),
        (_TorchLikeDtype(), DataType.bf16),
        (_NumpyLikeDtype(), DataType.f32),
        ("float64", DataType.f64),
    ],
)
def test_elements_by_name(element, expected):
    assert plan(element=element, layout=Row).element_A == expected


def test_fp8_inputs_by_name():
    # fp8 is an input type only: D is bf16, fp16 or fp32.
    p = plan(element_A="float8_e4m3fn", element_B="e4m3", element_C="bf16", layout_A=Row,
             layout_B=Col, layout_C=Row)
    assert (p.element_A, p.element_B, p.element_D) == (DataType.e4m3, DataType.e4m3, DataType.bf16)
    assert p.opclass == OpcodeClass.TensorOp


def test_real_framework_dtypes_when_installed():
    np = pytest.importorskip("numpy")
    assert plan(element=np.float16, layout=Row).element_A == DataType.f16
    assert plan(element=np.dtype("float32"), layout=Row).element_A == DataType.f32


def test_per_operand_overrides_generic():
    p = plan(element="bf16", layout=Row, element_D="f32", layout_B=Col)
    assert (p.element_A, p.element_B, p.element_C, p.element_D) == (
        DataType.bf16, DataType.bf16, DataType.f32, DataType.f32)  # C follows D
    assert (p.layout_A, p.layout_B, p.layout_D) == (Row, Col, Row)


def test_example_tensors_override_everything_and_show_their_layout():
    a = DlpackTensor((64, 32), dtype="bf16")
    bt = DlpackTensor((64, 32), dtype="bf16")  # B^T row-major: B (32 x 64) is column-major
    d = DlpackTensor((64, 64), dtype="bf16")
    p = plan(A=a, B=bt.t(), C=d, D=d, element="f16", layout=Row)
    assert (p.element_A, p.element_B, p.element_D) == (DataType.bf16,) * 3
    assert (p.layout_A, p.layout_B, p.layout_D) == (Row, Col, Row)
    assert a.streams == [-1]  # read without synchronizing: nothing is read


def test_fp8_bytes_exported_as_uint8_are_retyped():
    # torch versions whose DLPack has no float8 export fp8 tensors' bytes as uint8; the package
    # then hands the binding (capsule, type code) (warploom/_operands.py).
    u8 = DlpackTensor((64, 32), dtype="u8")
    view = warploom._core.example_view((u8, (u8.__dlpack__(), 10)), "a")
    assert view.dtype == DataType.e4m3 and (view.rows, view.cols) == (64, 32)
    with pytest.raises(ValueError, match="internal error: a retyped tensor must come as uint8"):
        f16 = DlpackTensor((64, 32))
        warploom._core.example_view((f16, (f16.__dlpack__(), 10)), "a")


def test_host_arrays_as_example_tensors():
    a = HostArray((16, 8), "<f4", strides_bytes=(4, 64))  # a transposed (Fortran-order) array
    p = plan(A=a, element="f32", layout=Row)
    assert p.element_A == DataType.f32
    assert p.layout_A == Col
    assert p.opclass == OpcodeClass.Simt  # fp32: the SIMT GEMM


def test_a_tensor_and_its_own_element_that_disagree_are_a_type_error():
    with pytest.raises(TypeError, match="example tensor a is fp16 but element_a = bf16"):
        plan(A=DlpackTensor((16, 64)), element_A="bf16", element="f16", layout=Row)
    with pytest.raises(ValueError, match="example tensor a is row-major but layout_a = column-major"):
        plan(A=DlpackTensor((16, 64)), element="f16", layout=Row, layout_A=Col)


def test_missing_types_and_layouts_are_named():
    with pytest.raises(ValueError, match="no element type for A"):
        plan(layout=Row)
    with pytest.raises(ValueError, match="no layout for B"):
        plan(element="f16", layout_A=Row, layout_C=Row)


def test_c_and_d_share_type_and_layout():
    with pytest.raises(ValueError, match="C and D share one element type"):
        plan(element="f16", layout=Row, element_C="f16", element_D="f32")


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(element="int8"), TypeError, "element = 'int8' is not a GEMM element type"),
        (dict(element=float), TypeError, "is not a GEMM element type"),
        (dict(element="f16", layout="diagonal"), TypeError, "layout = 'diagonal' is not a layout"),
        (dict(element="f16", element_accumulator="f16"), ValueError,
         "no kernel of this build accumulates in fp16"),
        (dict(element="f16", opclass="magic"), TypeError, "is not an operator class"),
        (dict(element="f16", cc=86), ValueError, "cc = 86 is not an architecture"),
        (dict(element="f16", cc=80), ValueError, "compiled for sm_90a only"),
        (dict(element_A="bf16", element_B="f16", element_C="bf16"), ValueError,
         "no kernel runs bf16 x fp16"),
    ],
)
def test_refusals_name_the_argument(kwargs, error, message):
    kwargs.setdefault("layout", Row)
    with pytest.raises(error, match=message):
        plan(**kwargs)


def test_example_tensors_that_are_no_gemm_operand():
    with pytest.raises(TypeError, match=r"dtype \(code 0, bits 8, lanes 1\) is not a GEMM element"):
        plan(A=DlpackTensor((16, 16), dtype="i8"), element="f16", layout=Row)
    with pytest.raises(TypeError, match="host array of dtype '<i4'"):
        plan(A=HostArray((16, 16), "<i4"), element="f16", layout=Row)
    with pytest.raises(ValueError, match="ndim = 1"):
        plan(A=DlpackTensor((16,)), element="f16", layout=Row)
    with pytest.raises(TypeError, match="is not a tensor"):
        plan(A=[[1.0]], element="f16", layout=Row)


# ---- Operator class ----------------------------------------------------------------------------


def test_auto_takes_the_tensor_cores_else_simt():
    assert plan(element="bf16", layout=Row).opclass == OpcodeClass.TensorOp
    assert plan(element="f32", layout=Row).opclass == OpcodeClass.Simt
    assert plan(element="f64", layout=Row).element_accumulator == DataType.f64


def test_opclass_switches_by_enum_or_name_and_tensor_op_is_refused_where_it_cannot_run():
    p = plan(element="f16", layout=Row)
    p.opclass = "simt"
    assert p.opclass == OpcodeClass.Simt
    p.opclass = OpcodeClass.TensorOp
    assert p.opclass == OpcodeClass.TensorOp
    with pytest.raises(ValueError, match="opclass = tensor-op: the tensor cores do not run fp32"):
        plan(element="f32", layout=Row, opclass=OpcodeClass.TensorOp)


# ---- Configurations ------------------------------------------------------------------------------


def bf16_tn():
    return plan(element="bf16", layout_A=Row, layout_B=Col, layout_C=Row)


def test_tile_descriptions_lead_with_the_default_and_print_readably():
    tds = bf16_tn().tile_descriptions()
    assert len(tds) >= 2
    assert str(tds[0]) == (
        "cooperative 128x256x64, 4 stages, 2 staging buffers, cluster 1x1, raster panel 8")
    assert repr(tds[0]).startswith("TileDescription(cooperative 128x256x64")
    assert tds[0].threadblock_shape == [128, 256, 64]
    assert tds[0].cluster_shape == [1, 1, 1]
    assert tds[0].opclass == OpcodeClass.TensorOp
    assert tds[0].design == warploom.ConsumerDesign.Cooperative
    assert any(td.design == warploom.ConsumerDesign.PingPong for td in tds)
    assert len(set(str(td) for td in tds)) == len(tds)


def test_simt_plans_list_the_simt_shape():
    (td,) = plan(element="f32", layout=Row).tile_descriptions()
    assert str(td) == "simt 128x128x32, 3 stages, raster panel 8"


def test_descriptions_copy_compare_and_edit():
    td = bf16_tn().tile_descriptions()[0]
    copy = warploom.TileDescription(td)
    assert copy == td
    copy.stages = 8
    assert copy != td and td.stages == 4


def test_stages_that_do_not_fit_are_refused_with_the_numbers():
    # The seed's shared-memory example: td.stages = 8; plan.compile(td).
    p = bf16_tn()
    td = p.tile_descriptions()[0]
    td.stages = 8
    with pytest.raises(ValueError, match="do not fit shared memory.*bytes"):
        p.compile(td)


def test_stream_k_is_listed_on_the_cooperative_design_and_refused_elsewhere():
    p = bf16_tn()
    stream_k = [td for td in p.tile_descriptions()
                if td.scheduler == warploom.TileSchedulerType.StreamK]
    assert stream_k and all(td.design == warploom.ConsumerDesign.Cooperative for td in stream_k)
    td = stream_k[0]
    td.cluster_m = 2
    with pytest.raises(ValueError, match="stream-k runs 1x1 clusters"):
        p.compile(td)


def test_compiling_a_prebuilt_configuration_compiles_nothing(monkeypatch):
    monkeypatch.setenv("WARPLOOM_JIT", "0")  # a compile would raise: it must be found prebuilt
    p = bf16_tn()
    td = p.tile_descriptions()[0]
    assert p.is_prebuilt(td)
    td.raster_panel = 4  # a run-time knob: the same instance
    p.compile(td)
    assert p.tile_description == td
    p.compile()
    assert p.tile_description is None


def test_source_is_the_generated_instance(capsys):
    p = bf16_tn()
    assert "bf16_bf16_tn_cooperative_s4_b2_1x1" in p.source()
    p.print_module(p.tile_descriptions()[0])
    assert "bf16_bf16_tn_cooperative_s4_b2_1x1" in capsys.readouterr().out


# ---- The epilogue --------------------------------------------------------------------------------


def test_every_activation_the_seed_names_and_gelu_tanh():
    names = [a.name for a in warploom.op.Gemm.activations()]
    assert names == ["identity", "relu", "leaky_relu", "gelu", "gelu_tanh", "hardswish",
                     "sigmoid", "silu", "tanh"]
    assert warploom.epilogue.get_activations() == warploom.op.Gemm.activations()
    for name in names:
        assert getattr(warploom.epilogue, name).name == name


def test_activation_by_value_name_or_with_its_slope():
    p = plan(element="f16", layout=Row)
    assert p.activation == warploom.epilogue.identity
    p.activation = warploom.epilogue.relu
    assert p.activation == warploom.epilogue.relu
    p.activation = "silu"
    assert p.activation == warploom.epilogue.silu
    p.activation = (warploom.epilogue.leaky_relu, 0.2)
    assert p.activation == warploom.epilogue.leaky_relu
    assert p._plan.leaky_slope == pytest.approx(0.2)
    with pytest.raises(ValueError, match="'swish' is not an activation"):
        p.activation = "swish"
    with pytest.raises(TypeError, match="give a warploom.epilogue activation"):
        p.activation = 3


# ---- Running (refused before anything launches) ----------------------------------------------


def test_run_needs_its_tensors():
    p = plan(element="f16", layout=Row)
    with pytest.raises(ValueError, match="tensor A must be set"):
        p.run()
    with pytest.raises(TypeError, match="argument `b` .* is not a tensor"):
        p.run(DlpackTensor((64, 64)), "B", None, DlpackTensor((64, 64)))
    with pytest.raises(TypeError, match="stream = 'fast' is not a CUDA stream"):
        p.run(DlpackTensor((64, 64)), DlpackTensor((64, 64)), None, DlpackTensor((64, 64)),
              stream="fast")


class _Stream:
    def __cuda_stream__(self):
        return (0, 1234)


@pytest.mark.parametrize("stream, expected", [(None, 1), (0, 1), (77, 77), (_Stream(), 1234)])
def test_run_hands_its_stream_to_dlpack(stream, expected):
    # B is fp32 in an fp16 plan: on a machine with a GPU the run is refused there (TypeError),
    # without one at the device check (ValueError); either way after the DLPack exchange and before
    # any launch. DLPack's stream 1 is the legacy default stream (0 is not allowed there).
    a, b, d = DlpackTensor((64, 64)), DlpackTensor((64, 64), dtype="f32"), DlpackTensor((64, 64))
    with pytest.raises((TypeError, ValueError)):
        plan(element="f16", layout=Row).run(a, b, None, d, stream=stream)
    assert a.streams == b.streams == d.streams == [expected]


class _TorchLike(DlpackTensor):
    """A producer whose framework is "torch" (its module's name), on device 0."""

    is_cuda = True
    device = 0

    def get_device(self):
        return 0


_TorchLike.__module__ = "torch.fake"


def test_a_run_on_the_producers_current_stream_asks_no_synchronization(monkeypatch):
    # stream=None runs on the tensors' framework's current stream, after their pending work by
    # stream order: __dlpack__ gets -1 (no synchronization), which torch would decide itself after a
    # slower check of its own. A stream the caller names is still handed over.
    current = type("Stream", (), {"cuda_stream": 4242})()
    cuda = type("Cuda", (), {"current_stream": staticmethod(lambda device: current)})
    monkeypatch.setitem(sys.modules, "torch", type("Torch", (), {"cuda": cuda}))
    for stream, expected in ((None, -1), (77, 77)):
        a, d = _TorchLike((64, 64)), _TorchLike((64, 64))
        b = _TorchLike((64, 64), dtype="f32")
        with pytest.raises((TypeError, ValueError)):
            plan(element="f16", layout=Row).run(a, b, None, d, stream=stream)
        assert a.streams == b.streams == d.streams == [expected]


class _FakeTorchTensor:
    """What the view path reads of a torch CUDA tensor; __dlpack__ records that it was asked."""

    is_cuda = True

    def __init__(self, torch, shape, dtype):
        self.shape, self.dtype, self.layout = shape, dtype, torch.strided
        self.device = type("Device", (), {"index": 0})()
        self.exported = False

    def data_ptr(self):
        return 1 << 20

    def get_device(self):
        return 0

    def stride(self):
        return (self.shape[-1], 1)[-len(self.shape):]

    def __dlpack_device__(self):
        return (DL_CUDA, 0)

    def __dlpack__(self, stream=None):
        self.exported = True
        raise AssertionError("the view path exports nothing")


_FakeTorchTensor.__module__ = "torch.fake"


def test_torch_tensors_on_their_stream_are_read_as_views(monkeypatch):
    # Pointer, shape, strides, type and device read directly (DLPack's export costs microseconds
    # per tensor): the C++ side checks the view like a DLPack tensor, and a 1-D A is refused there
    # by name, before any device is needed.
    current = type("Stream", (), {"cuda_stream": 4242})()
    cuda = type("Cuda", (), {"current_stream": staticmethod(lambda device: current)})
    torch = type("Torch", (), {"cuda": cuda, "strided": object(), "float16": object()})
    monkeypatch.setitem(sys.modules, "torch", torch)
    a = _FakeTorchTensor(torch, (64,), torch.float16)
    b, d = (_FakeTorchTensor(torch, (64, 64), torch.float16) for _ in range(2))
    with pytest.raises(ValueError, match="a: ndim = 1"):
        plan(element="f16", layout=Row).run(a, b, None, d)
    assert not (a.exported or b.exported or d.exported)


def test_a_torch_tensor_the_binding_cannot_read_goes_through_dlpack(monkeypatch):
    # A dtype outside torch's table (or a layout other than strided): the binding hands the tensor
    # back to its DLPack export (here a stand-in that records being asked, then refuses).
    current = type("Stream", (), {"cuda_stream": 4242})()
    cuda = type("Cuda", (), {"current_stream": staticmethod(lambda device: current)})
    torch = type("Torch", (), {"cuda": cuda, "strided": object(), "float16": object()})
    monkeypatch.setitem(sys.modules, "torch", torch)
    a = _FakeTorchTensor(torch, (64, 64), object())  # a dtype the table lacks
    b, d = (_FakeTorchTensor(torch, (64, 64), torch.float16) for _ in range(2))
    with pytest.raises(AssertionError, match="the view path exports nothing"):
        plan(element="f16", layout=Row).run(a, b, None, d)
    assert a.exported and not b.exported


def test_torch_cuda_tensors_go_to_the_binding_without_python_per_operand(monkeypatch):
    # Gemm.run's fast path (no stream named, no epilogue tensors): once torch is registered, the
    # binding checks that every tensor is a torch.Tensor on the GPU, asks torch's raw stream query
    # for A's device and reads the tensors as views — the Python side describes nothing. A 1-D A
    # is still refused by name; a tensor that is not torch's takes the general path.
    asked = []
    raw = type("C", (), {"_cuda_getCurrentRawStream":
                         staticmethod(lambda device: asked.append(device) or 4242)})
    cuda = type("Cuda", (), {})
    torch = type("Torch", (), {"cuda": cuda, "strided": object(), "float16": object(), "_C": raw})
    torch.Tensor = type("Tensor", (_FakeTorchTensor,), {"__module__": "torch.fake"})
    monkeypatch.setitem(sys.modules, "torch", torch)
    a = torch.Tensor(torch, (64,), torch.float16)
    b, d = (torch.Tensor(torch, (64, 64), torch.float16) for _ in range(2))
    p = plan(element="f16", layout=Row)
    with pytest.raises(ValueError, match="a: ndim = 1"):
        p.run(a, b, None, d)  # the first run registers torch (the general path)

    def python_path(*args):
        raise AssertionError("the Python side described the operands")

    monkeypatch.setattr(warploom.op, "stream_handle", python_path)
    asked.clear()
    with pytest.raises(ValueError, match="a: ndim = 1"):
        p.run(a, b, None, d)
    assert asked == [0] and not (a.exported or b.exported or d.exported)
    with pytest.raises(AssertionError, match="the Python side described"):
        p.run(a, b, None, DlpackTensor((64, 64)))


def test_tensors_given_to_the_plan_are_the_runs_defaults():
    a, d = DlpackTensor((64, 64)), DlpackTensor((64, 64))
    p = plan(A=a, B=a, D=d)
    with pytest.raises((TypeError, ValueError)):
        p.run(B=DlpackTensor((64, 64), dtype="f32"))
    assert a.streams == [-1, -1, 1] and d.streams == [-1, 1]


def test_no_device_is_named_at_run():
    if os.path.exists("/dev/nvidia0"):
        pytest.skip("a GPU is present")
    a = DlpackTensor((64, 64))
    with pytest.raises(ValueError, match="Gemm.run: no usable CUDA device|Gemm.run: no CUDA device"):
        plan(element="f16", layout=Row).run(a, a, None, a)


def test_no_device_and_no_cc_names_the_argument_that_plans_without_one():
    if os.path.exists("/dev/nvidia0"):
        pytest.skip("a GPU is present")
    with pytest.raises(ValueError, match=r"no architecture to plan for: .*cc=90 in Python"):
        warploom.op.Gemm(element="f16", layout=Row)


def test_the_cpp_timing_hook_refuses_fewer_than_one_call():
    # bench/python/linear_and_overhead.py times ops::Gemm::run in C++ through it; zero calls would
    # divide by zero.
    p = plan(element=DataType.f16, layout=Row)
    with pytest.raises(ValueError, match="calls = 0 must be at least 1"):
        p._plan.host_us_of_cpp_runs("a", "b", None, "d", 1.0, 0.0, 0, 0)


# DLPack 1.3's exchange API table as ctypes sees it (dlpack.h: DLTensor, DLPackExchangeAPI).
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_FROM_PY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(_DLTensor))
_STREAM = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int32,
                           ctypes.POINTER(ctypes.c_void_p))


class _ExchangeApi(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("prev", ctypes.c_void_p),
                ("allocator", ctypes.c_void_p), ("from_py_managed", ctypes.c_void_p),
                ("to_py_managed", ctypes.c_void_p), ("from_py", _FROM_PY), ("stream", _STREAM)]


def _exchange_api(calls):
    """(capsule, keep-alive): an exchange API whose calls append to `calls` — it describes a 2-D
    fp16 CUDA tensor of the object's .shape (a 1-D one refused by the plan), and names stream 777
    — in a capsule named as dlpack.h asks."""
    keep = []

    def from_py(obj, out):
        tensor = ctypes.cast(obj, ctypes.py_object).value
        calls.append("describe")
        shape = (ctypes.c_int64 * len(tensor.shape))(*tensor.shape)
        keep.append(shape)
        out.contents.data = 1 << 20
        out.contents.device = _DLDevice(2, 0)
        out.contents.ndim = len(tensor.shape)
        out.contents.dtype = _DLDataType(2, 16, 1)
        out.contents.shape = shape
        out.contents.strides = None
        out.contents.byte_offset = 0
        return 0

    def stream(device_type, device_id, out):
        calls.append(f"stream({device_type},{device_id})")
        out[0] = 777
        return 0

    api = _ExchangeApi(1, 3, None, None, None, None, _FROM_PY(from_py), _STREAM(stream))
    name = b"dlpack_exchange_api"
    new = ctypes.pythonapi.PyCapsule_New
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p,
                                                   ctypes.c_void_p]
    return new(ctypes.addressof(api), name, None), (api, name, keep)


def test_torch_tensors_are_described_through_the_dlpack_exchange_api(monkeypatch):
    # torch.Tensor.__dlpack_c_exchange_api__ (DLPack 1.3): one C call describes a tensor and one
    # names the current stream, where the attribute reads would take six calls per tensor. The
    # tensors here refuse every attribute read but those the fast path's type check makes.
    calls = []
    capsule, keep = _exchange_api(calls)

    class Tensor:
        is_cuda = True
        __dlpack_c_exchange_api__ = capsule

        def __init__(self, shape):
            self.shape = shape

        def get_device(self):
            return 0

        def __getattr__(self, name):
            raise AssertionError(f"read `{name}` instead of using the exchange API")

    Tensor.__module__ = "torch.fake"
    raw = type("C", (), {"_cuda_getCurrentRawStream": staticmethod(lambda device: 4242)})
    torch = type("Torch", (), {"cuda": type("Cuda", (), {}), "strided": object(),
                               "float16": object(), "_C": raw, "Tensor": Tensor})
    monkeypatch.setitem(sys.modules, "torch", torch)
    if os.path.exists("/dev/nvidia0"):
        pytest.skip("a GPU is present: the run would launch on the fake pointers")
    p = plan(element="f16", layout=Row)
    a, b, d = (Tensor((64, 64)) for _ in range(3))
    no_device = "Gemm.run: no usable CUDA device|Gemm.run: no CUDA device"
    with pytest.raises(ValueError, match=no_device):
        p.run(a, b, None, d)  # registers torch (the general path, its tensors described alike)
    calls.clear()
    with pytest.raises(ValueError, match=no_device):  # every operand described, then no device
        p.run(a, b, None, d)
    assert calls == ["stream(2,0)", "describe", "describe", "describe"]
    assert keep  # the table and its callbacks outlive the runs
