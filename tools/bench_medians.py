#!/usr/bin/env python3
"""Prints the medians of benchmark JSON files, one line per contender, for a device log.

A `warploom bench` file (its "shapes"): file, contender, median and p10 in us, check. A
`bench/python/grouped.py` file (its "seed_experiment" and "moe"): part, contender, back to back,
one replay and eager in us, then the seed's host time per call. A missing or unreadable file is
reported and skipped, so a device call cut short still logs what it has.

    python3 tools/bench_medians.py $OUT/seed.json $OUT/moe.json $OUT/grouped_python.json
"""
import json
import os
import sys


def print_medians(path):
    name = os.path.basename(path)
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as error:
        print(name, "missing", error)
        return
    for shape in data.get("shapes", []):
        for r in shape["results"]:
            print(name, r["contender"], round(1e3 * r["median_ms"], 2), "us p10",
                  round(1e3 * r["p10_ms"], 2), r["check"])
    for part in ("seed_experiment", "moe"):
        for contender, v in data.get(part, {}).get("us", {}).items():
            print(part, contender, round(v["graph_back_to_back_us"], 2), round(v["graph_us"], 2),
                  round(v["eager_us"], 2))
    host = data.get("seed_experiment", {}).get("host_us_per_call")
    if host:
        print("host us per call", host)


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print_medians(path)
