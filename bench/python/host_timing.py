"""The host cost of a call, as the Python benchmarks in this folder measure it."""

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
