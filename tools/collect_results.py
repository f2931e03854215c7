#!/usr/bin/env python3
"""Bundle a benchmark run into one committed result: timings, SASS comparison and the facts
needed to reproduce it (device, driver, clocks before and after, regime, date, command, commit).

    tools/collect_results.py --bench B.json [--bench C.json ...] [--sass S.json] \
        [--checks-log gpu.log] --smi-before "..." --smi-after "..." --command "bash tools/gpu.sh" \
        --out R.json

One --bench file lands under "benchmark"; several land under "benchmarks", keyed by file name.
--checks-log: tools/gpu.sh's log; every test and sanitizer step in it lands under "checks" with its
command, ok or FAILED, and its summary lines. WARPLOOM_COMMIT, when set, names the commit (the
device machine's copy of the tree may carry a stale .git).
"""
import argparse
import datetime
import json
import os
import re
import subprocess


def checks_of(log_text):
    """{label: {command, result, summary}} for the test and sanitizer steps of a gpu.sh log."""
    checks = {}
    steps = re.split(r"^== ", log_text, flags=re.M)
    for step in steps[1:]:
        head, _, body = step.partition("\n")
        label, _, command = head.partition(": ")
        if not re.search(r"tests|sass|sanitizer", label):
            continue
        summary = [line.strip() for line in body.splitlines()
                   if re.search(r"tests passed|tests failed|ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED", line)]
        checks[label] = {"command": command,
                         "result": ("FAILED" if "   FAILED (" in body else
                                    "ok" if re.search(r"^   ok$", body, re.M) else
                                    "incomplete: the run ended inside this step"),
                         "summary": summary[-3:]}
    return checks


def smi_fields(line):
    keys = ["name", "driver_version", "clocks_sm_mhz", "clocks_max_sm_mhz", "clocks_mem_mhz",
            "power_draw_w", "power_limit_w", "temperature_c"]
    vals = [v.strip() for v in line.split(",")] if line else []
    return dict(zip(keys, vals))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True, action="append")
    ap.add_argument("--sass")
    ap.add_argument("--checks-log")
    ap.add_argument("--smi-before", default="")
    ap.add_argument("--smi-after", default="")
    ap.add_argument("--command", required=True)
    ap.add_argument("--regime", default="burst",
                    help="burst: short interleaved runs at boost clock; sustained: after the card reached its power cap")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    commit = os.environ.get("WARPLOOM_COMMIT", "")
    if not commit:
        try:
            commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True,
                                    text=True).stdout.strip()
        except OSError:
            commit = ""
    if len(commit) != 40:  # the device machine may get a copy of the tree without .git
        commit = "unknown: run from a copy without .git (set WARPLOOM_COMMIT)"
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
    if a.checks_log:
        result["checks"] = checks_of(open(a.checks_log).read())
    with open(a.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
