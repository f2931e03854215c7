"""Element types and layouts as users name them: warploom.DataType, torch and NumPy dtypes, strings.

Mapped by name, so that neither torch nor NumPy is imported to read their dtypes (importing
warploom imports neither): torch.float16 prints as "torch.float16", numpy.float16 is a class named
"float16", numpy.dtype("float16") has the name "float16", CuPy uses NumPy's dtypes, and
ml_dtypes' bfloat16 is named "bfloat16".
"""

from ._core import Broadcast, DataType, LayoutType, OpcodeClass

_ELEMENTS = {
    "f16": DataType.f16,
    "float16": DataType.f16,
    "bf16": DataType.bf16,
    "bfloat16": DataType.bf16,
    "f32": DataType.f32,
    "float32": DataType.f32,
    "f64": DataType.f64,
    "float64": DataType.f64,
    "e4m3": DataType.e4m3,
    "float8_e4m3fn": DataType.e4m3,
    "e5m2": DataType.e5m2,
    "float8_e5m2": DataType.e5m2,
}

_ACCEPTED = (
    "a warploom.DataType, or a torch or NumPy dtype (or its name) of float16, bfloat16, "
    "float32, float64, float8_e4m3fn or float8_e5m2"
)


def _name_of(x):
    if isinstance(x, str):
        return x
    if isinstance(x, type):  # numpy.float16, ml_dtypes.bfloat16: scalar type classes
        return x.__name__
    name = getattr(x, "name", None)  # numpy.dtype("float16")
    if isinstance(name, str):
        return name
    text = str(x)  # torch.float16 -> "torch.float16"
    return text[len("torch."):] if text.startswith("torch.") else text


def data_type(x, argument):
    """The DataType that `x` names; TypeError naming `argument` when it names none."""
    if isinstance(x, DataType):
        return x
    found = _ELEMENTS.get(_name_of(x))
    if found is None:
        raise TypeError(f"Gemm: {argument} = {x!r} is not a GEMM element type: give {_ACCEPTED}")
    return found


_LAYOUTS = {
    "RowMajor": LayoutType.RowMajor,
    "row_major": LayoutType.RowMajor,
    "ColumnMajor": LayoutType.ColumnMajor,
    "column_major": LayoutType.ColumnMajor,
}


def layout_type(x, argument):
    if isinstance(x, LayoutType):
        return x
    found = _LAYOUTS.get(x) if isinstance(x, str) else None
    if found is None:
        raise TypeError(
            f"Gemm: {argument} = {x!r} is not a layout: give warploom.LayoutType.RowMajor or "
            "ColumnMajor (or 'row_major', 'column_major')"
        )
    return found


# The seed's setter accepts snake-case strings too.
_OPCLASSES = {
    "auto": OpcodeClass.Auto,
    "tensor_op": OpcodeClass.TensorOp,
    "tensorop": OpcodeClass.TensorOp,
    "simt": OpcodeClass.Simt,
}


def opcode_class(x):
    if isinstance(x, OpcodeClass):
        return x
    found = _OPCLASSES.get(x.lower()) if isinstance(x, str) else None
    if found is None:
        raise TypeError(
            f"Gemm: opclass = {x!r} is not an operator class: give warploom.OpcodeClass.TensorOp, "
            "Simt or Auto (or 'tensor_op', 'simt', 'auto')"
        )
    return found


_BROADCASTS = {"row": Broadcast.PerRow, "column": Broadcast.PerColumn}


def broadcast(x):
    if isinstance(x, Broadcast):
        return x
    found = _BROADCASTS.get(x) if isinstance(x, str) else None
    if found is None:
        raise TypeError(
            f"Gemm.run: bias_broadcast = {x!r} is not a broadcast: give "
            "warploom.Broadcast.PerColumn (N values, a Linear layer's bias) or PerRow (M values), "
            "or 'column', 'row'"
        )
    return found
