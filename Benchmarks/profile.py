#!/usr/bin/env python3
"""Callgrind instructions per op of one workload, by function; optionally against a
second runner (an earlier commit's), side by side.

    python3 Benchmarks/profile.py RUNNER FILTER [--ops 100 600] [--ref RUNNER] [--top 30]

Runs `RUNNER --filter FILTER --profile N` under callgrind for the two op counts and
subtracts, so that building the graph cancels out: what remains is the steady state,
divided by the op difference. Functions are listed by their own (exclusive) cost per op,
names demangled. With --ref, the same for the other runner and the difference per
function. (Runners built by `swift build` carry DWARF that valgrind 3.19 cannot read:
the script profiles a copy with the debug information stripped.)
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

LINE = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(\S.*?)(?:\s+\[[^\]]*\])?\s*$")


def strip(runner, directory):
    copy = os.path.join(directory, os.path.basename(runner) + f"-{abs(hash(runner))}")
    if shutil.which("objcopy"):
        subprocess.run(["objcopy", "--strip-debug", runner, copy], check=True)
    else:
        shutil.copy2(runner, copy)
    return copy


def costs(runner, workload, ops, directory):
    """{function: exclusive instructions} and the total for one callgrind run."""
    out = os.path.join(directory, f"cg.{os.getpid()}.{ops}")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                    runner, "--filter", workload, "--profile", str(ops)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    text = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", out],
                          check=True, capture_output=True, text=True).stdout
    functions, total = {}, 0
    for line in text.splitlines():
        match = LINE.match(line)
        if not match:
            continue
        count = int(match.group(1).replace(",", ""))
        name = match.group(2)
        if name == "PROGRAM TOTALS":
            total = count
            continue
        name = name.split(":", 1)[1] if ":" in name and not name.startswith("$") else name
        functions[name] = functions.get(name, 0) + count
    return functions, total


def per_op(runner, workload, ops, directory):
    low, high = ops
    f_low, t_low = costs(runner, workload, low, directory)
    f_high, t_high = costs(runner, workload, high, directory)
    span = high - low
    functions = {name: (f_high.get(name, 0) - f_low.get(name, 0)) / span
                 for name in set(f_low) | set(f_high)}
    return functions, (t_high - t_low) / span


def demangle(names):
    names = list(names)
    if not names or not shutil.which("swift"):
        return {n: n for n in names}
    result = subprocess.run(["swift", "demangle", "--simplified", "--compact"],
                            input="\n".join(names), capture_output=True, text=True)
    lines = result.stdout.splitlines()
    if result.returncode != 0 or len(lines) != len(names):
        return {n: n for n in names}
    return dict(zip(names, lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runner")
    parser.add_argument("filter", help="the workload (its name, or part of it)")
    parser.add_argument("--ops", type=int, nargs=2, default=[100, 600])
    parser.add_argument("--ref", help="a second runner to compare with (e.g. at 73f1ad4)")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--width", type=int, default=110)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="sg-profile-") as directory:
        now, now_total = per_op(strip(args.runner, directory), args.filter, args.ops, directory)
        ref, ref_total = ({}, None)
        if args.ref:
            ref, ref_total = per_op(strip(args.ref, directory), args.filter, args.ops, directory)

    names = demangle(set(now) | set(ref))
    merged = {}
    for source, index in ((now, 0), (ref, 1)):
        for name, value in source.items():
            key = names[name][:args.width]
            merged.setdefault(key, [0.0, 0.0])[index] += value
    print(f"workload {args.filter!r}: {now_total:.0f} instructions per op"
          + (f" (reference: {ref_total:.0f}, difference {now_total - ref_total:+.0f})"
             if ref_total is not None else ""))
    order = sorted(merged.items(),
                   key=lambda item: -(abs(item[1][0] - item[1][1]) if args.ref else item[1][0]))
    print(f"{'now':>9} {'ref':>9} {'diff':>9}  function (exclusive instructions per op)"
          if args.ref else f"{'now':>9}  function (exclusive instructions per op)")
    for name, (a, b) in order[:args.top]:
        if args.ref:
            print(f"{a:9.1f} {b:9.1f} {a - b:+9.1f}  {name}")
        else:
            print(f"{a:9.1f}  {name}")


if __name__ == "__main__":
    main()
