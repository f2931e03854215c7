"""Issue 14's two Python measurements, on the GPU machine, each contender in this one process:

1. warploom.nn.Linear (bias + activation in the GEMM's epilogue) against torch.nn.Linear followed
   by the activation, bf16, by default 8192 -> 8192 on a batch of 8192 rows: CUDA events around
   each forward, contenders interleaved per round, medians; burst (from cold) and sustained
   (after --sustain-s seconds of back-to-back forwards, at the power cap).
2. The host cost of one call from Python on a small problem (the GPU time negligible against it):
   warploom.op.Gemm.run(sync=False), torch.ops.warploom.gemm and torch.matmul, each the mean of
   --calls back-to-back calls timed on the host. The C++ call's own cost comes from
   bench/host_costs.cpp (`plan.run`) on the same machine: the Python overhead is the difference.

    PYTHONPATH=build/python-site python3 bench/python/linear_and_overhead.py --json out.json

Writes what it measured, with the device, torch's version and the date, as JSON.
"""

import argparse
import json
import time

import torch
import torch.nn.functional as F

import warploom
import warploom.nn
from host_timing import event_times, host_cost, run_facts

ACTIVATIONS = {
    "gelu": lambda y: F.gelu(y),
    "gelu_tanh": lambda y: F.gelu(y, approximate="tanh"),
    "silu": F.silu,
    "relu": F.relu,
}


def linear(args):
    torch.manual_seed(0)
    dt = torch.bfloat16
    ours = warploom.nn.Linear(args.k, args.n, activation=args.activation, device="cuda", dtype=dt)
    theirs = torch.nn.Linear(args.k, args.n, device="cuda", dtype=dt)
    with torch.no_grad():
        theirs.weight.copy_(ours.weight)
        theirs.bias.copy_(ours.bias)
    act = ACTIVATIONS[args.activation]
    x = torch.randn(args.m, args.k, device="cuda", dtype=dt)
    with torch.no_grad():
        fused = lambda: ours(x)  # noqa: E731
        chain = lambda: act(theirs(x))  # noqa: E731
        want = act(x.double() @ ours.weight.double().t() + ours.bias.double())
        errors = {name: float(((fn().double() - want).abs().max() / want.abs().max()))
                  for name, fn in (("warploom", fused), ("torch", chain))}
        result = {"shape": [args.m, args.n, args.k], "activation": args.activation,
                  "max_error_relative_to_max": errors, "regimes": {}}
        for regime, calls in (("burst", 1), ("burst, 10 forwards back to back", 10),
                              ("sustained", 1), ("sustained, 10 forwards back to back", 10)):
            if regime == "sustained":
                end = time.monotonic() + args.sustain_s
                while time.monotonic() < end:
                    fused()
                    chain()
                torch.cuda.synchronize()
            w, t = event_times([fused, chain], args.reps, calls)
            flops = 2.0 * args.m * args.n * args.k
            result["regimes"][regime] = {
                "warploom.nn.Linear": dict(w, tflop_per_s=flops / w["median_ms"] / 1e9),
                "torch.nn.Linear+activation": dict(t, tflop_per_s=flops / t["median_ms"] / 1e9),
                "speedup": t["median_ms"] / w["median_ms"],
            }
    return result


def linear_host_cost(x, calls, kind=warploom.nn.Linear):
    layer = kind(x.shape[-1], x.shape[-1], device="cuda", dtype=x.dtype)
    with torch.no_grad():
        return host_cost(lambda: layer(x), calls)


def cpp_cost(timed, calls):
    """The best of five of `timed(calls)` (host microseconds per call, timed in C++), after a
    warm-up, the GPU drained between runs: host_cost's method for a loop that runs in C++."""
    timed(50)
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(5):
        best = min(best, timed(calls))
        torch.cuda.synchronize()
    return best


def overhead(args):
    dt = torch.bfloat16
    s = args.small
    a = torch.randn(s, s, device="cuda", dtype=dt)
    b = torch.randn(s, s, device="cuda", dtype=dt).t()  # column-major B: the "tn" kernel
    d = torch.empty(s, s, device="cuda", dtype=dt)
    plan = warploom.op.Gemm(A=a, B=b, C=d, D=d)
    # The binding alone: operands described once, as warploom.op.Gemm.run hands them over.
    handle, owner = warploom._operands.stream_handle(None, [a])
    described = [warploom._operands.run_operand(x, name, handle, owner)
                 for x, name in ((a, "a"), (b, "b"), (d, "d"))]
    epilogue = warploom._core.EpilogueOperands()
    costs = {  # a GemmRun of device tensors dropped at once does not wait (python/src/operands)
        "warploom.op.Gemm.run(sync=False)":
            host_cost(lambda: plan.run(a, b, None, d, sync=False), args.calls),
        "binding: _core.Gemm.run on described operands":
            host_cost(lambda: plan._plan.run(described[0], described[1], None, described[2], 1.0,
                                             0.0, handle, False, False, epilogue), args.calls),
        # The C++ call itself in this process, described once: what the overhead is measured
        # against (tools' host_costs measures it in a C++ process of its own).
        "C++: ops::Gemm::run on built views":
            cpp_cost(lambda calls: plan._plan.host_us_of_cpp_runs(
                described[0], described[1], None, described[2], 1.0, 0.0, handle, calls),
                args.calls),
        "warploom.nn.Linear(identity) forward": linear_host_cost(a, args.calls),
        "torch.nn.Linear forward": linear_host_cost(a, args.calls, torch.nn.Linear),
        "torch.ops.warploom.gemm": host_cost(lambda: torch.ops.warploom.gemm(a, b), args.calls),
        "torch.matmul": host_cost(lambda: torch.matmul(a, b), args.calls),
    }
    python_over_cpp = costs["warploom.op.Gemm.run(sync=False)"] - \
        costs["C++: ops::Gemm::run on built views"]
    return {"shape": [s, s, s], "dtype": "bf16", "host_us_per_call": costs,
            "python_over_cpp_us": python_over_cpp}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--m", type=int, default=8192)
    p.add_argument("--n", type=int, default=8192)
    p.add_argument("--k", type=int, default=8192)
    p.add_argument("--activation", default="gelu", choices=sorted(ACTIVATIONS))
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--sustain-s", type=float, default=5.0)
    p.add_argument("--small", type=int, default=128, help="the overhead problem's M = N = K")
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--json", required=True)
    args = p.parse_args()
    out = {
        **run_facts(args),
        "method": "CUDA events around 1 forward (its host time counted) and around 10 back to "
                  "back (host time hidden), contenders interleaved per round, medians; host cost: "
                  "best of 5 means of back-to-back calls; the C++ plan.run's own cost is "
                  "bench/host_costs.cpp's",
        "linear": linear(args), "python_overhead": overhead(args),
    }
    with open(args.json, "w") as f:
        json.dump(out, f, indent=2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
