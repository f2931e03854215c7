#!/usr/bin/env python3
"""Median kernel time per (kernel, grid size) from `ncu --csv` output, one file per shape.

`warploom bench --prof ncu` profiles each provider's default configuration only; to see every
tuning point under Nsight Compute's controlled clocks, run the benchmark with --autotune inside
ncu, one shape at a time, and reduce the CSVs here:

    for s in A B; do
      ncu --csv --metrics gpu__time_duration.sum,launch__grid_size \
          warploom bench split_k_gemm --shapes $s --autotune --reps 3 --no-check > $s.csv
    done
    python3 tools/ncu_kernel_times.py A=A.csv B=B.csv --skip fill_uniform

Kernels whose grid size differs (a tuning point such as split_k) are told apart by it. Prints
JSON: per shape, per kernel and grid size, the launches' median time in microseconds and their
count.
"""
import argparse
import csv
import json
import statistics
import sys


def kernel_times(path, skip):
    with open(path) as f:
        rows = list(csv.reader(line for line in f if line.startswith('"')))
    if not rows:
        sys.exit(f"{path}: no ncu CSV rows")
    header = rows[0]
    col = {name: header.index(name) for name in ("ID", "Kernel Name", "Metric Name", "Metric Value")}
    launches = {}
    for r in rows[1:]:
        launch = launches.setdefault(int(r[col["ID"]]), {"kernel": r[col["Kernel Name"]]})
        launch[r[col["Metric Name"]]] = r[col["Metric Value"]].replace(",", "")
    times = {}
    for _, launch in sorted(launches.items()):
        if skip and skip in launch["kernel"]:
            continue
        key = f"{launch['kernel'].split('(')[0]} grid={launch['launch__grid_size']}"
        times.setdefault(key, []).append(float(launch["gpu__time_duration.sum"]) / 1e3)  # ns -> us
    return {k: {"median_us": round(statistics.median(v), 2), "launches": len(v)} for k, v in times.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="SHAPE=CSV: ncu --csv output of one shape")
    ap.add_argument("--skip", help="leave out kernels whose name contains this (input generation)")
    args = ap.parse_args()
    out = {}
    for item in args.files:
        shape, sep, path = item.partition("=")
        if not sep:
            sys.exit(f"{item}: expected SHAPE=CSV")
        out[shape] = kernel_times(path, args.skip)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
