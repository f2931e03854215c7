"""The seed's Epilogue notebook (CUTLASS Python interface, 01_epilogue.ipynb) on warploom, step by
step: the default (identity) epilogue, ReLU fused into the GEMM and checked exactly, every
activation plan.activations() lists run and compared with torch, leaky_relu with its slope; then
what warploom's epilogue adds: a bias (per column, per row), row and column scales, a residual and
the pre-activation output, all in the GEMM's own epilogue, on torch's current stream.

    PYTHONPATH=build/release/python python3 examples/python/01_epilogue.py   # the build tree
    python3 examples/python/01_epilogue.py                                    # pip install .

Needs an sm_90 GPU (the H200), NumPy and torch (the references are torch's).
"""

import numpy as np
import torch

import warploom
from warploom.library import TORCH_ACTIVATIONS  # each activation as torch computes it

# Whether to print the generated kernel source at each run (the notebook's print_module).
print_module = False

# ---- Tensors: m = n = k = 256, fp16 integers in [-3, 4] (fp32 accumulation is exact) ----------
m = n = k = 256
type_A = type_B = type_C = type_D = np.float16
np.random.seed(1234)
scope_min, scope_max = -4, 4
tensor_A = np.ceil(np.random.uniform(low=scope_min, high=scope_max, size=(m, k))).astype(type_A)
tensor_B = np.ceil(np.random.uniform(low=scope_min, high=scope_max, size=(k, n))).astype(type_B)
tensor_C = np.ceil(np.random.uniform(low=scope_min, high=scope_max, size=(m, n))).astype(type_C)
alpha, beta = 1.0, 0.0
tensor_D = np.zeros(tensor_C.shape).astype(type_D)

# ---- The default epilogue: identity, D = alpha * (A @ B) + beta * C --------------------------
plan = warploom.op.Gemm(element=np.float16, layout=warploom.LayoutType.RowMajor,
                        element_accumulator=np.float32)
print(plan, "activation:", plan.activation)
plan.run(tensor_A, tensor_B, tensor_C, tensor_D, alpha, beta, print_module=print_module)
reference = alpha * (tensor_A.astype(np.float64) @ tensor_B) + beta * tensor_C
np.testing.assert_array_equal(tensor_D, reference.astype(type_D))
print("identity: matches NumPy exactly")

# ---- ReLU fused: D = relu(alpha * (A @ B) + beta * C), checked exactly as the notebook does ---
tensor_D_relu = np.zeros(tensor_C.shape).astype(type_D)
plan.activation = warploom.epilogue.relu
plan.run(tensor_A, tensor_B, tensor_C, tensor_D_relu, alpha, beta, print_module=print_module)
relu_ref = (tensor_D >= 0).astype(type_D) * tensor_D
np.testing.assert_array_equal(relu_ref, tensor_D_relu)
print("relu: matches NumPy exactly")

# ---- Every activation: plan.activations(), each run and compared with torch --------------------
# alpha = 1/32 (exact in fp32) brings z into the range where the activations bend.
activations = plan.activations()
for activation in activations:
    print(activation)

alpha = 1.0 / 32
z = torch.from_numpy(alpha * (tensor_A.astype(np.float64) @ tensor_B) + beta * tensor_C)
for activation in activations:
    print("=" * 96)
    print(f"Compiling and running activation {activation}")
    print("=" * 96)
    plan.activation = activation
    plan.run(tensor_A, tensor_B, tensor_C, tensor_D, alpha, beta, print_module=print_module)
    expected = TORCH_ACTIVATIONS[activation.name](z, plan.leaky_slope).to(torch.float16)
    torch.testing.assert_close(torch.from_numpy(tensor_D), expected, rtol=1e-2, atol=1e-2)
    print(f"{activation.name}: matches torch")

# ---- leaky_relu with its slope: plan.activation = (leaky_relu, slope) -------------------------
plan.activation = (warploom.epilogue.leaky_relu, 0.2)
plan.run(tensor_A, tensor_B, tensor_C, tensor_D, alpha, beta, print_module=print_module)
expected = torch.nn.functional.leaky_relu(z, 0.2).to(torch.float16)
torch.testing.assert_close(torch.from_numpy(tensor_D), expected, rtol=1e-2, atol=1e-2)
print(f"leaky_relu, slope {plan.leaky_slope:g}: matches torch")

# ---- Beyond the notebook: the fused epilogue's tensors, on torch tensors and torch's stream ----
# z = alpha * row_scale[i] * col_scale[j] * (A @ B)[i, j] + beta * C + bias
# pre_activation = z;  D = act(z) + residual
torch.manual_seed(1234)
A, B, C = (torch.from_numpy(x).cuda() for x in (tensor_A, tensor_B, tensor_C))
acc = A.double() @ B.double()
beta = 0.5
# Each epilogue is a kernel configuration of its own (compiled once, then cached): every
# activation with a per-column bias (a Linear layer's), relu with a per-row one.
for broadcast, chosen in ((warploom.Broadcast.PerColumn, activations),
                          (warploom.Broadcast.PerRow, [warploom.epilogue.relu])):
    length = n if broadcast == warploom.Broadcast.PerColumn else m
    bias = torch.randn(length, dtype=torch.float32, device="cuda")
    row_scale = torch.rand(m, dtype=torch.float32, device="cuda") + 0.5
    col_scale = torch.rand(n, dtype=torch.float32, device="cuda") + 0.5
    residual = torch.randn(m, n, dtype=torch.float16, device="cuda")
    pre_activation = torch.empty(m, n, dtype=torch.float16, device="cuda")
    D = torch.empty(m, n, dtype=torch.float16, device="cuda")
    for activation in chosen:
        plan.activation = activation
        plan.run(A, B, C, D, alpha, beta, bias=bias, bias_broadcast=broadcast,
                 row_scale=row_scale, col_scale=col_scale, residual=residual,
                 pre_activation=pre_activation)
        per_column = broadcast == warploom.Broadcast.PerColumn
        along = bias.double()[None, :] if per_column else bias.double()[:, None]
        z = (alpha * row_scale.double()[:, None] * col_scale.double()[None, :] * acc
             + beta * C.double() + along)
        d = TORCH_ACTIVATIONS[activation.name](z, plan.leaky_slope) + residual.double()
        torch.testing.assert_close(pre_activation, z.half(), rtol=1e-2, atol=1e-2)
        torch.testing.assert_close(D, d.half(), rtol=1e-2, atol=2e-2)
    print(f"bias ({broadcast.name}), scales, residual, pre_activation: "
          f"{', '.join(a.name for a in chosen)} match torch")

# On a side stream: the run is ordered on torch's current stream; sync=False returns at once.
plan.activation = warploom.epilogue.gelu
bias = torch.randn(n, dtype=torch.float32, device="cuda")
stream = torch.cuda.Stream()
with torch.cuda.stream(stream):
    D = torch.empty(m, n, dtype=torch.float16, device="cuda")
    run = plan.run(A, B, None, D, alpha, 0.0, sync=False, bias=bias)
    expected = torch.nn.functional.gelu(alpha * acc + bias.double()).half()
run.sync()
torch.testing.assert_close(D, expected, rtol=1e-2, atol=1e-2)
print("gelu + bias on a side stream: matches torch")
