"""Issue 16's grouped-GEMM measurements, on the GPU machine, every contender in this one process:

1. Seed 002's experiment: 50 fp16 problems, M, N and K each drawn from {128, 256, 512, 1024} with
   Python's random.seed(2023) (as the seed's notebook draws them), every operand row-major.
   warploom.op.GroupedGemm (one launch of the grouped kernel after its setup kernel; and prepared
   once, GroupedGemm.prepare, each call the grouped kernel alone) against a loop of torch.matmul
   (one cuBLAS GEMM per problem), each eager and as a CUDA graph.
2. An MoE layer: 16 experts, M_i drawn from {256, ..., 2048} (multiples of 256, seed 0), K = N =
   4096, bf16, A stacked along M: warploom.op.GroupedGemm (a list of groups, and run_contiguous on
   torch's own stacked operands and offsets) against torch._grouped_mm (where this torch has it)
   and the torch.matmul loop.

Eager: CUDA events around one call, the host's work before the launches included (the GPU waits for
it). Graph: the call captured once, events around a replay (GPU time alone); back to back: events
around 20 replays in a row, per replay (clocks ramped, each launch's latency behind the one
before; the TFLOP/s are these). Medians of --reps, contenders interleaved per round. Writes what it measured, with the device, torch's version and the
date, as JSON:

    PYTHONPATH=build/python-site python3 bench/python/grouped.py --json out.json
"""

import argparse
import json
import random
import statistics

import torch

import warploom
from host_timing import host_cost, run_facts


def seed_problems(count=50):
    random.seed(2023)
    sizes = [128, 256, 512, 1024]
    return [tuple(random.choice(sizes) for _ in range(3)) for _ in range(count)]


def median_ms(fn, reps):
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def as_graph(fn):
    """fn captured in a CUDA graph (after a warm-up run), and the replay."""
    fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph.replay


# Replays per back-to-back measurement: enough that the clocks ramp and one replay's launch
# latency hides behind the one before, as in a training step's stream of launches.
BACK_TO_BACK = 20


def compare(contenders, reps, flops):
    """{name: {eager_us, graph_us, graph_back_to_back_us, tflop_per_s (back to back)}} for
    {name: fn}, interleaved per round. graph_us: one replay alone between two events (the GPU
    may start it at idle clocks); graph_back_to_back_us: BACK_TO_BACK replays in a row, per
    replay (a launch in a stream of them)."""
    graphs = {name: as_graph(fn) for name, fn in contenders.items()}
    eager = {name: [] for name in contenders}
    graph = {name: [] for name in contenders}
    back_to_back = {name: [] for name in contenders}

    def replays(replay):
        return lambda: [replay() for _ in range(BACK_TO_BACK)]

    for _ in range(reps):
        for name, fn in contenders.items():
            eager[name].append(median_ms(fn, 1))
            graph[name].append(median_ms(graphs[name], 1))
            back_to_back[name].append(median_ms(replays(graphs[name]), 1) / BACK_TO_BACK)
    out = {}
    for name in contenders:
        b = statistics.median(back_to_back[name])
        out[name] = {"eager_us": 1e3 * statistics.median(eager[name]),
                     "graph_us": 1e3 * statistics.median(graph[name]),
                     "graph_back_to_back_us": 1e3 * b, "tflop_per_s_graph": flops / b / 1e9}
    return out


def variant(plan, design, stages, staging_buffers):
    """`plan` compiled with its 1x1-cluster tile description of `design`, `stages` and
    `staging_buffers` (the tuning's trade of ring stages for epilogue staging), or None where the
    plan has no such description."""
    for td in plan.tile_descriptions():
        if td.design == design and (td.stages, td.staging_buffers) == (stages, staging_buffers) \
                and td.cluster_m == td.cluster_n == 1:
            plan.compile(td)
            return plan
    return None


PINGPONG = warploom._core.ConsumerDesign.PingPong


