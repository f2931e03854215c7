"""warploom: warp-specialized GPU kernels, verified; the GEMM plan API in Python.

    import warploom
    plan = warploom.op.Gemm(element=torch.float16, layout=warploom.LayoutType.RowMajor)
    plan.run(A, B, C, D)
    warploom.schedules()                  # every schedule this build verified (`warploom list`)
    print(warploom.verify("sm90_ts_gemm")[0])   # its schedule table and verdict (`warploom verify`)
    warploom.bench("gemm", shapes=[(4096, 4096, 4096)])   # `warploom bench`: its JSON report

The plan is the C++ one (warploom::ops, docs/ops.md), bound with nanobind (warploom._core);
docs/python.md is the guide. Importing warploom loads the library and nothing else: no compile,
no CUDA call, no file written, torch and NumPy left unimported.
"""

__version__ = "0.1.0"  # before the submodules: emit writes it into the files it generates

from . import _core
from ._core import (
    Activation,
    Broadcast,
    ConsumerDesign,
    DataType,
    GemmRun,
    LayoutType,
    OpcodeClass,
    TileDescription,
    TileScheduling,
    TileSchedulerType,
    Verdict,
    schedules,
    verify,
)
from . import emit, epilogue, op
from ._bench import bench
from .op import Gemm

__all__ = [
    "Activation",
    "bench",
    "Broadcast",
    "ConsumerDesign",
    "DataType",
    "Gemm",
    "GemmRun",
    "LayoutType",
    "OpcodeClass",
    "TileDescription",
    "TileScheduling",
    "TileSchedulerType",
    "Verdict",
    "emit",
    "epilogue",
    "op",
    "schedules",
    "verify",
]
