#!/usr/bin/env python3
"""Ratios of the fused-epilogue benchmark (`warploom bench gemm --epilogue ...` JSON): the fused
GEMM's speed against the plain GEMM, the unfused chains and cuBLASLt's own epilogue, per shape,
with geomeans. Usage: tools/summarize_epilogue_bench.py RESULT.json [...]"""
import json
import math
import sys

PAIRS = [("plain", "warploom_plain"), ("unfused_chain_ours", "warploom_unfused"),
         ("unfused_chain_cublas", "cublas"), ("cublaslt_epilogue", "cublaslt"),
         ("plan_api", "warploom_plan")]


def summarize(path):
    d = json.load(open(path))
    rows, logs = [], {name: [] for name, _ in PAIRS}
    for s in d["shapes"]:
        ms = {r["provider"]: r["median_ms"] for r in s["results"]}
        fused = ms.get("warploom")
        row = {"shape": "x".join(map(str, s["shape"]))}
        for name, provider in PAIRS:
            if fused and provider in ms:
                row[f"fused_speed_vs_{name}"] = round(ms[provider] / fused, 3)
                logs[name].append(math.log(ms[provider] / fused))
        rows.append(row)
    geo = {f"fused_speed_vs_{n}": round(math.exp(sum(v) / len(v)), 3) for n, v in logs.items() if v}
    return {"file": path, "epilogue": d["parameters"]["epilogue"], "per_shape": rows,
            "geomean": geo}


if __name__ == "__main__":
    print(json.dumps([summarize(p) for p in sys.argv[1:]], indent=2))