def max_relative_error(got, want):
    return max(float((g.double() - w).abs().max() / w.abs().max().clamp_min(1e-30))
               for g, w in zip(got, want))


def host_costs(plan, As, Bs, Ds):
    """Where a grouped run's host time goes: the whole call, the Python side's operand
    descriptions, the C++ checks alone (GroupedGemm.check's path) and the C++ run on operands
    described once."""
    from warploom._operands import run_operand, stream_handle
    handle, owner = stream_handle(None, As)
    describe = lambda: plan._groups(As, Bs, [None] * len(As), Ds, run_operand,  # noqa: E731
                                    handle, owner)
    groups = describe()
    return {
        "GroupedGemm.run(sync=False)":
            host_cost(lambda: plan.run(As, Bs, None, Ds, sync=False), 200),
        "Python: operand descriptions": host_cost(describe, 200),
        "C++: checks without a launch":
            host_cost(lambda: plan._grouped.check(groups, 1.0, 0.0), 200),
        "C++: run on described operands":
            host_cost(lambda: plan._grouped.run(groups, 1.0, 0.0, handle, False), 200),
    }


def seed_experiment(reps):
    problems = seed_problems()
    dt = torch.float16
    As = [torch.randn(m, k, device="cuda", dtype=dt) / 4 for m, n, k in problems]
    Bs = [torch.randn(k, n, device="cuda", dtype=dt) / 4 for m, n, k in problems]
    Ds = [torch.empty(m, n, device="cuda", dtype=dt) for m, n, k in problems]
    Ts = [torch.empty(m, n, device="cuda", dtype=dt) for m, n, k in problems]
    plan = warploom.op.GroupedGemm(element=dt, layout=warploom.LayoutType.RowMajor)
    s5b2 = variant(warploom.op.GroupedGemm(element=dt, layout=warploom.LayoutType.RowMajor),
                   PINGPONG, 5, 2)

    def ours():
        plan.run(As, Bs, None, Ds, sync=False)

    def theirs():
        for a, b, t in zip(As, Bs, Ts):
            torch.matmul(a, b, out=t)

    # Set up once (GroupedGemm.prepare): each call is the grouped kernel alone.
    prepared = plan.prepare(As, Bs, None, Ds)
    contenders = {"warploom.op.GroupedGemm": ours,
                  "warploom.op.PreparedGroupedGemm": lambda: prepared.run(sync=False),
                  "torch.matmul loop (cuBLAS)": theirs}
    if s5b2 is not None:
        contenders["warploom.op.GroupedGemm, ping-pong s5 b2"] = \
            lambda: s5b2.run(As, Bs, None, Ds, sync=False)
    for fn in contenders.values():
        fn()
    torch.cuda.synchronize()
    host = host_costs(plan, As, Bs, Ds)
    host["PreparedGroupedGemm.run(sync=False)"] = host_cost(lambda: prepared.run(sync=False), 200)
    want = [a.double() @ b.double() for a, b in zip(As, Bs)]
    flops = sum(2.0 * m * n * k for m, n, k in problems)
    return {"problems": len(problems), "dtype": "fp16", "layout": "all row-major",
            "gflop": flops / 1e9,
            "max_error_relative_to_max": {"warploom": max_relative_error(Ds, want),
                                          "torch.matmul loop": max_relative_error(Ts, want)},
            "host_us_per_call": host,
            "us": compare(contenders, reps, flops)}


