"""warploom.op.Gemm: a GEMM plan, as the CUTLASS Python interface's cutlass.op.Gemm.

    import torch, warploom
    plan = warploom.op.Gemm(element=torch.float16, layout=warploom.LayoutType.RowMajor,
                            element_accumulator=torch.float32)
    plan.run(A, B, C, D)                        # D = A @ B (alpha 1, beta 0), on torch's stream
    plan.opclass = warploom.OpcodeClass.Simt    # the SIMT GEMM, same call
    td = plan.tile_descriptions()[1]
    plan.compile(td)                            # validated and obtained now; no run compiles
    plan.run(A, B, C, D, alpha=1.0, beta=2.0)

Everything is the C++ plan (warploom::ops::Gemm, docs/ops.md): the rules, the configurations and
every message. This class adds the Python side: dtypes by name, tensors through DLPack or
__array_interface__, the stream, tensors remembered from construction, print_module.
"""

import sys

from . import _core
from ._attention import attention
from ._core import Activation, Broadcast, OpcodeClass
from ._dtypes import broadcast, data_type, layout_type, opcode_class
from ._operands import example_operand, run_operand, stream_handle

_ARCHES = {80: _core.Arch.Sm80, 90: _core.Arch.Sm90, 100: _core.Arch.Sm100}
_CC = {arch: cc for cc, arch in _ARCHES.items()}
_DESCRIBE_ONLY = object()  # Gemm._operands' stream for check()
_NO_EPILOGUE = _core.EpilogueOperands()  # no epilogue tensors (the binding only reads it)
_PER_COLUMN = Broadcast.PerColumn  # a nanobind enum's attribute costs 0.3 us a lookup


