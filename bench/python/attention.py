"""Issue 18's attention measurements, on the GPU machine, every contender in this one process:
warploom.op.attention (the serial schedule, FlashAttention-3's intra-warpgroup overlap, and that
overlap with the warpgroups in turns: FA3's ping-pong) against torch's
scaled_dot_product_attention with each backend this torch has on the GPU (cuDNN, and
FlashAttention-2 as torch bundles it), on the same (B, H, S, D) tensors (warploom reads torch's
layout in place: layout="bhsd").

Each sample times BACK_TO_BACK calls in a row between two CUDA events (clocks ramped, each launch's
latency behind the one before) and reports the time per call; medians of --reps samples,
contenders interleaved per round. FLOPs: 4 B H S^2 D, half of it with the causal mask. Every
contender's output is checked against torch's math backend in float32 on the first batch and head
(max |difference|, relative to max |reference|). Writes what it measured, with the device, torch's
version and the date, as JSON:

    PYTHONPATH=build/python-site python3 bench/python/attention.py --json out.json
    PYTHONPATH=build/python-site python3 bench/python/attention.py --sweep --json sweep.json \
        --svg sweep.svg

--sweep: FlashAttention-3's sweep instead of --shapes: S = 512 ... 16384 with 16384 tokens per
batch (B = 16384 / S) and H * D = 2048 (H = 2048 / D), D = 64, 128, 256, both masks; the chart
has one panel per head dimension and mask, TFLOP/s against S, one line per contender.
"""

import argparse
import json
import time

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

import warploom
from host_timing import event_times, run_facts

BACK_TO_BACK = 10
BACKENDS = {"torch sdpa (cuDNN)": SDPBackend.CUDNN_ATTENTION,
            "torch sdpa (FlashAttention-2)": SDPBackend.FLASH_ATTENTION}


def contenders(q, k, v, causal, layout):
    """{name: fn() -> output (B, H, S, D)} for every contender that runs on these tensors (q, k, v
    (B, H, S, D) views; with layout "bshd", of (B, S, H, D) tensors, which warploom reads as they
    lie)."""
    ours = (q, k, v) if layout == "bhsd" else tuple(x.transpose(1, 2) for x in (q, k, v))
    out = torch.empty_like(ours[0])
    lse = torch.empty(q.shape[0], q.shape[1], q.shape[2], device="cuda", dtype=torch.float32)
    found = {}

    def view(o):  # our output as (B, H, S, D)
        return o if layout == "bhsd" else o.transpose(1, 2)

    kind = warploom._core.AttentionType.bf16 if q.dtype == torch.bfloat16 else \
        warploom._core.AttentionType.f16
    for schedule in ("serial", "overlap", "pingpong"):
        name = f"warploom {schedule}"
        which = getattr(warploom._core.AttentionSchedule, schedule)
        if not warploom._core.attention_schedule_runs(q.shape[-1], which):
            continue  # no such kernel (the ping-pong at head_dim 256)
        if not warploom._core.attention_instance_built(kind, q.shape[-1], causal, which):
            print(f"skipped {name}: not built (WARPLOOM_ATTENTION_INSTANCES=all builds it)")
            continue
        found[name] = (lambda s: lambda: view(warploom.op.attention(
            *ours, causal=causal, layout=layout, out=out, lse=lse, schedule=s)[0]))(schedule)
    for name, backend in BACKENDS.items():
        def run(backend=backend):
            with sdpa_kernel(backend):
                return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        try:
            run()
            torch.cuda.synchronize()
        except RuntimeError as e:  # this torch has no such backend for these tensors
            print(f"skipped {name}: {str(e).splitlines()[0]}")
            continue
        found[name] = run
    return found


def error_relative_to_max(got, q, k, v, causal):
    """max |got - reference| / max |reference| on batch 0, head 0 (the math backend, fp32)."""
    q0, k0, v0 = (x[:1, :1].float() for x in (q, k, v))
    with sdpa_kernel(SDPBackend.MATH):
        want = torch.nn.functional.scaled_dot_product_attention(q0, k0, v0, is_causal=causal)
    return float((got[:1, :1].float() - want).abs().max() / want.abs().max())