def moe(reps, experts=16, hidden=4096):
    random.seed(0)
    ms = [256 * random.randint(1, 8) for _ in range(experts)]
    dt = torch.bfloat16
    x = torch.randn(sum(ms), hidden, device="cuda", dtype=dt) / 8
    w = torch.randn(experts, hidden, hidden, device="cuda", dtype=dt) / 8  # (G, N, K): Linear's
    offsets = torch.tensor(ms, device="cuda", dtype=torch.int32).cumsum(0, dtype=torch.int32)
    As = list(x.split(ms))
    Bs = [w[e].t() for e in range(experts)]  # K x N, column-major: the "tn" kernel
    Ds = [torch.empty(m, hidden, device="cuda", dtype=dt) for m in ms]
    Ts = [torch.empty(m, hidden, device="cuda", dtype=dt) for m in ms]
    plan = warploom.op.GroupedGemm(A=As[0], B=Bs[0], C=Ds[0], D=Ds[0])
    # The same groups with the cooperative design's 128 x 256 tiles (1x1 cluster).
    coop = warploom.op.GroupedGemm(A=As[0], B=Bs[0], C=Ds[0], D=Ds[0])
    coop.compile(next(td for td in coop.tile_descriptions()
                      if td.design == warploom._core.ConsumerDesign.Cooperative
                      and td.cluster_m == td.cluster_n == 1))
    s5b2 = variant(warploom.op.GroupedGemm(A=As[0], B=Bs[0], C=Ds[0], D=Ds[0]), PINGPONG, 5, 2)
    # Ping-pong with its default stages: the grouped kernel's Auto design before long-K groups took
    # the cooperative kernel with 3 stages (gemm::selected_grouped_tuning).
    pingpong = variant(warploom.op.GroupedGemm(A=As[0], B=Bs[0], C=Ds[0], D=Ds[0]), PINGPONG, 6, 1)
    prepared = plan.prepare(As, Bs, None, Ds)
    contenders = {
        "warploom.op.GroupedGemm": lambda: plan.run(As, Bs, None, Ds, sync=False),
        "warploom.op.PreparedGroupedGemm": lambda: prepared.run(sync=False),
        "warploom.op.GroupedGemm, cooperative":
            lambda: coop.run(As, Bs, None, Ds, sync=False),
        "torch.matmul loop (cuBLAS)":
            lambda: [torch.matmul(a, b, out=t) for a, b, t in zip(As, Bs, Ts)],
    }
    if s5b2 is not None:
        contenders["warploom.op.GroupedGemm, ping-pong s5 b2"] = \
            lambda: s5b2.run(As, Bs, None, Ds, sync=False)
    if pingpong is not None:
        contenders["warploom.op.GroupedGemm, ping-pong"] = \
            lambda: pingpong.run(As, Bs, None, Ds, sync=False)
    # torch._grouped_mm's own operands (stacked x and D, offsets on the device): the contiguous
    # layout, one launch whose routing is read on the GPU.
    stacked = torch.empty(sum(ms), hidden, device="cuda", dtype=dt)
    contenders["warploom.op.GroupedGemm.run_contiguous"] = \
        lambda: plan.run_contiguous(x, w.transpose(-2, -1), stacked, offsets, sync=False)
    if hasattr(torch, "_grouped_mm"):
        contenders["torch._grouped_mm"] = lambda: torch._grouped_mm(x, w.transpose(-2, -1),
                                                                    offs=offsets)
    for fn in contenders.values():
        fn()
    torch.cuda.synchronize()
    flops = sum(2.0 * m * hidden * hidden for m in ms)
    want = [a.float() @ b.float() for a, b in zip(As, Bs)]
    errors = {"warploom": max_relative_error(Ds, want),
              "warploom contiguous": max_relative_error(list(stacked.split(ms)), want),
              "torch.matmul loop": max_relative_error(Ts, want)}
    return {"experts": experts, "m_per_expert": ms, "n": hidden, "k": hidden, "dtype": "bf16",
            "gflop": flops / 1e9, "max_error_relative_to_max": errors,
            "us": compare(contenders, reps, flops)}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--json", required=True)
    args = p.parse_args()
    out = {
        **run_facts(args),
        "method": __doc__.split("\n\n")[2].replace("\n", " "),
        "seed_experiment": seed_experiment(args.reps), "moe": moe(args.reps),
    }
    with open(args.json, "w") as f:
        json.dump(out, f, indent=2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
