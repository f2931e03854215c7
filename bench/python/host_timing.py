"""What the Python benchmarks in this folder share: the host cost of a call, and the facts every
result file records about its run."""

import datetime
import os
import statistics
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


def event_times(fns, reps, calls=1):
    """Median and p10/p90 milliseconds per call of each of fns: `calls` back-to-back calls between
    two events, one such window per contender per round. calls=1 counts each call's host time
    before its launch (the GPU waits for it); more calls hide it behind the previous call's kernel,
    as in a model whose host code runs ahead of the GPU."""
    times = [[] for _ in fns]
    for _ in range(reps):
        for i, fn in enumerate(fns):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(calls):
                fn()
            stop.record()
            stop.synchronize()
            times[i].append(start.elapsed_time(stop) / calls)
    out = []
    for t in times:
        t = sorted(t)
        out.append({"median_ms": statistics.median(t), "p10_ms": t[len(t) // 10],
                    "p90_ms": t[(9 * len(t)) // 10], "runs": len(t)})
    return out
