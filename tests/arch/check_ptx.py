#!/usr/bin/env python3
"""Check the PTX of a compile-only arch test against the expectations written in its source.

    tests/arch/check_ptx.py --source tests/arch/sm90/mbarrier.cu --ptx mbarrier.ptx
                            --header include/warploom/arch/sm90/mbarrier.hpp
                            [--ptxas PATH --arch sm_90a]

The source holds one `extern "C" __global__` kernel per wrapper call; inside a kernel,
`// PTX: <text>` says the kernel's PTX must contain <text> and `// PTX-NOT: <text>` that it must
not (whitespace runs compare equal). The check fails when

  - a wrapper the header declares (`WL_DEVICE <type> <name>(`) is called in no kernel
    (`sm90::<name>`), so a new wrapper cannot go untested;
  - a kernel has no `// PTX:` or `// PTX-NOT:` line, or is missing from the PTX;
  - an expectation does not hold in that kernel's own PTX body;
  - ptxas (--ptxas) cannot assemble the PTX for --arch: `nvcc -ptx` never assembles the inline
    asm, so a misspelt instruction or one the architecture lacks shows up only here.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

KERNEL = re.compile(r'extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+)?(\w+)\s*\(')
EXPECT = re.compile(r"^\s*//\s*(PTX|PTX-NOT):\s*(.+?)\s*$")
WRAPPER = re.compile(r"WL_DEVICE\s+[\w:<>]+\s+(\w+)\s*\(")
ENTRY = re.compile(r"^\.visible\s+\.entry\s+(\w+)\s*\(", re.M)


def squeeze(text):
    return " ".join(text.split())


def expectations(source_text):
    """{kernel: [(kind, text)]} in source order."""
    kernels, current = {}, None
    for line in source_text.splitlines():
        m = KERNEL.search(line)
        if m:
            current = m.group(1)
            kernels[current] = []
            continue
        m = EXPECT.search(line)
        if m:
            if current is None:
                raise SystemExit(f"check_ptx: `{line.strip()}` comes before any kernel")
            kernels[current].append((m.group(1), squeeze(m.group(2))))
    return kernels


def entry_bodies(ptx_text):
    """{entry name: its text through the brace that closes its body}. Inline asm opens blocks of
    its own (`{ .reg .pred P_OUT; ... }`), hence the counting."""
    bodies = {}
    for m in ENTRY.finditer(ptx_text):
        depth, end = 0, len(ptx_text)
        for i in range(ptx_text.index("{", m.end()), len(ptx_text)):
            depth += {"{": 1, "}": -1}.get(ptx_text[i], 0)
            if depth == 0:
                end = i + 1
                break
        bodies[m.group(1)] = ptx_text[m.start() : end]
    return bodies


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", required=True)
    ap.add_argument("--ptx", required=True)
    ap.add_argument("--header", help="the header under test: each of its wrappers must be called")
    ap.add_argument("--ptxas", help="assemble the PTX with this ptxas first")
    ap.add_argument("--arch", default="sm_90a")
    args = ap.parse_args()

    source = open(args.source).read()
    ptx = open(args.ptx).read()
    errors = []

    if args.ptxas:
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run([args.ptxas, f"-arch={args.arch}", args.ptx, "-o", os.path.join(tmp, "out.cubin")],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                errors.append(f"ptxas -arch={args.arch} rejects the PTX:\n{out.stdout}{out.stderr}")

    if args.header:
        for name in WRAPPER.findall(open(args.header).read()):
            if not re.search(rf"\bsm90::{name}\b", source):
                errors.append(f"{args.header}: wrapper `{name}` is called in no kernel of {args.source}")

    bodies = entry_bodies(ptx)
    for kernel, checks in expectations(source).items():
        if not checks:
            errors.append(f"kernel `{kernel}` has no `// PTX:` or `// PTX-NOT:` line")
            continue
        if kernel not in bodies:
            errors.append(f"kernel `{kernel}` is not in {args.ptx}")
            continue
        body = squeeze(bodies[kernel])
        for kind, text in checks:
            found = text in body
            if kind == "PTX" and not found:
                errors.append(f"kernel `{kernel}`: no `{text}` in its PTX")
            elif kind == "PTX-NOT" and found:
                errors.append(f"kernel `{kernel}`: `{text}` in its PTX, where it must not be")
            else:
                print(f"ok   {kernel}: {'' if kind == 'PTX' else 'no '}{text}")

    if errors:
        for e in errors:
            print(f"FAIL {e}", file=sys.stderr)
        if bodies:
            print(f"(the PTX is {args.ptx})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
