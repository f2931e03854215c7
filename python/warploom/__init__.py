"""warploom: warp-specialized GPU kernels, verified; the GEMM plan API in Python.

    import warploom
    plan = warploom.op.Gemm(element=torch.float16, layout=warploom.LayoutType.RowMajor)
    plan.run(A, B, C, D)

The plan is the C++ one (warploom::ops, docs/ops.md), bound with nanobind (warploom._core);
docs/python.md is the guide. Importing warploom loads the library and nothing else: no compile,
no CUDA call, no file written, torch and NumPy left unimported.
"""

from . import _core
from ._core import (
    Activation,
    ConsumerDesign,
    DataType,
    GemmRun,
    LayoutType,
    OpcodeClass,
    TileDescription,
    TileSchedulerType,
)
from . import epilogue, op
from .op import Gemm

__version__ = "0.1.0"

__all__ = [
    "Activation",
    "ConsumerDesign",
    "DataType",
    "Gemm",
    "GemmRun",
    "LayoutType",
    "OpcodeClass",
    "TileDescription",
    "TileSchedulerType",
    "epilogue",
    "op",
]
