#!/usr/bin/env python3
"""Regenerates the generated parts of docs/verification/ from real verifier output.

    python3 tools/gen_verification_docs.py [--build-dir build/release]

1. Runs the schedule corpus (tests/schedules, target `schedule_corpus`), which verifies every
   entry, writes docs/verification/corpus.md and dumps every finding (ts::format and timeline).
2. Pastes findings into docs/verification/rules.md, between markers naming a corpus entry:

       <!-- finding: r_d10_tma_before_acquire -->
       ...replaced...
       <!-- /finding -->

3. Pastes compiler errors for the compile-time rules, between markers naming a compile-fail
   test of tests/compile_fail (its command comes from the spec the build wrote):

       <!-- compile-error: ts_cf_r_a2_producer_work_returns_a_value -->
       ...replaced...
       <!-- /compile-error -->

Build first: cmake --preset release && cmake --build --preset release --target schedule_corpus.
The script changes only the generated blocks and corpus.md; everything else is hand-written.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES_MD = os.path.join(ROOT, "docs", "verification", "rules.md")
CORPUS_MD = os.path.join(ROOT, "docs", "verification", "corpus.md")

FINDING = re.compile(r"(<!-- finding: (\S+) -->\n)(.*?)(<!-- /finding -->)", re.S)
COMPILE = re.compile(r"(<!-- compile-error: (\S+) -->\n)(.*?)(<!-- /compile-error -->)", re.S)


def run_corpus(build_dir):
    exe = os.path.join(build_dir, "tests", "schedules", "schedule_corpus")
    if not os.path.exists(exe):
        sys.exit(f"gen_verification_docs: {exe} not found; build the schedule_corpus target first")
    with tempfile.NamedTemporaryFile("r", suffix=".txt", delete=False) as f:
        dump = f.name
    try:
        proc = subprocess.run([exe, "--table", CORPUS_MD, "--findings", dump], cwd=ROOT,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout[-4000:])
            sys.exit("gen_verification_docs: the corpus failed; fix it before regenerating docs")
        with open(dump) as f:
            text = f.read()
    finally:
        os.unlink(dump)
    findings = {}
    for block in text.split("=== ")[1:]:
        name, _, body = block.partition("\n")
        findings[name.strip()] = body
    return findings


def compile_error(build_dir, test):
    spec = os.path.join(build_dir, "tests", "compile_fail", "compile_fail", test, "spec.cmake")
    if not os.path.exists(spec):
        sys.exit(f"gen_verification_docs: no compile-fail test {test} ({spec})")
    with open(spec) as f:
        text = f.read()
    command_block = re.search(r"set\(command\n(.*?)\)\n", text, re.S).group(1)
    command = re.findall(r"\[==\[(.*?)\]==\]", command_block)
    regex = re.search(r"set\(regex \[==\[(.*?)\]==\]\)", text).group(1)
    source = re.search(r"set\(source \[==\[(.*?)\]==\]\)", text).group(1)
    source_root = os.path.dirname(os.path.dirname(os.path.dirname(source)))
    # Compile to /dev/null: the spec's output directory may not exist yet.
    if "-o" in command:
        command[command.index("-o") + 1] = os.devnull
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode == 0:
        sys.exit(f"gen_verification_docs: {test} compiled; it must fail")
    # The error naming the rule (for the compile-time gate's cases: its note, which names the
    # rule as a function `violation::R_...`).
    lines = [line for line in proc.stderr.splitlines() if re.search(regex, line)]
    lines = [line for line in lines if "error" in line] or lines
    if not lines:
        sys.exit(f"gen_verification_docs: {test}: no line matches {regex}")
    out = [line.replace(source_root + "/", "") for line in lines[:2]]
    return "\n".join(out) + "\n"


def fence(body):
    return "```text\n" + body + "```\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build", "release"))
    args = parser.parse_args()
    build_dir = os.path.abspath(args.build_dir)

    findings = run_corpus(build_dir)
    with open(RULES_MD) as f:
        doc = f.read()

    def paste_finding(m):
        name = m.group(2)
        if name not in findings:
            sys.exit(f"gen_verification_docs: rules.md names `{name}`, not a corpus entry")
        body = findings[name] or "(no finding: the manager passes)\n"
        return m.group(1) + fence(body) + m.group(4)

    def paste_compile_error(m):
        return m.group(1) + fence(compile_error(build_dir, m.group(2))) + m.group(4)

    doc = FINDING.sub(paste_finding, doc)
    doc = COMPILE.sub(paste_compile_error, doc)
    with open(RULES_MD, "w") as f:
        f.write(doc)
    print(f"gen_verification_docs: updated {os.path.relpath(RULES_MD, ROOT)} and "
          f"{os.path.relpath(CORPUS_MD, ROOT)}")


if __name__ == "__main__":
    main()
