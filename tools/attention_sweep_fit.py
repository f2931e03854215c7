#!/usr/bin/env python3
"""What a tile costs besides its key blocks: a fit of an attention sweep's times.

    tools/attention_sweep_fit.py bench/results/attention_sweep_<date>.json [--sms 132]

The sweep (bench/python/attention.py --sweep) holds the tokens per batch (16384) and H * D (2048)
fixed, so every point has the same number of query tiles and only the key blocks per tile grow
with S. Per head dimension and mask, the overlap schedule's time is fitted (least squares) as

    time = block * (key blocks visited) / SMs + tile * (tiles) / SMs

with the blocks and tiles counted as the kernel visits them: its tile rows and keys per block
(the run's `tile`, which bench/python/attention.py records from warploom._core's
attention_kernel_shape; for a sweep that predates it, asked of the installed package), the last
tile and block of a sequence partial, the causal tiles up to the diagonal. `block` is what one CTA spends per key block, `tile` what it
spends per tile besides (Q's wait, the first S and the last P . V unoverlapped, O's normalisation
and store, the tile queue, the launch's share): in microseconds, and `tile` also in blocks. For
cuDNN, whose tiling is not ours to count, the plain line time = per_token * S + fixed, beside ours.
"""
import argparse
import json
import math

OURS = "warploom overlap"
CUDNN = "torch sdpa (cuDNN)"


def least_squares(rows, ys):
    """x minimising |rows . x - ys| (normal equations; two or three unknowns)."""
    n = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    b = [sum(r[i] * y for r, y in zip(rows, ys)) for i in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            f = a[j][i] / a[i][i]
            a[j] = [x - f * y for x, y in zip(a[j], a[i])]
            b[j] -= f * b[i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (b[i] - sum(a[i][k] * x[k] for k in range(i + 1, n))) / a[i][i]
    return x


def visited(seqlen, rows, keys, causal):
    """(tiles, key blocks) one (sequence, head) pair makes the kernel visit."""
    tiles = math.ceil(seqlen / rows)
    if not causal:
        return tiles, tiles * math.ceil(seqlen / keys)
    return tiles, sum(math.ceil(min((m + 1) * rows, seqlen) / keys) for m in range(tiles))


def tile_of(run):
    """(query rows per tile, keys per block) of our kernel in `run`: as the sweep recorded it, or
    (older sweeps) as the installed warploom package's kernels have it."""
    tile = run["contenders"][OURS].get("tile")
    if tile is None:
        try:
            import warploom._core as core
        except ImportError:
            raise SystemExit("this sweep does not record its tile shapes (bench/python/attention.py "
                             "does since 2026-12-06): put the warploom package on PYTHONPATH to "
                             "take them from its kernels")
        head_dim = int(run["shape"].split("x")[3])
        tile = core.attention_kernel_shape(head_dim, run["causal"], core.AttentionSchedule.overlap)
    return tile["block_m"], tile["block_n"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sweep")
    ap.add_argument("--sms", type=int, default=132, help="the GPU's SMs (H100 and H200: 132)")
    args = ap.parse_args()
    with open(args.sweep) as f:
        runs = json.load(f)["runs"]
    print(f"{'D':>3} {'mask':6} {'block us':>9} {'tile us':>8} {'= blocks':>8} {'resid':>6}   "
          f"{'ours us/S':>9} {'fixed us':>8}   {'cuDNN us/S':>10} {'fixed us':>8}")
    keys_of = sorted({(int(r["shape"].split("x")[3]), r["causal"]) for r in runs
                      if OURS in r["contenders"]})
    for head_dim, causal in keys_of:
        points = [r for r in runs if r["causal"] == causal and
                  int(r["shape"].split("x")[3]) == head_dim and OURS in r["contenders"]]
        if len(points) < 3:
            continue
        design, simple, ys, ys_cudnn = [], [], [], []
        for r in points:
            batch, heads, seqlen, _ = (int(x) for x in r["shape"].split("x"))
            rows, keys = tile_of(r)
            tiles, blocks = visited(seqlen, rows, keys, causal)
            design.append([batch * heads * blocks / args.sms, batch * heads * tiles / args.sms])
            simple.append([seqlen, 1.0])
            ys.append(r["contenders"][OURS]["ms"] * 1e3)
            ys_cudnn.append(r["contenders"][CUDNN]["ms"] * 1e3 if CUDNN in r["contenders"] else 0)
        block, tile = least_squares(design, ys)
        resid = max(abs(block * d[0] + tile * d[1] - y) / y for d, y in zip(design, ys))
        ours = least_squares(simple, ys)
        cudnn = least_squares(simple, ys_cudnn) if all(ys_cudnn) else [math.nan, math.nan]
        print(f"{head_dim:>3} {'causal' if causal else 'none':6} {block:9.3f} {tile:8.3f} "
              f"{tile / block:8.2f} {resid:6.1%}   {ours[0] * 1e3:9.2f} {ours[1]:8.1f}   "
              f"{cudnn[0] * 1e3:10.2f} {cudnn[1]:8.1f}")
    print("(us/S: microseconds per 1000 keys of S; fixed: the line's intercept, in microseconds)")


if __name__ == "__main__":
    main()
