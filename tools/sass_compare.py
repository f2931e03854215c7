#!/usr/bin/env python3
"""Compare the SASS of every TS kernel with its hand-written baseline, opcode by opcode.

    tools/sass_compare.py <object-or-library> [--cuobjdump PATH] [--json OUT] [--sass-dir DIR]
                          [--fail-on-local-memory] [--budget KERNEL=TOTAL,LOOP ...]

Kernels pair by name: `<x>_ts_kernel<cfg>` with `<x>_baseline_kernel<cfg>`, wherever each is
declared (a tutorial's TS kernel sits in its schedule header, its baseline in the .cu's anonymous
namespace). For each pair it prints the instruction count per opcode (modifiers dropped:
`SYNCS.PHASECHK.TRANS64` -> `SYNCS`), the totals, the opcodes whose counts differ, and whether
either kernel touches local memory (LDL/STL: a spill or a stack array). Needs no GPU: cuobjdump
reads the cubin.

Counts leave out NOP and the closing `BRA` to itself: ptxas pads each function to a 128-byte
boundary with them, so they move in steps of up to 8 and are never executed.

Each kernel's hot loop is the innermost loop (a backward branch's range) that moves the most
bytes per iteration through its memory instructions (global, shared, TMA; a TMA copy counts as
one word, its box size is not in the SASS); its instructions are counted per memory instruction
it holds, so an unrolled loop compares with a rolled one item for item.

--budget KERNEL=TOTAL,LOOP (KERNEL as printed, e.g. `grid_stride_copy<1, 8>`; `*` for any
kernel without its own budget) makes the comparison a test: exit 1 when a TS kernel has more
than TOTAL instructions over its baseline, or its hot loop more than LOOP instructions per
memory instruction over the baseline's (a float). Every pair must have a budget then.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

FUNC_SPLIT = re.compile(r"\n\s+Function : ")
INSTR = re.compile(r"/\*([0-9a-f]{4,6})\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z0-9_.]+)([^;]*);")
# Global, shared and TMA traffic: what a copy's loop exists to issue.
MEMORY_OPS = {"LDG", "STG", "LDS", "STS", "LDSM", "STSM", "UTMALDG", "UTMASTG", "UBLKCP"}


def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
        return out.stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return names


def access_bytes(full_op):
    for width, nbytes in ((".128", 16), (".64", 8), (".U16", 2), (".S16", 2), (".U8", 1), (".S8", 1)):
        if width in full_op:
            return nbytes
    return 4


def hot_loop(instrs):
    """The innermost backward-branch range that moves the most bytes per iteration, or None for a
    kernel without loops that touch memory."""
    loops = []
    for addr, op, operands, _ in instrs:
        if op == "BRA":
            target = re.search(r"0x([0-9a-f]+)", operands)
            if target and int(target.group(1), 16) <= addr:
                loops.append((int(target.group(1), 16), addr))
    best = None
    for lo, hi in loops:
        if any(lo <= a and b <= hi and (a, b) != (lo, hi) for a, b in loops):
            continue  # not innermost
        body = [op for a, op, _, _ in instrs if lo <= a <= hi]
        mem = sum(op in MEMORY_OPS for op in body)
        nbytes = sum(access_bytes(full) for a, op, _, full in instrs if lo <= a <= hi and op in MEMORY_OPS)
        key = (nbytes, mem, -len(body))
        if mem and (best is None or key > best[0]):
            best = (key, {"start": hex(lo), "end": hex(hi), "instructions": len(body),
                          "memory_instructions": mem,
                          "opcodes": dict(sorted(collections.Counter(body).items()))})
    return best[1] if best else None


def kernels(sass_text):
    result = {}
    for chunk in FUNC_SPLIT.split(sass_text)[1:]:
        name = chunk.split("\n", 1)[0].strip()
        instrs = []
        for m in INSTR.finditer(chunk):
            addr, op = int(m.group(1), 16), m.group(2).split(".")[0]
            if op == "NOP" or (op == "BRA" and f"0x{addr:x}" in m.group(3)):
                continue  # alignment padding: never executed
            instrs.append((addr, op, m.group(3), m.group(2)))
        ops = collections.Counter(op for _, op, _, _ in instrs)
        lines = [l.strip() for l in chunk.split("\n") if re.search(r"/\*[0-9a-f]{4,6}\*/", l)]
        result[name] = {"ops": ops, "lines": lines, "hot_loop": hot_loop(instrs)}
    return result


def per_memory_op(loop):
    return loop["instructions"] / loop["memory_instructions"] if loop else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--cuobjdump", default=os.path.join(os.path.dirname(__file__), "..", ".deps", "bin", "cuobjdump"))
    ap.add_argument("--json")
    ap.add_argument("--sass-dir", help="write each kernel's SASS listing here")
    ap.add_argument("--fail-on-local-memory", action="store_true",
                    help="exit 1 when any paired kernel touches local memory (LDL/STL)")
    ap.add_argument("--budget", action="append", default=[], metavar="KERNEL=TOTAL,LOOP",
                    help="extra instructions a TS kernel may have over its baseline, in all and "
                         "per memory instruction of its hot loop (repeatable; KERNEL * for the rest)")
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
            "ts_hot_loop": ks[ts_name]["hot_loop"],
            "baseline_hot_loop": ks[base_name]["hot_loop"],
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
        for kind in ("ts", "baseline"):
            loop = entry[kind + "_hot_loop"]
            if loop:
                print(f"  hot loop {kind:<9}{loop['instructions']:>4} instructions, "
                      f"{loop['memory_instructions']} memory ({per_memory_op(loop):.2f} per memory "
                      f"instruction) at {loop['start']}-{loop['end']}")
        if args.sass_dir:
            os.makedirs(args.sass_dir, exist_ok=True)
            for kind, name in (("ts", ts_name), ("baseline", base_name)):
                fname = base_label + ("_" + re.sub(r"[^A-Za-z0-9]+", "x", cfg[0]) if cfg else "") + "_" + kind
                with open(os.path.join(args.sass_dir, fname + ".sass"), "w") as f:
                    f.write("\n".join(ks[name]["lines"]) + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pairs": report}, f, indent=2)
    failed = False
    if args.budget:
        budgets = {}
        for spec in args.budget:
            kernel, _, limits = spec.rpartition("=")
            total, loop = limits.split(",")
            budgets[kernel] = (int(total), float(loop))
        for e in report:
            if e["kernel"] not in budgets and "*" not in budgets:
                print(f"{e['kernel']}: no --budget for this pair", file=sys.stderr)
                failed = True
                continue
            total, loop = budgets.get(e["kernel"], budgets.get("*"))
            extra = e["ts_instructions"] - e["baseline_instructions"]
            extra_loop = per_memory_op(e["ts_hot_loop"]) - per_memory_op(e["baseline_hot_loop"])
            if extra > total or extra_loop > loop + 1e-9:
                print(f"{e['kernel']}: TS {extra:+d} instructions over its baseline (budget {total}), "
                      f"hot loop {extra_loop:+.2f} per memory instruction (budget {loop})",
                      file=sys.stderr)
                failed = True
    if args.fail_on_local_memory:
        bad = [e["kernel"] for e in report if e["ts_local_memory"] or e["baseline_local_memory"]]
        if bad:
            print("local memory (LDL/STL) in: " + ", ".join(bad), file=sys.stderr)
            return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
