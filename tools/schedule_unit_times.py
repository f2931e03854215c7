#!/usr/bin/env python3
"""Compile every schedule unit of a build again and time each: what the compile-time gate costs.

    tools/schedule_unit_times.py <build-dir> [--include DIR] [--match REGEX] [--jobs N] [--json OUT]

A schedule unit (`*.schedule.cu`, ts/define_schedule_unit.hpp) is where a schedule's compile-time
gate (ts::verified_at_compile_time) runs, in nvcc's front end; its compile time is mostly that
constant evaluation. The commands come from the build's compile_commands.json, unchanged except the
object, written to a temporary folder (the build is left as it was). --include DIR replaces the
project's `include/` with DIR, to time another version of the headers against the same build (e.g.
`git archive <rev> include | tar -x -C /tmp/rev`, then --include /tmp/rev/include). --jobs runs
that many at once (default 1: a unit's time alone; with more, units share the machine's cores).
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor


def unit_commands(build_dir, include, pattern):
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        entries = json.load(f)
    project_include = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "include")
    project_include = os.path.realpath(project_include)
    for e in entries:
        name = os.path.basename(e["file"])
        if not name.endswith(".schedule.cu") or not re.search(pattern, name):
            continue
        args = shlex.split(e["command"])
        if include:
            args = [("-I" + include) if a == "-I" + project_include else a for a in args]
        yield name, e["directory"], args


def timed(name, directory, args, out_dir):
    args = list(args)
    args[args.index("-o") + 1] = os.path.join(out_dir, name + ".o")
    start = time.monotonic()
    run = subprocess.run(args, cwd=directory, capture_output=True, text=True)
    return name, time.monotonic() - start, run.returncode, run.stderr[-2000:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build_dir")
    ap.add_argument("--include", help="headers to use instead of the project's include/")
    ap.add_argument("--match", default=".", help="units whose file name matches this regex")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", help="write the times here")
    a = ap.parse_args()
    units = list(unit_commands(a.build_dir, a.include, a.match))
    if not units:
        sys.exit(f"schedule_unit_times: no schedule unit matches in {a.build_dir}")
    failed = False
    results = []
    with tempfile.TemporaryDirectory() as out_dir, ThreadPoolExecutor(a.jobs) as pool:
        for name, seconds, rc, err in pool.map(lambda u: timed(*u, out_dir), units):
            print(f"{name:<52} {seconds:7.1f} s" + ("" if rc == 0 else "  FAILED"), flush=True)
            if rc != 0:
                failed = True
                print(err, file=sys.stderr)
            results.append({"unit": name, "seconds": round(seconds, 2), "ok": rc == 0})
    total = sum(r["seconds"] for r in results)
    print(f"{'total':<52} {total:7.1f} s ({len(results)} units, {a.jobs} at a time)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"jobs": a.jobs, "include": a.include or "include/", "cpus": os.cpu_count(),
                       "units": results, "total_seconds": round(total, 1)}, f, indent=2)
            f.write("\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