class Gemm:
    """D = activation(alpha * (A @ B) + beta * C): A is M x K, B K x N, C and D M x N (or batches
    of them).

    Each operand's element type and layout come from, in this order: its example tensor (A, B, C,
    D), its own element_X / layout_X, the generic element / layout. A tensor and an element_X that
    disagree are refused (TypeError); C and D share one type and layout. Elements are
    warploom.DataType values, torch or NumPy dtypes, or their names. element_accumulator is fp32
    (fp64 for fp64 inputs), the only accumulators the kernels have. `cc`: the compute capability
    to plan for (90); unset, the current device's (the plan then needs one).
    """

    def __init__(self, A=None, B=None, C=None, D=None, alpha=1.0, beta=0.0,
                 element_accumulator=None, element=None, layout=None,
                 element_A=None, element_B=None, element_C=None, element_D=None,
                 layout_A=None, layout_B=None, layout_C=None, layout_D=None,
                 opclass=OpcodeClass.Auto, cc=None):
        o = _core.GemmOptions()
        if element is not None:
            o.element = data_type(element, "element")
        if layout is not None:
            o.layout = layout_type(layout, "layout")
        for field, value in (("element_a", element_A), ("element_b", element_B),
                             ("element_c", element_C), ("element_d", element_D),
                             ("element_accumulator", element_accumulator)):
            if value is not None:
                setattr(o, field, data_type(value, field))
        for field, value in (("layout_a", layout_A), ("layout_b", layout_B),
                             ("layout_c", layout_C), ("layout_d", layout_D)):
            if value is not None:
                setattr(o, field, layout_type(value, field))
        for field, tensor in (("a", A), ("b", B), ("c", C), ("d", D)):
            if tensor is not None:
                setattr(o, field, _core.example_view(example_operand(tensor, field), field))
        o.opclass = opcode_class(opclass)
        if cc is not None:
            if cc not in _ARCHES:
                raise ValueError(
                    f"Gemm: cc = {cc!r} is not an architecture warploom plans for: 80, 90 or 100 "
                    "(this build's kernels run on 90)"
                )
            o.arch = _ARCHES[cc]
        self._plan = self._make(o)
        # The seed's run() falls back to the tensors and scalars given here.
        self._tensors = {"A": A, "B": B, "C": C, "D": D}
        self.alpha = alpha
        self.beta = beta

    def _make(self, options):
        """The C++ plan for `options` (GroupedGemm keeps its own around one)."""
        return _core.Gemm(options)

    # ---- What the plan is --------------------------------------------------------------------

    def __repr__(self):
        return f"warploom.op.{self._plan.describe()}"

    @property
    def cc(self):
        """The compute capability the plan was made for (90)."""
        return _CC[self._plan.arch]

    @property
    def element_A(self):
        return self._plan.types.a

    @property
    def element_B(self):
        return self._plan.types.b

    @property
    def element_C(self):
        return self._plan.types.c

    @property
    def element_D(self):
        return self._plan.types.d

    @property
    def element_accumulator(self):
        return self._plan.types.accumulator

    @property
    def layout_A(self):
        return self._plan.types.layout_a

    @property
    def layout_B(self):
        return self._plan.types.layout_b

    @property
    def layout_C(self):
        return self._plan.types.layout_c

    @property
    def layout_D(self):
        return self._plan.types.layout_d

    @property
    def opclass(self):
        """TensorOp or Simt (Auto resolved when the plan was made). Setting it re-resolves the
        plan and drops a compiled tile description; TensorOp is refused, with the reason, where
        the tensor cores do not run the plan's types or layouts."""
        return self._plan.opclass

    @opclass.setter
    def opclass(self, value):
        self._plan.set_opclass(opcode_class(value))

    # ---- The epilogue --------------------------------------------------------------------------

    @property
    def activation(self):
        return self._plan.activation

    @activation.setter
    def activation(self, value):
        """warploom.epilogue.relu, a name ("relu"), or (leaky_relu, slope)."""
        slope = 0.01
        if isinstance(value, tuple):
            value, slope = value
        if isinstance(value, str):
            try:
                value = Activation[value]
            except KeyError:
                raise ValueError(
                    f"Gemm: activation = {value!r} is not an activation: one of "
                    f"{', '.join(a.name for a in Activation)}"
                ) from None
        if not isinstance(value, Activation):
            raise TypeError(
                f"Gemm: activation = {value!r}: give a warploom.epilogue activation, its name, or "
                "(warploom.epilogue.leaky_relu, slope)"
            )
        self._plan.set_activation(value, float(slope))

    @property
    def leaky_slope(self):
        """leaky_relu's slope below 0 (set with plan.activation = (leaky_relu, slope))."""
        return self._plan.leaky_slope

    @staticmethod
    def activations():
        """Every activation the epilogue names (warploom.epilogue)."""
        return _core.Gemm.activations()

    # ---- Configurations ------------------------------------------------------------------------

    def tile_descriptions(self):
        """Every configuration the library runs for this plan, the default first."""
        return self._plan.tile_descriptions()

    @property
    def tile_description(self):
        """The description compile(td) chose; None for the default (chosen by problem size)."""
        return self._plan.tile_description

    @tile_description.setter
    def tile_description(self, td):
        self.compile(td)

    def is_prebuilt(self, td):
        """Whether td's kernel was compiled by the build (else compile() runs nvcc, about 20 s,
        once per machine)."""
        return self._plan.is_prebuilt(td)

    def compile(self, td=None, print_module=False):
        """Validates td (refused with the reason and the numbers) and obtains its kernel, so that
        no run compiles; without td, the default kernels."""
        if td is None:
            self._plan.compile()
            return
        if print_module:
            print(self._plan.source(td))
        self._plan.compile(td)

    def source(self, td=None):
        """The generated source of td's kernel instance (default: the compiled description, else
        the first one listed)."""
        if td is None:
            td = self.tile_description or self.tile_descriptions()[0]
        return self._plan.source(td)

    def print_module(self, td=None):
        """Prints source(td): the module the seed's print_module shows."""
        print(self.source(td))

    # ---- Running -------------------------------------------------------------------------------

    def run(self, A=None, B=None, C=None, D=None, alpha=None, beta=None, sync=True,
            print_module=False, stream=None, *, bias=None, bias_broadcast=Broadcast.PerColumn,
            row_scale=None, col_scale=None, residual=None, pre_activation=None):
        """D = activation(alpha * (A @ B) + beta * C) on any DLPack tensors (torch, CuPy, ...)
        in GPU memory, strides honoured, or NumPy arrays (copied to the GPU and D back).

        Tensors and scalars not given are those given when the plan was made; C may be None when
        beta is 0. Runs on `stream` (an int handle, torch or CuPy stream); by default on torch's
        (or CuPy's) current stream when their tensors are passed, else on the legacy default
        stream. sync=True (the default) waits for the result; sync=False returns a GemmRun at
        once, whose sync() waits (and copies NumPy outputs back). print_module prints the
        source of the kernel the run uses.

        The fused epilogue's tensors, all optional (docs/python.md):
        z = alpha * row_scale[i] * col_scale[j] * (A @ B)[i, j] + beta * C + bias, written to
        pre_activation when given; D = activation(z) + residual. bias: N values (one per column
        of D, bias_broadcast=Broadcast.PerColumn, a Linear layer's) or M (PerRow), fp32 or D's
        type; row_scale, col_scale: M and N fp32 values; residual, pre_activation: D's shape and
        type. Vectors are 1-D (or one row or column), contiguous.
        """
        alpha = float(self.alpha if alpha is None else alpha)
        beta = float(self.beta if beta is None else beta)
        if stream is None and bias is None and row_scale is None and col_scale is None and \
                residual is None and pre_activation is None and not print_module:
            # torch CUDA tensors on torch's current stream, described by the binding alone (a
            # Python call per operand costs about a microsecond); NotImplemented for anything else.
            run = self._plan.run_torch(A, B, self._tensors["C"] if C is None else C, D, alpha,
                                       beta, sync)
            if run is not NotImplemented:
                return run
        a, b, c, d, handle, epilogue = self._operands(
            (A, B, C, D), stream, bias, bias_broadcast, row_scale, col_scale, residual,
            pre_activation)
        return self._plan.run(a, b, c, d, alpha, beta, handle, sync, print_module, epilogue)

    def check(self, A=None, B=None, C=None, D=None, alpha=None, beta=None, *, bias=None,
              bias_broadcast=Broadcast.PerColumn, row_scale=None, col_scale=None, residual=None,
              pre_activation=None):
        """Checks a run's tensors as run() would (every rule, the same errors), without a device
        and without launching: tensors in GPU memory are described, not read."""
        a, b, c, d, _, epilogue = self._operands(
            (A, B, C, D), _DESCRIBE_ONLY, bias, bias_broadcast, row_scale, col_scale, residual,
            pre_activation)
        alpha = self.alpha if alpha is None else alpha
        beta = self.beta if beta is None else beta
        self._plan.check(a, b, c, d, float(alpha), float(beta), epilogue)

    def _operands(self, given, stream, bias, bias_broadcast, row_scale, col_scale, residual,
                  pre_activation):
        """(a, b, c, d, stream handle, EpilogueOperands) as the binding takes them: tensors not
        given are the plan's. stream _DESCRIBE_ONLY: GPU tensors exported without synchronizing
        any stream (check() reads none of them). Every run passes here: it is written for few
        Python operations (about 1 us each counts against a launch of a few)."""
        A, B, C, D = given
        plan = self._tensors
        A = A if A is not None else plan["A"]
        B = B if B is not None else plan["B"]
        C = C if C is not None else plan["C"]
        D = D if D is not None else plan["D"]
        if A is None or B is None or D is None:
            name = "A" if A is None else "B" if B is None else "D"
            raise ValueError(f"Gemm.run: tensor {name} must be set: pass {name}, or give it "
                             "when making the plan")
        if stream is _DESCRIBE_ONLY:
            handle, owner = None, None
            operand = example_operand
        else:
            handle, owner = stream_handle(stream, (A, B, D))
            operand = run_operand
        a = operand(A, "a", handle, owner)
        b = operand(B, "b", handle, owner)
        c = None if C is None else operand(C, "c", handle, owner)
        d = operand(D, "d", handle, owner)
        if bias_broadcast is _PER_COLUMN and bias is None and row_scale is None and \
                col_scale is None and residual is None and pre_activation is None:
            return a, b, c, d, handle, _NO_EPILOGUE  # the common case, without building one
        epilogue = _core.EpilogueOperands()
        epilogue.bias_broadcast = broadcast(bias_broadcast)
        for field, tensor in (("bias", bias), ("row_scale", row_scale), ("col_scale", col_scale),
                              ("residual", residual), ("pre_activation", pre_activation)):
            if tensor is not None:
                setattr(epilogue, field, operand(tensor, field, handle, owner))
        return a, b, c, d, handle, epilogue


