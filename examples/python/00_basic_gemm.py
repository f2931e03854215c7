"""The seed's Basic GEMM notebook (CUTLASS Python interface, 00_basic_gemm.ipynb) on warploom,
step by step: declare a GEMM plan, run it on NumPy arrays, check it, switch to the SIMT GEMM,
reuse it on bigger problems and on torch tensors, list the tile descriptions and compile one, and
see the errors the seed shows (stream-K, too many stages).

    PYTHONPATH=build/release/python python3 examples/python/00_basic_gemm.py   # the build tree
    python3 examples/python/00_basic_gemm.py                                    # pip install .

Needs an sm_90 GPU (the H200) and NumPy; torch is used where the notebook compares with it.
"""

import random

import numpy as np

import warploom

# Whether to print the generated kernel source at each run (the notebook's print_module).
print_module = False

# ---- Tensors: integers in [-3, 4] as fp16, so that fp32 accumulation is exact ---------------
m = n = k = 128
dtype = np.float16
np.random.seed(1234)
random.seed(1234)
scope_min, scope_max = -4, 4
tensor_A = np.ceil(np.random.uniform(low=scope_min, high=scope_max, size=(m, k))).astype(dtype)
tensor_B = np.ceil(np.random.uniform(low=scope_min, high=scope_max, size=(k, n))).astype(dtype)
tensor_C = np.ceil(np.random.uniform(low=scope_min, high=scope_max, size=(m, n))).astype(dtype)
alpha = np.float16(1.0)
beta = np.float16(0.0)
tensor_D = np.zeros(tensor_C.shape).astype(dtype)

# ---- Declare and run the default GEMM ---------------------------------------------------------
# element_accumulator is fp32, the kernels' own (and the only one they have for fp16 inputs).
plan = warploom.op.Gemm(element=dtype, layout=warploom.LayoutType.RowMajor,
                        element_accumulator=np.float32)
print(plan)
plan.run(tensor_A, tensor_B, tensor_C, tensor_D, alpha, beta, print_module=print_module)

tensor_D_numpy = (alpha * (tensor_A.astype(np.float64) @ tensor_B)) + (beta * tensor_C)
np.testing.assert_array_equal(tensor_D, tensor_D_numpy.astype(dtype))
print("default GEMM matches NumPy")

# ---- The operator class: tensor cores by default, the SIMT GEMM on request ---------------------
print(plan.opclass)
tensor_D_simt = np.zeros(tensor_C.shape).astype(dtype)
plan.opclass = warploom.OpcodeClass.Simt
plan.run(tensor_A, tensor_B, tensor_C, tensor_D_simt, alpha, beta, print_module=print_module)
np.testing.assert_array_equal(tensor_D, tensor_D_simt)
print("SIMT GEMM matches the tensor cores")

# ---- A bigger problem, another beta: no compilation (the kernels are prebuilt or cached) ------
m, n, k = 2400, 3232, 4096
tensor_A = np.ceil(np.random.uniform(low=scope_min, high=scope_max, size=(m, k))).astype(dtype)
tensor_B = np.ceil(np.random.uniform(low=scope_min, high=scope_max, size=(k, n))).astype(dtype)
tensor_C = np.ceil(np.random.uniform(low=scope_min, high=scope_max, size=(m, n))).astype(dtype)
tensor_D = np.zeros(tensor_C.shape).astype(dtype)
alpha, beta = np.float16(1.0), np.float16(2.0)
plan.opclass = warploom.OpcodeClass.TensorOp
plan.run(tensor_A, tensor_B, tensor_C, tensor_D, alpha, beta, print_module=print_module)

try:
    import torch
except ImportError:
    torch = None
if torch is not None:
    # The same plan on torch tensors (any DLPack producer): no copies, torch's current stream.
    A, B, C = (torch.from_numpy(x).cuda() for x in (tensor_A, tensor_B, tensor_C))
    D = torch.zeros_like(C)
    plan.run(A, B, C, D, alpha, beta)
    expected = (alpha * (A.double() @ B.double()) + beta * C.double()).half()
    assert torch.equal(D, expected), "torch tensors: mismatch"
    assert torch.equal(D.cpu(), torch.from_numpy(tensor_D)), "NumPy and torch runs differ"
    print("bigger problem matches torch, on NumPy arrays and on torch tensors")

# ---- Tile descriptions: every configuration, and one of them compiled ----------------------
tiles = plan.tile_descriptions()
print(f"{len(tiles)} tile descriptions returned")
num_print = 10
print(f"First {num_print} tile descriptions are:")
for td in tiles[:num_print]:
    print(td)

idx = random.randint(0, len(tiles) - 1)
td = tiles[idx]
print(f"Tile description {idx} is: {td}"
      f"{'' if plan.is_prebuilt(td) else ' (not prebuilt: compiling it takes ~20 s, once)'}")
plan.compile(td)
plan.run(tensor_A, tensor_B, tensor_C, tensor_D, alpha, beta, print_module=print_module)

# ---- Stream-K: the notebook switches to it; warploom's kernels have no stream-K yet ----------
td = warploom.TileDescription(tiles[0])
td.scheduler = warploom.TileSchedulerType.StreamK
try:
    plan.compile(td)
except ValueError as e:
    print(f"stream-K: {e}")

# ---- Too many stages for shared memory: refused before anything compiles or launches --------
td = warploom.TileDescription(tiles[0])
td.stages = 8
try:
    plan.compile(td)
except ValueError as e:
    print(f"td.stages = 8: {e}")
