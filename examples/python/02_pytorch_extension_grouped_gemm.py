"""The seed's third notebook (CUTLASS Python interface, 02_pytorch_extension_grouped_gemm.ipynb) on
warploom, step by step: a grouped GEMM declared and run on 50 fp16 problems of random sizes and
checked against torch; the plan exported as a PyTorch CUDA extension (warploom.emit.pytorch,
jit=True), its run(As, Bs) checked again; then the notebook's timing — the extension against a
loop of torch matmuls, 20 warm-up and 100 timed iterations — printed.

    PYTHONPATH=build/release/python python3 examples/python/02_pytorch_extension_grouped_gemm.py
    python3 examples/python/02_pytorch_extension_grouped_gemm.py          # after pip install .

Needs an sm_90 GPU (the H200), torch and nvcc (the extension is built on first use; the fp16
row-major kernels too, when the build did not prebuild them: warploom's kernel cache keeps them).
Where CUTLASS's interface falls back to an sm80 kernel for grouped GEMMs on Hopper, warploom runs
every group in one launch of its sm90 grouped kernel (docs/kernels/sm90_grouped_gemm.md); the
timing below measures that against torch's loop.
"""

import os
import random
import tempfile
import time

import torch

import warploom

dtype = torch.float16
plan = warploom.op.GroupedGemm(element=dtype, layout=warploom.LayoutType.RowMajor)
print(plan)

# ---- The notebook's problems: 50 GEMMs, M, N, K each from {128, 256, 512, 1024} ---------------
random.seed(2023)


def initialize(dtype, M, N, K):
    """A, B, C, D of one GEMM: integers in [-3, 3) (fp32 accumulation of them is exact)."""
    sizes = [(M, K), (K, N), (M, N), (M, N)]
    return [torch.randint(-3, 3, size, device="cuda").to(dtype) for size in sizes]


def generate_problems(problems):
    valid_sizes = [128, 256, 512, 1024]
    As, Bs, Cs, Ds = [], [], [], []
    for _ in range(problems):
        M, N, K = [random.choice(valid_sizes) for _ in range(3)]
        A, B, C, D = initialize(dtype, M, N, K)
        As.append(A)
        Bs.append(B)
        Cs.append(C)
        Ds.append(D)
    return As, Bs, Cs, Ds


As, Bs, Cs, Ds = generate_problems(50)

# ---- Run the grouped plan, compare with torch pair by pair ---------------------------------------
plan.run(As, Bs, Cs, Ds)
Ds_torch = [a @ b for a, b in zip(As, Bs)]
for d, d_torch in zip(Ds, Ds_torch):
    assert torch.allclose(d, d_torch)
print("plan.run: every group matches torch")

# ---- Export as a PyTorch CUDA extension, built and loaded now (jit=True) -------------------------
sourcedir = os.environ.get("WARPLOOM_EXAMPLE_OUT") or tempfile.mkdtemp(prefix="warploom_02_")
grouped_gemm = warploom.emit.pytorch(plan, name="grouped_gemm", sourcedir=sourcedir, jit=True)
print("extension written to", sourcedir, ":", sorted(os.listdir(sourcedir)))

Ds = grouped_gemm.run(As, Bs)
Ds_torch = [a @ b for a, b in zip(As, Bs)]
for d, d_torch in zip(Ds, Ds_torch):
    assert torch.allclose(d, d_torch)
print("grouped_gemm.run: every group matches torch")

# ---- The notebook's timing: the extension against torch's loop -----------------------------------
num_warmup = 20
num_profile = 100
for _ in range(num_warmup):
    Ds = grouped_gemm.run(As, Bs)
    Ds_torch = [a @ b for a, b in zip(As, Bs)]
torch.cuda.synchronize()

grouped = 0.0
nongrouped = 0.0
for _ in range(num_profile):
    start = time.time()
    Ds = grouped_gemm.run(As, Bs)
    torch.cuda.synchronize()
    grouped += time.time() - start

    start = time.time()
    Ds_torch = [a @ b for a, b in zip(As, Bs)]
    torch.cuda.synchronize()
    nongrouped += time.time() - start

print("Grouped: {:.3f} us".format(grouped * 1e6 / num_profile))
print("Non-Grouped: {:.3f} us".format(nongrouped * 1e6 / num_profile))
print("Speedup: {:.3f}x".format(nongrouped / grouped))