class GroupedGemm(Gemm):
    """Many GEMMs of one plan's types and layouts in one call, as the CUTLASS Python interface's
    cutlass.op.GroupedGemm (seed 002's third notebook):

        plan = warploom.op.GroupedGemm(element=torch.float16, layout=warploom.LayoutType.RowMajor)
        plan.run(As, Bs, Cs, Ds)      # lists: group i is D[i] = A[i] @ B[i] (+ beta C[i])

    Each group has its own M, N, K and tensors (strides honoured, as Gemm.run's), in the types and
    layouts the plan was made for (declared as Gemm's: generic, per operand, or by one group's
    tensors as examples); the plan's activation and tile description apply to every group. Every group is checked before any runs, and an error names the group
    (`groups[3].b`); a group whose D has no rows or columns is skipped. Everything else — types,
    layouts, activation, tile_descriptions(), compile() — is Gemm's. Runs every group in one
    launch of the sm90 grouped kernel (ops::GroupedGemm; a SIMT plan's groups one GEMM each).
    """

    def _make(self, options):
        self._grouped = _core.GroupedGemm(options)
        return self._grouped.plan  # the plan every group runs with, inside the grouped one

    def __repr__(self):
        return f"warploom.op.{self._grouped.describe()}"

    @property
    def tile_scheduling(self):
        """How a launch's CTAs take their tiles: TileScheduling.Auto (the dynamic scheduler for
        fp16/bf16 plans without a fused epilogue, else the static walk), Static, or Dynamic (a
        scheduler warp per CTA takes the next tile from a counter when the CTA is ready for it; the
        cooperative design, so a plan compiled for ping-pong is refused when run)."""
        return self._grouped.tile_scheduling

    @tile_scheduling.setter
    def tile_scheduling(self, value):
        self._grouped.tile_scheduling = value

    def run(self, A, B, C, D, alpha=None, beta=None, sync=True, stream=None):
        """Group i: D[i] = activation(alpha * (A[i] @ B[i]) + beta * C[i]). A, B, D: sequences of
        one length; C: None (beta 0) or a sequence of that length (entries may be None). On
        `stream`, or the tensors' framework's current stream; sync as Gemm.run."""
        _, handle, groups, alpha, beta, workspace = self._described(A, B, C, D, alpha, beta,
                                                                     stream, "run")
        return self._grouped.run(groups, alpha, beta, handle, sync,
                                 *_address_and_bytes(workspace))

    def prepare(self, A, B, C, D, alpha=None, beta=None, stream=None):
        """Checks every group as run() does and sets them up on the GPU once, waiting for it;
        returns a PreparedGroupedGemm whose run() is the grouped kernel alone (no per-group work
        on the host, one kernel node in a captured CUDA graph) — for a list of GEMMs run again and
        again, as a layer's are. A, B, C, D as run()'s, GPU tensors only; each run reads their
        contents when it runs (they may change between runs) at the addresses they have now: the
        prepared GEMM keeps them alive, and they must not be resized or moved. alpha and beta are
        fixed here."""
        tensors, handle, groups, alpha, beta, workspace = self._described(A, B, C, D, alpha, beta,
                                                                           stream, "prepare")
        prepared = self._grouped.prepare(groups, alpha, beta, handle,
                                         *_address_and_bytes(workspace))
        return PreparedGroupedGemm(prepared, tensors, workspace)

    def _described(self, A, B, C, D, alpha, beta, stream, method):
        """What run() and prepare() hand the binding: the groups' tensors, the stream's handle,
        the groups described on it, alpha and beta (the plan's where not given) and the workspace
        tensor (_torch_workspace: None for the library's pool)."""
        A, B, C, D = self._lists(A, B, C, D, method)
        tensors = [t for t in A + B + C + D if t is not None]
        handle, owner = stream_handle(stream, tensors)
        groups = self._groups(A, B, C, D, run_operand, handle, owner)
        alpha = float(self.alpha if alpha is None else alpha)
        beta = float(self.beta if beta is None else beta)
        workspace = _torch_workspace(owner, D, len(groups))
        return tensors, handle, groups, alpha, beta, workspace

    def check(self, A, B, C, D, alpha=None, beta=None):
        """Checks every group as run() would (the same errors), without a device or a launch:
        tensors in GPU memory are described, not read."""
        A, B, C, D = self._lists(A, B, C, D, "check")
        groups = self._groups(A, B, C, D, example_operand)
        alpha = self.alpha if alpha is None else alpha
        beta = self.beta if beta is None else beta
        self._grouped.check(groups, float(alpha), float(beta))

    def run_masked(self, A, B, D, valid_m, C=None, alpha=None, beta=None, sync=True,
                   stream=None):
        """An MoE layer in the masked layout (DeepGEMM's), in one launch: expert g computes
        D[g] = activation(alpha * (A[g] @ B[g]) + beta * C[g]) on its first valid_m[g] rows alone
        (the rest of D[g] is neither computed nor written). A: (G, M, K), D and C: (G, M, N), B:
        (G, K, N) or one (K, N) matrix for every expert, in the plan's types and layouts (D
        row-major). valid_m: G int32 counts on the GPU (a torch or CuPy tensor), read when the
        kernel runs — a CUDA graph captured once serves every routing; counts are clamped to
        [0, M]. Runs on `stream` as run() does; sync as Gemm.run."""
        experts = A.shape[0] if len(getattr(A, "shape", ())) == 3 else None
        if experts is None:
            raise ValueError("GroupedGemm.run_masked: A must be 3-D (experts, M, K), "
                             f"got shape {tuple(getattr(A, 'shape', ()))}")
        counts = _counts_address(valid_m, experts, "run_masked", "valid_m", "counts")
        return self._run_layout(self._grouped.run_masked, A, B, C, D, counts, alpha, beta, sync,
                                stream)

    def run_contiguous(self, A, B, D, offsets, C=None, alpha=None, beta=None, sync=True,
                       stream=None):
        """An MoE layer in the contiguous layout (DeepGEMM's; torch._grouped_mm's `offs`), in one
        launch: the experts' rows stacked in A (M, K) and D (and C) (M, N), B (G, K, N) one
        matrix per expert, offsets G int32 cumulative row ends on the GPU (a torch or CuPy
        tensor): expert g computes D[offsets[g-1]:offsets[g]] = activation(alpha * (A[same rows]
        @ B[g]) + beta * C[same rows]), offsets[-1] = 0. Read when the kernel runs: a CUDA graph
        captured once serves every routing. An end is read as the largest of it and those before
        it, clamped to [0, M]; rows past the last end are neither computed nor written. A, C and D
        row-major, B in the plan's layout. Runs on `stream` as run() does; sync as Gemm.run."""
        experts = B.shape[0] if len(getattr(B, "shape", ())) == 3 else None
        if experts is None:
            raise ValueError("GroupedGemm.run_contiguous: B must be 3-D (experts, K, N), "
                             f"got shape {tuple(getattr(B, 'shape', ()))}")
        ends = _counts_address(offsets, experts, "run_contiguous", "offsets",
                               "cumulative row ends")
        return self._run_layout(self._grouped.run_contiguous, A, B, C, D, ends, alpha, beta, sync,
                                stream)

    def _run_layout(self, run, A, B, C, D, rows, alpha, beta, sync, stream):
        """An MoE layout's run (the binding's `run`): the operands described on the stream, the
        device address `rows` of its int32 array, the plan's alpha and beta where not given."""
        handle, owner = stream_handle(stream, (A, B, D))
        a = run_operand(A, "A", handle, owner)
        b = run_operand(B, "B", handle, owner)
        c = None if C is None else run_operand(C, "C", handle, owner)
        d = run_operand(D, "D", handle, owner)
        alpha = self.alpha if alpha is None else alpha
        beta = self.beta if beta is None else beta
        experts = B.shape[0] if len(getattr(B, "shape", ())) == 3 else A.shape[0]
        workspace = _torch_workspace(owner, (D,), experts)
        return run(a, b, c, d, rows, float(alpha), float(beta), handle, sync,
                   *_address_and_bytes(workspace))

    @staticmethod
    def _lists(A, B, C, D, method):
        A, B, D = list(A), list(B), list(D)
        C = [None] * len(A) if C is None else list(C)
        if not len(A) == len(B) == len(C) == len(D):
            raise ValueError(
                f"GroupedGemm.{method}: A, B, C and D hold {len(A)}, {len(B)}, {len(C)} and "
                f"{len(D)} tensors; group i is A[i], B[i], C[i], D[i]: give one of each per group"
            )
        return A, B, C, D

    @staticmethod
    def _groups(A, B, C, D, operand, handle=None, owner=None):
        """(a, b, c, d) per group as the binding takes them: `operand(tensor, name, handle,
        owner)` (run_operand or example_operand), or None for a C not given. Straight-line: a
        grouped run calls it four times per group."""
        return [(operand(a, f"groups[{i}].a", handle, owner),
                 operand(b, f"groups[{i}].b", handle, owner),
                 None if c is None else operand(c, f"groups[{i}].c", handle, owner),
                 operand(d, f"groups[{i}].d", handle, owner))
                for i, (a, b, c, d) in enumerate(zip(A, B, C, D))]


