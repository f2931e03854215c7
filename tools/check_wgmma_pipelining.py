#!/usr/bin/env python3
"""Fail when ptxas serialized the wgmma instructions of a kernel.

    tools/check_wgmma_pipelining.py <object-or-library> [--cuobjdump PATH]

ptxas quietly inserts waits for all outstanding wgmma where it cannot prove the asynchronous
accumulators safe, and the kernel still runs correctly, only slower. Two cases, both read from
the SASS (ptxas only mentions them as "info"):

  serialized  (C7510: a function call in the kernel, e.g. printf; or CUTLASS asserts without
              -DNDEBUG) every wgmma is followed by a full wait: `WARPGROUP.DEPBAR.LE gsb0, 0x0`
              right before the next `WARPGROUP.ARRIVE`.
  latch wait  (C7517: accumulator registers read after a loop whose last iteration's wait is
              conditional) a full wait on the back edge of the loop that issues the wgmma, which
              ends the overlap of consecutive K tiles: a full wait at most two instructions
              before a backward branch over wgmma instructions.

Each kernel with wgmma instructions (SASS HGMMA for fp16/bf16, QGMMA for fp8, IGMMA for int8) is
reported; exit 1 if any has either. Needs no GPU: cuobjdump reads the cubin.
"""
import argparse
import os
import re
import subprocess
import sys

from sass_compare import FUNC_SPLIT  # this directory: the cuobjdump listing's function separator

INSTR = re.compile(r"/\*([0-9a-f]{4,6})\*/\s+(?:@!?U?P[T0-9]+\s+)?([^;]*);")
BRANCH = re.compile(r"^BRA (?:U?!?P[T0-9]+, )?0x([0-9a-f]+)")
FULL_WAIT = "WARPGROUP.DEPBAR.LE gsb0, 0x0"
WGMMA = ("HGMMA", "QGMMA", "IGMMA")  # wgmma in SASS, by input type: 16-bit, fp8, int8


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--cuobjdump", default=os.path.join(os.path.dirname(__file__), "..", ".deps", "bin", "cuobjdump"))
    args = ap.parse_args()
    sass = subprocess.run([args.cuobjdump, "--dump-sass", args.binary], capture_output=True, text=True,
                          check=True).stdout
    checked = serialized = 0
    for chunk in FUNC_SPLIT.split(sass)[1:]:
        name = chunk.split("\n", 1)[0].strip()
        code = [(int(m.group(1), 16), m.group(2).strip()) for m in INSTR.finditer(chunk)]
        instrs = [i for _, i in code]
        hgmma_at = [a for a, i in code if i.startswith(WGMMA)]
        if not hgmma_at:
            continue
        checked += 1
        between = sum(1 for a, b in zip(instrs, instrs[1:])
                      if a.startswith(FULL_WAIT) and b.startswith("WARPGROUP.ARRIVE"))
        latch = 0
        for k, (addr, ins) in enumerate(code):
            if not ins.startswith(FULL_WAIT):
                continue
            for _, nxt in code[k + 1:k + 3]:
                m = BRANCH.match(nxt)
                if m and any(int(m.group(1), 16) <= h < addr for h in hgmma_at):
                    latch += 1
        bad = between or latch
        serialized += bool(bad)
        verdict = "SERIALIZED" if between else "LATCH WAIT" if latch else "pipelined"
        print(f"{verdict:10s} {len(hgmma_at):4d} wgmma, {between} full waits between wgmma, "
              f"{latch} on a loop back edge  {name}")
    print(f"check_wgmma_pipelining: {checked} kernels with wgmma, {serialized} with forced waits")
    if checked == 0:
        print("check_wgmma_pipelining: no kernel with wgmma found", file=sys.stderr)
        return 1
    return 1 if serialized else 0


if __name__ == "__main__":
    sys.exit(main())
