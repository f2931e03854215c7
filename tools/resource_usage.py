#!/usr/bin/env python3
"""Registers, shared memory, stack and spills of every kernel in built binaries, like `-Xptxas -v`.

    tools/resource_usage.py <library-or-executable>... [--cuobjdump PATH] [--arch sm_90a]
                            [--json OUT] [--no-sass] [--jobs N] [--width N] [--filter REGEX]
                            [--expect-no-spills REGEX]... [--max-local-bytes N]

`-Xptxas -v` only speaks while a kernel compiles, and its lines get lost in a build log; this
reads the same facts back from the cubins of what we ship, without a GPU. Two sources:

  cuobjdump --dump-resource-usage   per function: REG, STACK (the stack frame: spill slots and
                                    local arrays), SHARED (static shared memory), LOCAL, the
                                    constant banks (CONSTANT[0] = kernel parameters), ...
  cuobjdump --dump-sass             the spills themselves: local stores and loads (STL / LDL), by
                                    count and by bytes (the static sum of their widths, what
                                    ptxas calls "bytes spill stores / loads" -- a local array
                                    indexed at run time shows up the same way)

The resource usage does not count spill instructions; STACK > 0 or LOCAL > 0 says the kernel
touches local memory, the SASS says how often. The SASS is the slow part (about 40 s of one core
for the GEMM library), so each cubin is extracted and disassembled on its own, --jobs at a time;
--no-sass skips it.

On the GEMM and tutorial libraries the two agree with ptxas's own `-v` lines kernel by kernel:
registers, "bytes stack frame" = STACK, "bytes spill stores / loads" = STL / LDL bytes.

Prints one table per binary (sorted by kernel name): kernel | regs | static smem (the dynamic
shared memory, TMA stages and all, is set at launch and is not in the cubin) | stack | local |
STL/LDL count and bytes; `*` marks a kernel that touches local memory. --json writes every
field, with the mangled and the full demangled name. Exit 1 when a kernel that matches an --expect-no-spills
REGEX (searched in the short and in the full demangled name) touches local memory, or any
kernel's STACK + LOCAL exceeds --max-local-bytes, naming each such kernel.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

USAGE_FIELD = re.compile(r"([A-Z]+)(?:\[(\d+)\])?:(\d+)")
SASS_LOCAL = re.compile(r"/\*[0-9a-f]{4,6}\*/\s+(?:@!?U?P[T0-9]+\s+)?(STL|LDL)((?:\.[A-Z0-9]+)*)[\s;]")
WIDTH = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "64": 8, "128": 16}  # no width modifier: 32 bits
NO_DEVICE_CODE = "does not contain device code"


def default_cuobjdump():
    bundled = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".deps", "bin", "cuobjdump")
    return bundled if os.path.exists(bundled) else (shutil.which("cuobjdump") or "cuobjdump")


def member_of(line):
    """`member /path/lib.a:obj.cu.o:` -> `obj.cu.o`."""
    return line.strip()[len("member "):].rstrip(":").rsplit(":", 1)[-1]


def parse_resource_usage(text):
    """Records of `cuobjdump --dump-resource-usage` output, one per function, in order:
    {member, arch, mangled, regs, stack, shared, local, constant: {bank: bytes}, texture, surface,
    sampler, common: the ELF's module-wide line (GLOBAL, CONSTANT[n])}."""
    records, member, arch, common, pending = [], "", "", {}, None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("member "):
            member, arch = member_of(s), ""
        elif s.startswith("arch = "):
            arch = s.split("=", 1)[1].strip()
        elif s == "Common:":
            pending = "common"
        elif s.startswith("Function ") and s.endswith(":"):
            pending = s[len("Function "):-1].strip()
        elif pending is not None and USAGE_FIELD.match(s):
            fields, constant = {}, {}
            for key, bank, value in USAGE_FIELD.findall(s):
                if bank:
                    constant[bank] = int(value)
                else:
                    fields[key.lower()] = int(value)
            if pending == "common":
                common = dict(fields, constant=constant)
            else:
                rec = {"member": member, "arch": arch, "mangled": pending,
                       "regs": fields.get("reg", 0), "stack": fields.get("stack", 0),
                       "shared": fields.get("shared", 0), "local": fields.get("local", 0),
                       "constant": constant, "texture": fields.get("texture", 0),
                       "surface": fields.get("surface", 0), "sampler": fields.get("sampler", 0),
                       "common": common}
                records.append(rec)
            pending = None
    return records


def parse_sass(lines, member="", arch=""):
    """{(member, arch, mangled): {stl, ldl, stl_bytes, ldl_bytes}} from `cuobjdump --dump-sass`
    lines (the whole binary's listing, or one cubin's with its member and arch given)."""
    counts, current = {}, None
    for line in lines:
        if "Function : " in line:
            name = line.split("Function : ", 1)[1].strip()
            current = counts.setdefault((member, arch, name), {"stl": 0, "ldl": 0, "stl_bytes": 0, "ldl_bytes": 0})
        elif line.startswith("member "):
            member, arch, current = member_of(line), "", None
        elif line.startswith("arch = "):
            arch = line.split("=", 1)[1].strip()
        elif "code for sm_" in line:
            arch = line.split("code for ", 1)[1].strip()
        elif current is not None and ("STL" in line or "LDL" in line):
            m = SASS_LOCAL.search(line)
            if m:
                op = m.group(1).lower()
                mods = m.group(2).split(".")[1:]
                width = next((WIDTH[x] for x in mods if x in WIDTH), 4)
                current[op] += 1
                current[op + "_bytes"] += width
    return counts


def run(cmd, cwd=None):
    """stdout of a cuobjdump call; empty when the file holds no device code."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    except OSError as e:
        sys.exit(f"resource_usage: cannot run {cmd[0]}: {e} (--cuobjdump PATH)")
    if p.returncode != 0:
        if NO_DEVICE_CODE in p.stdout + p.stderr:
            return ""
        sys.exit(f"resource_usage: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip() or p.stdout.strip()}")
    return p.stdout


def list_elfs(cuobjdump, binary):
    """[(member, cubin file name)] from `cuobjdump --list-elf`."""
    elfs, member = [], ""
    for line in run([cuobjdump, "--list-elf", binary]).splitlines():
        if line.startswith("member "):
            member = member_of(line)
        elif line.startswith("ELF file"):
            elfs.append((member, line.split(":", 1)[1].strip()))
    return elfs


def sass_counts(cuobjdump, binary, jobs):
    """parse_sass of the whole binary: cubin by cubin in parallel where their names are unique,
    else one streamed listing."""
    binary = os.path.abspath(binary)
    elfs = list_elfs(cuobjdump, binary)
    if not elfs:
        return {}
    if len({name for _, name in elfs}) == len(elfs):
        with tempfile.TemporaryDirectory(prefix="resource_usage_") as tmp:
            run([cuobjdump, "--extract-elf", "all", binary], cwd=tmp)
            if all(os.path.exists(os.path.join(tmp, name)) for _, name in elfs):
                def one(elf):
                    member, name = elf
                    return parse_sass(run([cuobjdump, "--dump-sass", os.path.join(tmp, name)]).splitlines(), member)
                counts = {}
                with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
                    for part in pool.map(one, elfs):
                        counts.update(part)
                return counts
    with subprocess.Popen([cuobjdump, "--dump-sass", binary], stdout=subprocess.PIPE, text=True) as p:
        counts = parse_sass(p.stdout)
    if p.returncode != 0:
        sys.exit(f"resource_usage: cuobjdump --dump-sass {binary} failed ({p.returncode})")
    return counts


def demangle(names):
    """Demangled names, in one call of cu++filt (beside cuobjdump or on PATH) or else c++filt."""
    if not names:
        return []
    for tool in ("cu++filt", "c++filt"):
        try:
            out = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True, text=True, check=True)
        except (OSError, subprocess.CalledProcessError):
            continue
        lines = out.stdout.splitlines()
        if len(lines) == len(names):
            return lines
    return list(names)


def short_name(demangled, width=110):
    """`void warploom::gemm::sm90::ts_gemm_kernel<warploom::gemm::sm90::TsGemm<cutlass::half_t, ...> >(...)`
    -> `ts_gemm_kernel<TsGemm<half_t, ...>>`: namespaces, return type and parameter list dropped,
    the template arguments (which tell instances apart) kept, capped at `width` characters."""
    s = re.sub(r"\(anonymous namespace\)::", "", demangled)
    s = re.sub(r"\b[A-Za-z_]\w*::(?=[A-Za-z_~(])", "", s)
    s = re.sub(r"^void ", "", s)
    depth = 0
    for i, c in enumerate(s):
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0 and i > 0:
            s = s[:i]
            break
    while "> >" in s:
        s = s.replace("> >", ">>")
    return s if len(s) <= width else s[:width - 3] + "..."


def uses_local_memory(k):
    return bool(k["stack"] or k["local"] or k.get("stl") or k.get("ldl"))


def collect(binaries, cuobjdump, arch, sass, jobs, width):
    kernels = []
    for binary in binaries:
        records = [r for r in parse_resource_usage(run([cuobjdump, "--dump-resource-usage", binary]))
                   if arch == "all" or r["arch"] == arch]
        counts = sass_counts(cuobjdump, binary, jobs) if sass and records else {}
        for r in records:
            r["library"], r["binary"] = os.path.basename(binary), binary
            if sass:
                c = counts.get((r["member"], r["arch"], r["mangled"]))
                r.update(c or {"stl": None, "ldl": None, "stl_bytes": None, "ldl_bytes": None})
        kernels += records
    for k, d in zip(kernels, demangle([k["mangled"] for k in kernels])):
        k["demangled"], k["name"] = d, short_name(d, width)
        k["uses_local_memory"] = uses_local_memory(k)
    kernels.sort(key=lambda k: (k["library"], k["name"], k["demangled"], k["member"]))
    return kernels


def table(kernels, sass):
    out, library = [], None
    for k in kernels:
        if k["library"] != library:
            library = k["library"]
            mine = [x for x in kernels if x["library"] == library]
            w = max([len("kernel")] + [len(x["name"]) for x in mine])
            spilling = sum(x["uses_local_memory"] for x in mine)
            out.append(f"\n== {library}: {len(mine)} kernels, {spilling} touch local memory")
            out.append(f"  {'kernel':<{w}} {'regs':>5} {'static smem':>12} {'stack':>6} {'local':>6}"
                       + (f" {'STL/LDL':>9} {'bytes':>9}" if sass else ""))
        row = f"  {k['name']:<{w}} {k['regs']:>5} {k['shared']:>12} {k['stack']:>6} {k['local']:>6}"
        if sass:
            if k["stl"] is None:
                row += f" {'?':>9} {'?':>9}"
            else:
                row += f" {k['stl']:>4}/{k['ldl']:<4} {k['stl_bytes']:>4}/{k['ldl_bytes']:<4}"
        out.append((row + ("  *" if k["uses_local_memory"] else "")).rstrip())
    return "\n".join(out)


def violations(kernels, no_spill_patterns, max_local_bytes):
    """Messages for the kernels that break --expect-no-spills or --max-local-bytes."""
    bad = []
    for k in kernels:
        what = f"stack {k['stack']} B, local {k['local']} B"
        if k.get("stl") is not None:
            what += f", {k['stl']} STL ({k['stl_bytes']} B) / {k['ldl']} LDL ({k['ldl_bytes']} B)"
        hit = next((p for p in no_spill_patterns if re.search(p, k["name"]) or re.search(p, k["demangled"])), None)
        if hit is not None and k["uses_local_memory"]:
            bad.append(f"{k['library']}: {k['name']}: touches local memory ({what}) but matches "
                       f"--expect-no-spills {hit!r}")
        elif max_local_bytes is not None and k["stack"] + k["local"] > max_local_bytes:
            bad.append(f"{k['library']}: {k['name']}: {what} exceeds --max-local-bytes {max_local_bytes}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binaries", nargs="+", metavar="binary")
    ap.add_argument("--cuobjdump", default=default_cuobjdump())
    ap.add_argument("--arch", default="sm_90a", help="the cubins to read (default sm_90a; `all`: every one)")
    ap.add_argument("--json")
    ap.add_argument("--no-sass", action="store_true", help="skip the SASS: no STL/LDL counts, seconds faster")
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)), help="cubins disassembled at once")
    ap.add_argument("--width", type=int, default=110, help="longest kernel name printed")
    ap.add_argument("--filter", help="print (and check) only kernels whose name matches this regex")
    ap.add_argument("--expect-no-spills", action="append", default=[], metavar="REGEX",
                    help="exit 1 when a kernel matching REGEX touches local memory (repeatable)")
    ap.add_argument("--max-local-bytes", type=int, metavar="N",
                    help="exit 1 when any kernel's stack frame + LOCAL exceeds N bytes")
    args = ap.parse_args()
    for b in args.binaries:
        if not os.path.isfile(b):
            ap.error(f"{b}: no such file")
    sass = not args.no_sass
    if os.sep in args.cuobjdump:  # a path, not a name on PATH: it also runs from a temporary directory
        args.cuobjdump = os.path.abspath(args.cuobjdump)
    kernels = collect(args.binaries, args.cuobjdump, args.arch, sass, max(1, args.jobs), args.width)
    if args.filter:
        kernels = [k for k in kernels if re.search(args.filter, k["name"]) or re.search(args.filter, k["demangled"])]
    if not kernels:
        print(f"resource_usage: no {args.arch} kernel found in {' '.join(args.binaries)}", file=sys.stderr)
        return 1
    print(table(kernels, sass).lstrip("\n"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"arch": args.arch, "binaries": args.binaries, "sass": sass, "kernels": kernels}, f, indent=2)
    for p in args.expect_no_spills:
        if not any(re.search(p, k["name"]) or re.search(p, k["demangled"]) for k in kernels):
            print(f"resource_usage: --expect-no-spills {p!r} matches no kernel", file=sys.stderr)
            return 1
    bad = violations(kernels, args.expect_no_spills, args.max_local_bytes)
    if bad:
        print(f"resource_usage: {len(bad)} kernel(s) fail the local memory check:", file=sys.stderr)
        for line in bad:
            print("  " + line, file=sys.stderr)
        return 1
    if args.expect_no_spills or args.max_local_bytes is not None:
        print(f"resource_usage: local memory check passed ({len(kernels)} kernels)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