def load_for(fns, seconds):
    """Runs every contender in turn for `seconds` (the sustained regime: the GPU at its power cap
    and clocks as they settle under load, not a cold burst)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for fn in fns:
            fn()
        torch.cuda.synchronize()


def inputs(batch, heads, seqlen, head_dim, dtype, data, layout):
    """q, k, v as (B, H, S, D) views: standard normal or uniform in [-1, 1) (the C++ bench's data),
    stored (B, H, S, D) or (B, S, H, D)."""
    shape = (batch, heads, seqlen, head_dim) if layout == "bhsd" else \
        (batch, seqlen, heads, head_dim)
    out = []
    for _ in range(3):
        x = torch.randn(shape, device="cuda", dtype=dtype) if data == "normal" else \
            torch.rand(shape, device="cuda", dtype=dtype) * 2 - 1
        out.append(x if layout == "bhsd" else x.transpose(1, 2))
    return out


def measure(batch, heads, seqlen, head_dim, causal, dtype, reps, sustained_s=0.0, data="normal",
            layout="bhsd"):
    torch.manual_seed(0)
    q, k, v = inputs(batch, heads, seqlen, head_dim, dtype, data, layout)
    fns = contenders(q, k, v, causal, layout)
    errors = {}
    for name, fn in fns.items():
        errors[name] = error_relative_to_max(fn(), q, k, v, causal)
    torch.cuda.synchronize()
    load_for(list(fns.values()), sustained_s)
    times = dict(zip(fns, event_times(list(fns.values()), reps, BACK_TO_BACK)))
    flops = 4.0 * batch * heads * seqlen * seqlen * head_dim * (0.5 if causal else 1.0)
    result = {"shape": f"{batch}x{heads}x{seqlen}x{head_dim}", "causal": causal,
              "dtype": str(dtype).removeprefix("torch."), "data": data, "layout": layout,
              "contenders": {}}
    for name in fns:
        ms = times[name]["median_ms"]
        result["contenders"][name] = {"ms": ms, "p10_ms": times[name]["p10_ms"],
                                      "p90_ms": times[name]["p90_ms"],
                                      "tflop_per_s": flops / ms / 1e9,
                                      "error_relative_to_max": errors[name]}
        if name.startswith("warploom "):  # the kernel's tile, for what counts tiles and blocks
            schedule = getattr(warploom._core.AttentionSchedule, name.removeprefix("warploom "))
            result["contenders"][name]["tile"] = warploom._core.attention_kernel_shape(
                head_dim, causal, schedule)
    reference = result["contenders"].get("torch sdpa (cuDNN)")
    if reference is not None:
        for c in result["contenders"].values():
            c["speed_vs_cudnn"] = reference["ms"] / c["ms"]
    return result


def sweep_shapes():
    """FlashAttention-3's sweep: 16384 tokens, H * D = 2048, S = 512 ... 16384."""
    return [f"{16384 // s}x{2048 // d}x{s}x{d}" for d in (64, 128, 256)
            for s in (512, 1024, 2048, 4096, 8192, 16384)]


def svg_chart(runs):
    """A line chart per (head_dim, mask): TFLOP/s against S (log2), one line per contender. Plain
    SVG (no plotting library on the GPU machine)."""
    panels = sorted({(int(r["shape"].split("x")[3]), r["causal"]) for r in runs})
    names = sorted({n for r in runs for n in r["contenders"]})
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
    w, h, pad = 360, 240, 40
    top = max(c["tflop_per_s"] for r in runs for c in r["contenders"].values()) * 1.1
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * 2}" '
           f'height="{h * ((len(panels) + 1) // 2) + 30 + 16 * len(names)}" font-size="11">']
    for i, (d, causal) in enumerate(panels):
        x0, y0 = (i % 2) * w, (i // 2) * h
        out.append(f'<text x="{x0 + pad}" y="{y0 + 14}">D = {d}, '
                   f'{"causal" if causal else "no mask"}: TFLOP/s against S</text>')
        out.append(f'<rect x="{x0 + pad}" y="{y0 + 20}" width="{w - 2 * pad}" '
                   f'height="{h - 2 * pad}" fill="none" stroke="#888"/>')
        mine = sorted(((int(r["shape"].split("x")[2]), r) for r in runs
                       if int(r["shape"].split("x")[3]) == d and r["causal"] == causal),
                      key=lambda sr: sr[0])  # by S alone: two runs of one S must not compare dicts
        xs = [s for s, _ in mine]

        def px(s):
            span = max(1, len(xs) - 1)
            return x0 + pad + (w - 2 * pad) * xs.index(s) / span

        def py(t):
            return y0 + 20 + (h - 2 * pad) * (1 - t / top)

        for s in xs:
            out.append(f'<text x="{px(s) - 12:.0f}" y="{y0 + h - 6}">{s}</text>')
        for k, name in enumerate(names):
            points = [(px(s), py(r["contenders"][name]["tflop_per_s"])) for s, r in mine
                      if name in r["contenders"]]
            if points:
                path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
                out.append(f'<polyline points="{path}" fill="none" '
                           f'stroke="{colors[k % len(colors)]}" stroke-width="2"/>')
    y = h * ((len(panels) + 1) // 2) + 16
    for k, name in enumerate(names):
        out.append(f'<text x="{pad}" y="{y + 16 * k}" fill="{colors[k % len(colors)]}">'
                   f'{name}</text>')
    out.append(f'<text x="{w}" y="{y}">y axis 0 ... {top:.0f} TFLOP/s</text></svg>')
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--shapes", default="4x32x4096x128,4x32x4096x64,2x16x8192x128,4x16x4096x256",
                   help="comma-separated BxHxSxD")
    p.add_argument("--sweep", action="store_true", help="FlashAttention-3's sweep (see above)")
    p.add_argument("--sustained", type=float, default=0.0, metavar="SECONDS",
                   help="before each shape's timing, run the contenders for SECONDS (0: burst)")
    p.add_argument("--data", choices=("normal", "uniform"), default="normal",
                   help="inputs standard normal, or uniform in [-1, 1) as in `warploom bench`")
    p.add_argument("--layout", choices=("bhsd", "bshd"), default="bhsd",
                   help="how q, k, v lie in memory (torch's SDPA reads either through strides)")
    p.add_argument("--json", required=True)
    p.add_argument("--svg", help="write the chart here")
    args = p.parse_args()
    runs = []
    for shape in (sweep_shapes() if args.sweep else args.shapes.split(",")):
        b, h, s, d = (int(x) for x in shape.split("x"))
        for causal in (False, True):
            r = measure(b, h, s, d, causal, torch.bfloat16, args.reps, args.sustained, args.data,
                        args.layout)
            runs.append(r)
            for name, c in r["contenders"].items():
                print(f"{r['shape']:>16} {'causal' if causal else 'full':>6} {name:<32} "
                      f"{c['ms']:8.3f} ms {c['tflop_per_s']:7.1f} TFLOP/s "
                      f"x{c.get('speed_vs_cudnn', float('nan')):.2f} cuDNN "
                      f"err {c['error_relative_to_max']:.1e}")
    regime = f"sustained ({args.sustained:g} s of load before each shape)" if args.sustained \
        else "burst"
    out = {**run_facts(args), "regime": regime,
           "method": __doc__.split("\n\n")[1].replace("\n", " "),
           "warploom": warploom.__file__, "runs": runs}
    with open(args.json, "w") as f:
        json.dump(out, f, indent=2)
    if args.svg:
        with open(args.svg, "w") as f:
            f.write(svg_chart(runs))


if __name__ == "__main__":
    main()