class PreparedGroupedGemm:
    """A GroupedGemm's groups checked and set up once (GroupedGemm.prepare; CUTLASS's
    initialize() before its run()s):

        prepared = plan.prepare(As, Bs, None, Ds)
        prepared.run()                 # the grouped kernel alone; As, Bs may change between runs

    Runs of one prepared GEMM share its workspace: they must not overlap (one stream, or streams
    the caller orders). It holds its groups' tensors (and its workspace) alive.
    """

    def __init__(self, prepared, tensors, workspace):
        self._prepared = prepared
        self._tensors = tensors  # the groups' tensors: their addresses are in the prepared GEMM
        self._workspace = workspace

    def run(self, sync=True, stream=None):
        """Enqueues every group on `stream`, or the current stream of the tensors' framework.
        sync=True (the default) waits for the result."""
        handle, _ = stream_handle(stream, self._tensors)
        self._prepared.run(handle, sync)

    @property
    def groups(self):
        """The groups a run computes (those with an empty D are not among them)."""
        return self._prepared.groups

    @property
    def grouped_launches(self):
        """The grouped-kernel launches a run makes (one per configuration among the groups)."""
        return self._prepared.grouped_launches

    def __repr__(self):
        return (f"warploom.op.PreparedGroupedGemm({self.groups} groups, "
                f"{self.grouped_launches} grouped launch(es))")


