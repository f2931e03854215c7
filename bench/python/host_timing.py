"""What the Python benchmarks in this folder share: the host cost of a call, and the facts every
result file records about its run."""

import datetime
import os
import subprocess
import sys
import time

import torch


def host_cost(fn, calls, warmup=50):
    """Mean host microseconds per call of fn over `calls` back-to-back calls, the best of five
    runs (the host's own noise only adds), after `warmup` calls; the GPU drained between runs."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls * 1e6)
        torch.cuda.synchronize()
    return best


def run_facts(args):
    """command (this script with `args`, --json left out), commit (WARPLOOM_COMMIT, which the
    device check sets: its copy of the tree has no .git), date, device, GPU state and torch's
    version, for a result file."""
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,power.limit",
                          "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    options = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if k != "json")
    return {"command": f"python3 {sys.argv[0]} {options}",
            "commit": os.environ.get("WARPLOOM_COMMIT", "unknown"),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "device": torch.cuda.get_device_name(), "gpu_state": smi, "torch": torch.__version__}
