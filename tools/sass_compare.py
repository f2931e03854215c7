#!/usr/bin/env python3
"""Compare the SASS of every TS kernel with its hand-written baseline, opcode by opcode.

    tools/sass_compare.py <object-or-library> [--cuobjdump PATH] [--json OUT] [--sass-dir DIR]
                          [--fail-on-local-memory]

Kernels pair by name: `<x>_ts_kernel<cfg>` with `<x>_baseline_kernel<cfg>`, wherever each is
declared (a tutorial's TS kernel sits in its schedule header, its baseline in the .cu's anonymous
namespace). For each pair it prints the instruction count per opcode (modifiers dropped:
`SYNCS.PHASECHK.TRANS64` -> `SYNCS`), the totals, the opcodes whose counts differ, and whether
either kernel touches local memory (LDL/STL: a spill or a stack array). Needs no GPU: cuobjdump
reads the cubin.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

FUNC_SPLIT = re.compile(r"\n\s+Function : ")
INSTR = re.compile(r"/\*[0-9a-f]{4,6}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z0-9_.]+)")


def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
        return out.stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return names


def kernels(sass_text):
    result = {}
    for chunk in FUNC_SPLIT.split(sass_text)[1:]:
        name = chunk.split("\n", 1)[0].strip()
        ops = collections.Counter(m.group(1).split(".")[0] for m in INSTR.finditer(chunk))
        lines = [l.strip() for l in chunk.split("\n") if re.search(r"/\*[0-9a-f]{4,6}\*/", l)]
        result[name] = {"ops": ops, "lines": lines}
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--cuobjdump", default=os.path.join(os.path.dirname(__file__), "..", ".deps", "bin", "cuobjdump"))
    ap.add_argument("--json")
    ap.add_argument("--sass-dir", help="write each kernel's SASS listing here")
    ap.add_argument("--fail-on-local-memory", action="store_true",
                    help="exit 1 when any paired kernel touches local memory (LDL/STL)")
    args = ap.parse_args()
    sass = subprocess.run([args.cuobjdump, "--dump-sass", args.binary], capture_output=True, text=True, check=True).stdout
    ks = kernels(sass)
    pretty = dict(zip(ks.keys(), demangle(list(ks.keys()))))

    def pairing_key(name):
        return pretty[name].replace("(anonymous namespace)::", "")

    by_key = {pairing_key(n): n for n in ks}
    pairs = []
    for name in ks:
        if "_ts_kernel" in pretty[name]:
            base = by_key.get(pairing_key(name).replace("_ts_kernel", "_baseline_kernel"))
            if base:
                pairs.append((name, base))
    if not pairs:
        print("sass_compare: no <x>_ts_kernel / <x>_baseline_kernel pairs found", file=sys.stderr)
        return 1
    report = []
    for ts_name, base_name in pairs:
        t, b = ks[ts_name]["ops"], ks[base_name]["ops"]
        ops = sorted(set(t) | set(b))
        diff = {op: t[op] - b[op] for op in ops if t[op] != b[op]}
        entry = {
            "ts_kernel": pretty[ts_name],
            "baseline_kernel": pretty[base_name],
            "ts_instructions": sum(t.values()),
            "baseline_instructions": sum(b.values()),
            "ts_opcodes": dict(sorted(t.items())),
            "baseline_opcodes": dict(sorted(b.items())),
            "difference_ts_minus_baseline": diff,
            "ts_local_memory": t["LDL"] + t["STL"],
            "baseline_local_memory": b["LDL"] + b["STL"],
        }
        report.append(entry)
        base_label = re.search(r"(\w+)_ts_kernel", pretty[ts_name]).group(1)
        cfg = re.findall(r"<(-?\w+(?:, -?\w+)*)>", pretty[ts_name].split("_ts_kernel", 1)[1])
        short = base_label + ("<" + cfg[0] + ">" if cfg else "")
        entry["kernel"] = short
        print(f"\n{short}: TS {entry['ts_instructions']} instructions, baseline {entry['baseline_instructions']}"
              f" ({entry['ts_instructions'] - entry['baseline_instructions']:+d}); local memory TS {entry['ts_local_memory']},"
              f" baseline {entry['baseline_local_memory']}")
        print(f"  {'opcode':<12}{'TS':>6}{'base':>6}")
        for op in ops:
            mark = "  *" if op in diff else ""
            print(f"  {op:<12}{t[op]:>6}{b[op]:>6}{mark}")
        if args.sass_dir:
            os.makedirs(args.sass_dir, exist_ok=True)
            for kind, name in (("ts", ts_name), ("baseline", base_name)):
                fname = base_label + ("_" + re.sub(r"[^A-Za-z0-9]+", "x", cfg[0]) if cfg else "") + "_" + kind
                with open(os.path.join(args.sass_dir, fname + ".sass"), "w") as f:
                    f.write("\n".join(ks[name]["lines"]) + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pairs": report}, f, indent=2)
    if args.fail_on_local_memory:
        bad = [e["kernel"] for e in report if e["ts_local_memory"] or e["baseline_local_memory"]]
        if bad:
            print("local memory (LDL/STL) in: " + ", ".join(bad), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