def _torch_workspace(owner, tensors, groups):
    """The grouped kernel's workspace (its groups' parameters, written on the device) from torch's
    caching allocator, where the run is on torch's current stream (`owner` "torch"): the allocator
    orders its reuse on that stream, and inside a captured CUDA graph it hands out memory of the
    graph's own pool, so the graph holds no allocation node of the library's. None otherwise: the
    library takes it from its pool on the run's stream."""
    if owner != "torch" or groups == 0:
        return None
    device = next((t.device for t in tensors if t is not None), None)
    if device is None:
        return None
    torch = sys.modules["torch"]
    return torch.empty(_core.GroupedGemm.workspace_bytes(groups), dtype=torch.uint8,
                       device=device)


def _address_and_bytes(workspace):
    """(device address, bytes) of a workspace tensor, or (0, 0) for none."""
    if workspace is None:
        return 0, 0
    return workspace.data_ptr(), workspace.numel()


def _counts_address(counts, experts, method, name, what):
    """The device address of `counts` (argument `name` of GroupedGemm.`method`), one int32 per
    expert on the GPU (CUDA array interface: torch and CuPy tensors), or a TypeError / ValueError
    naming what is wrong."""
    where = f"GroupedGemm.{method}: {name}"
    interface = getattr(counts, "__cuda_array_interface__", None)
    if interface is None:
        raise TypeError(f"{where} must be a GPU tensor of int32 {what} (torch or CuPy), got "
                        f"{type(counts).__name__}")
    if interface["typestr"] not in ("<i4", "|i4"):
        raise TypeError(f"{where} has dtype {interface['typestr']!r}: give int32 {what}")
    shape = tuple(interface["shape"])
    if shape != (experts,):
        raise ValueError(f"{where} has shape {shape}: give one per expert, ({experts},)")
    if interface.get("strides") not in (None, (4,)):
        raise ValueError(f"{where} must be contiguous")
    return interface["data"][0]

