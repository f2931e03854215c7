#!/usr/bin/env python3
"""Where a grouped launch's time goes, CTA by CTA, from the timeline variant's printout.

    tools/tile_timeline.py <log> [--launch N] [--width 100] [--json OUT]

bench/variants/grouped_tile_timeline.patch has each CTA of a few launches of the grouped kernel
record, per tile, when its load warp issued the first K tile (kind 1), when the MMA warpgroups
issued their first and last K tile (2 and 3; 12 and 13 for the second warpgroup), and when their
epilogue began and ended (4 and 5; 14 and 15), beside the CTA's start (0, after the wait for the
grid before it) and end (9). Each event holds the SM's clock64 and the GPU's %globaltimer (ns):
times within a CTA are taken from clock64 (converted to ns with the CTA's own clock rate, its
clock ticks over its globaltimer span), the CTAs are placed against each other by globaltimer.

Prints, per launch: the span from the first CTA's start to the last one's end, and the mean over
the CTAs of what that span held — the wait for the first K tile, main loops, epilogues, the gaps
between a tile's epilogue and the next tile's first K tile, and the tail after a CTA's last tile
— then the tiles' main-loop cycles per K tile by K, the load latency of the tiles whose MMA
waited for their first K tile, and a chart of every CTA ('#' main loop, 'e' epilogue, '.' waiting).
"""
import argparse
import collections
import json
import statistics
import sys

START, LOAD_FIRST, MMA_FIRST, MMA_LAST, EPI_BEGIN, EPI_END, END = 0, 1, 2, 3, 4, 5, 9


def parse(lines):
    """{launch: {cta: [(kind, g, m, n, k, clk, gt)]}} from the lines starting with 'TL '."""
    launches = collections.defaultdict(lambda: collections.defaultdict(list))
    for line in lines:
        fields = line.split()
        if len(fields) != 10 or fields[0] != "TL":
            continue
        launch, cta, kind, g, m, n, k = (int(x) for x in fields[1:8])
        launches[launch][cta].append((kind % 10, g, m, n, k, int(fields[8]), int(fields[9])))
    return launches


def cta_timeline(events):
    """One CTA's start (ns, globaltimer), span and clock, and its tiles in order (ns from start)."""
    starts = [e for e in events if e[0] == START]
    ends = [e for e in events if e[0] == END]
    if not starts or not ends:
        return None
    s, e = starts[0], ends[0]
    span_clk, span_gt = e[5] - s[5], e[6] - s[6]
    ns_per_clk = span_gt / span_clk if span_clk > 0 and span_gt > 0 else 1.0
    tiles = collections.OrderedDict()
    for kind, g, m, n, k, clk, _ in sorted(events, key=lambda x: x[5]):
        if kind in (START, END):
            continue
        t = tiles.setdefault((g, m, n), {"k": 0})
        if k:
            t["k"] = max(t["k"], k)
        at = (clk - s[5]) * ns_per_clk
        # The first of the two warpgroups to start, the last to finish.
        if kind in (MMA_LAST, EPI_END):
            t[kind] = max(t.get(kind, at), at)
        else:
            t[kind] = min(t.get(kind, at), at)
    return {
        "start": s[6],
        "span": (e[5] - s[5]) * ns_per_clk,
        "ghz": 1.0 / ns_per_clk,
        "tiles": list(tiles.values()),
    }


def summarize(ctas, width):
    first = min(c["start"] for c in ctas.values())
    last = max(c["start"] - first + c["span"] for c in ctas.values())
    parts = collections.Counter()
    per_k = collections.defaultdict(list)
    latencies = []
    chart = []
    for cta in sorted(ctas):
        c = ctas[cta]
        offset = c["start"] - first
        parts["start offset"] += offset
        row = [" "] * width
        scale = width / last if last > 0 else 0.0

        def paint(a, b, ch, offset=offset, row=row, scale=scale):
            for i in range(int((offset + a) * scale), min(width, int((offset + b) * scale) + 1)):
                row[i] = ch

        paint(0, c["span"], ".")
        previous_end = 0.0
        for i, t in enumerate(c["tiles"]):
            if MMA_FIRST not in t or EPI_END not in t:
                continue  # a phantom, or a tile past its valid rows: no main loop or no store
            gap = t[MMA_FIRST] - previous_end
            parts["first K tile wait" if i == 0 else "between tiles"] += gap
            parts["main loop"] += t[EPI_BEGIN] - t[MMA_FIRST]
            parts["epilogue"] += t[EPI_END] - t[EPI_BEGIN]
            per_k[t["k"]].append((t[EPI_BEGIN] - t[MMA_FIRST]) * c["ghz"] / max(t["k"], 1))
            if LOAD_FIRST in t and t[MMA_FIRST] - t[LOAD_FIRST] > 0 and gap > 0:
                latencies.append(t[MMA_FIRST] - max(t[LOAD_FIRST], previous_end))
            paint(t[MMA_FIRST], t[EPI_BEGIN], "#")
            paint(t[EPI_BEGIN], t[EPI_END], "e")
            previous_end = t[EPI_END]
        parts["tail"] += c["span"] - previous_end + (last - offset - c["span"])
        chart.append(f"{cta:4d} {len(c['tiles']):2d} |{''.join(row)}|")
    n = len(ctas)
    return {
        "ctas": n,
        "span_us": last / 1e3,
        "clock_ghz": statistics.median(c["ghz"] for c in ctas.values()),
        "mean_us": {k: v / n / 1e3 for k, v in parts.items()},
        "cycles_per_k_tile": {
            k: {"tiles": len(v), "median": statistics.median(v), "max": max(v)}
            for k, v in sorted(per_k.items())
        },
        "first_k_tile_latency_us": (
            {"tiles": len(latencies), "median": statistics.median(latencies) / 1e3,
             "max": max(latencies) / 1e3} if latencies else None),
        "chart": chart,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--launch", type=int, help="only this launch (default: every one recorded)")
    ap.add_argument("--width", type=int, default=100)
    ap.add_argument("--json", help="also write the summaries (without the charts) here")
    args = ap.parse_args()
    with open(args.log, errors="replace") as f:
        launches = parse(f)
    if not launches:
        sys.exit(f"{args.log}: no 'TL' lines (run a build with grouped_tile_timeline.patch)")
    out = {}
    for launch in sorted(launches):
        if args.launch is not None and launch != args.launch:
            continue
        ctas = {c: t for c, ev in launches[launch].items() if (t := cta_timeline(ev)) is not None}
        s = summarize(ctas, args.width)
        print(f"launch {launch}: {s['ctas']} CTAs, {s['span_us']:.2f} us first start to last end, "
              f"SM clock {s['clock_ghz']:.2f} GHz")
        for part, us in s["mean_us"].items():
            print(f"  {part:18s} {us:7.2f} us a CTA (mean)")
        for k, v in s["cycles_per_k_tile"].items():
            print(f"  K tiles {k:3d}: {v['tiles']:3d} tiles, main loop {v['median']:6.0f} cycles a K "
                  f"tile (median), {v['max']:6.0f} max")
        if s["first_k_tile_latency_us"]:
            lat = s["first_k_tile_latency_us"]
            print(f"  a waiting tile's first K tile: {lat['median']:.2f} us after its load (median "
                  f"of {lat['tiles']}), {lat['max']:.2f} max")
        print("\n".join(s["chart"]))
        out[launch] = {k: v for k, v in s.items() if k != "chart"}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
