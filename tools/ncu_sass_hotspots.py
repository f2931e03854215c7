#!/usr/bin/env python3
"""The SASS instructions with the most warp samples, each with the project's source lines it was
compiled from, from Nsight Compute's source page printed with both views:

    ncu -i report.ncu-rep --page source --csv --print-source sass,cuda > source.csv
    tools/ncu_sass_hotspots.py source.csv KERNEL_REGEX [--top N]

That form (what tools/gpu_prebuilt_check.sh's ncu-grouped step writes) lists each kernel's SASS
once per source file it inlines, under "File Path" / "Function Name" headers: tools/
ncu_stall_summary.py reads the SASS-only form. An instruction's samples are counted once; its
labels are the lines of files under the tree (not CuTe's or CUDA's) it sits under, which tell
which task of a warp-specialized kernel runs it.
"""

import argparse
import collections
import csv
import re


def hotspots(path, kernel):
    samples, text, labels, stalls = {}, {}, collections.defaultdict(set), {}
    function = file_path = columns = line = None
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if not row:
                continue
            if row[0] == "File Path":
                file_path = row[1]
            elif row[0] == "Function Name":
                function = row[1]
            elif row[0] == "Line No":
                columns = {name: i for i, name in enumerate(row)}
            elif function is None or columns is None or not re.search(kernel, function):
                continue
            elif row[0] != "":  # a source line; the SASS rows under it follow
                line = f"{file_path.split('/')[-1]}:{row[0]}"
            else:
                address = row[2]
                value = row[columns["Warp Stall Sampling (All Samples)"]]
                samples[address] = int(value) if value.isdigit() else 0
                text[address] = row[3].strip()
                if "/.deps/" not in file_path and "/usr/" not in file_path:
                    labels[address].add(line)
                reasons = collections.Counter()
                for name, i in columns.items():
                    if name.startswith("stall_") and "Not Issued" not in name and row[i].isdigit():
                        reasons[name[len("stall_"):]] += int(row[i])
                stalls[address] = reasons
    return samples, text, labels, stalls


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("source_csv")
    p.add_argument("kernel", help="regex on the kernel's function name")
    p.add_argument("--top", type=int, default=40)
    a = p.parse_args()
    samples, text, labels, stalls = hotspots(a.source_csv, a.kernel)
    total = sum(samples.values()) or 1
    print(f"{total} samples on {len(samples)} instructions")
    for address, n in sorted(samples.items(), key=lambda x: -x[1])[: a.top]:
        where = " ".join(sorted(labels[address]))[:70]
        why = ", ".join(f"{k} {v}" for k, v in stalls[address].most_common(2) if v)
        print(f"{n:6d} {100 * n / total:5.1f}% {address[-5:]} {text[address][:48]:48s} {where}  [{why}]")


if __name__ == "__main__":
    main()
