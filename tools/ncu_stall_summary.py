#!/usr/bin/env python3
"""Where a kernel's warps wait, from Nsight Compute's source page (SASS with warp samples).

    ncu -i report.ncu-rep --page source --csv --print-source sass > source.csv
    tools/ncu_stall_summary.py source.csv [--kernel REGEX] [--top N] [--around ADDR_SUFFIX ...]

For each profiled kernel whose name matches (the first launch of each name only): the warp samples
by stall reason, in percent of all samples, then the N instructions with the most samples and
their three largest reasons; --around prints the instructions before an address (its last hex
digits), to see which barrier a hot `@!P0 BRA` spins on. The reasons do not always add up to an
instruction's samples (ncu leaves some unattributed, e.g. on HGMMA); the totals are what it
attributes.
"""

import argparse
import collections
import csv
import re
import sys


def kernels(path):
    """[(name, header, rows)] in the file's order."""
    out = []
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if not row:
                continue
            if row[0] == "Kernel Name":
                out.append([row[1], None, []])
            elif row[0] == "Address" and out:
                out[-1][1] = row
            elif out and out[-1][1] is not None:
                out[-1][2].append(row)
    return out


def summarize(name, header, rows, top, around):
    col = {n: i for i, n in enumerate(header)}
    reasons = [n for n in header if n.startswith("stall_") and "Not Issued" not in n]
    total, by_reason, lines = 0, collections.Counter(), []
    for r in rows:
        samples = int(r[col["Warp Stall Sampling (All Samples)"]] or 0)
        per = {c: int(r[col[c]]) for c in reasons if r[col[c]] not in ("", "0")}
        total += samples
        by_reason.update(per)
        lines.append((samples, r[col["Address"]], r[col["Source"]].strip(), per))
    print(f"{name}\n  {total} warp samples")
    for reason, n in by_reason.most_common(12):
        print(f"  {reason:28s} {n:8d} {100 * n / max(total, 1):5.1f} %")
    print(f"  top {top} instructions (samples, address, SASS, largest reasons):")
    for samples, address, source, per in sorted(lines, key=lambda x: -x[0])[:top]:
        largest = ", ".join(f"{k[6:]} {v}" for k, v in sorted(per.items(), key=lambda x: -x[1])[:3])
        print(f"  {samples:7d} {address[-6:]} {source[:64]:64s} {largest}")
    for suffix in around:
        for i, (_, address, _, _) in enumerate(lines):
            if address.endswith(suffix):
                print(f"  before {suffix}:")
                for samples, a, source, _ in lines[max(0, i - 8):i + 2]:
                    print(f"  {samples:7d} {a[-6:]} {source[:72]}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("source_csv")
    p.add_argument("--kernel", default=".", help="regex on the kernel's name")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--around", nargs="*", default=[], metavar="ADDR_SUFFIX")
    args = p.parse_args()
    seen = set()
    for name, header, rows in kernels(args.source_csv):
        if header is None or name in seen or not re.search(args.kernel, name):
            continue
        seen.add(name)
        summarize(name, header, rows, args.top, args.around)
    if not seen:
        sys.exit(f"ncu_stall_summary: no kernel matches {args.kernel!r}")


if __name__ == "__main__":
    main()
