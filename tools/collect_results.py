#!/usr/bin/env python3
"""Bundle a benchmark run into one committed result: timings, SASS comparison and the facts
needed to reproduce it (device, driver, clocks before and after, regime, date, command, commit).

    tools/collect_results.py --bench B.json [--bench C.json ...] [--sass S.json] \
        --smi-before "..." --smi-after "..." --command "bash tools/gpu.sh" --out R.json

One --bench file lands under "benchmark"; several land under "benchmarks", keyed by file name.
"""
import argparse
import datetime
import json
import os
import subprocess


def smi_fields(line):
    keys = ["name", "driver_version", "clocks_sm_mhz", "clocks_max_sm_mhz", "clocks_mem_mhz",
            "power_draw_w", "power_limit_w", "temperature_c"]
    vals = [v.strip() for v in line.split(",")] if line else []
    return dict(zip(keys, vals))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True, action="append")
    ap.add_argument("--sass")
    ap.add_argument("--smi-before", default="")
    ap.add_argument("--smi-after", default="")
    ap.add_argument("--command", required=True)
    ap.add_argument("--regime", default="burst",
                    help="burst: short interleaved runs at boost clock; sustained: after the card reached its power cap")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    if len(commit) != 40:  # the device machine gets a copy of the tree without .git
        commit = os.environ.get("WARPLOOM_COMMIT", "unknown: run from a copy without .git")
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": a.command,
        "commit": commit,
        "regime": a.regime,
        "gpu_before": smi_fields(a.smi_before),
        "gpu_after": smi_fields(a.smi_after),
    }
    if len(a.bench) == 1:
        result["benchmark"] = json.load(open(a.bench[0]))
    else:
        result["benchmarks"] = {os.path.splitext(os.path.basename(b))[0]: json.load(open(b))
                                for b in a.bench}
    if a.sass:
        result["sass"] = json.load(open(a.sass))
    with open(a.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
