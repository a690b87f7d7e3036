#!/usr/bin/env python3
"""Benchmarks at a reference commit and at the current tree, side by side.

    python3 Benchmarks/compare.py REF [--pairs 3] [--filter TEXT] [--samples N] [--keep DIR]
                                      [--second-thread] [--instructions]

`make bench-compare REF=<commit>` runs this. Builds the benchmark runner at REF
(in a temporary git worktree: the Benchmarks package depends on its parent by
path, so the worktree holds REF's library) and at the working tree, then runs
the two alternately (REF, now; now, REF; ...), so that both see the same
machine. Each run times every workload against its hand-written baseline, so
the figures compared are ratios measured in the same process; the table shows
their range over the pairs.

The REF runner, once built, is kept in Benchmarks/.build/compare/<commit>/ and
reused. A workload present on one side only shows "—" on the other.

A runner is one thread until a workload starts a task, and while a process has
one thread its locks (glibc's, the graph lock, the value locks) skip their
atomic operations. `--second-thread` preloads SecondThread/second-thread.c into
both runners, so that every workload runs as in an application, which always
has more threads.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

BENCHMARKS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCHMARKS)
PRODUCT = "StateGraphBenchmarks"
SWIFT = os.environ.get("SWIFT", "swift")


def log(text):
    print(text, file=sys.stderr, flush=True)


def git(*args, cwd=ROOT):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def build(package_dir):
    """A release build of the runner in package_dir; returns the binary's path."""
    command = [SWIFT, "build", "-c", "release", "--product", PRODUCT]
    result = subprocess.run(command, cwd=package_dir, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-6000:] + result.stderr[-6000:])
        sys.exit(f"bench-compare: the release build in {package_dir} failed")
    bin_dir = subprocess.run(command[:4] + ["--show-bin-path"], cwd=package_dir, check=True,
                             capture_output=True, text=True).stdout.strip()
    return os.path.join(bin_dir, PRODUCT)


def reference_runner(commit):
    """The runner built at `commit`, from the cache or built now."""
    cached = os.path.join(BENCHMARKS, ".build", "compare", commit, PRODUCT)
    if os.access(cached, os.X_OK):
        log(f"bench-compare: runner at {commit[:10]} from {os.path.relpath(cached, ROOT)}")
        return cached
    worktree = tempfile.mkdtemp(prefix=f"sg-bench-ref-{commit[:10]}-")
    os.rmdir(worktree)  # git worktree add wants to create it
    log(f"bench-compare: building the runner at {commit[:10]} in {worktree} "
        "(a first release build compiles swift-syntax: several minutes)")
    git("worktree", "add", "--detach", worktree, commit)
    try:
        if not os.path.isfile(os.path.join(worktree, "Benchmarks", "Package.swift")):
            sys.exit(f"bench-compare: {commit[:10]} has no Benchmarks package")
        binary = build(os.path.join(worktree, "Benchmarks"))
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        shutil.copy2(binary, cached + ".partial")
        os.replace(cached + ".partial", cached)
    finally:
        git("worktree", "remove", "--force", worktree)
    return cached


# ------------------------------------------------------------------ parsing

SECTION = re.compile(r"^## (.+?)\s*$")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def number(cell):
    match = NUMBER.search(cell.replace(",", ""))
    return float(match.group()) if match and "—" not in cell else None


def parse(report):
    """{(section, workload): {ratio, value, unit, allocs}} from one run's tables."""
    rows = {}
    order = []
    section = None
    header = None
    for line in report.splitlines():
        heading = SECTION.match(line)
        if heading:
            section, header = heading.group(1), None
            continue
        if section is None or " | " not in line:
            if not line.strip():
                continue
            if header is not None and not line.startswith("-"):
                header = None
            continue
        cells = [cell.strip() for cell in line.split(" | ")]
        if header is None:
            header = cells
            continue
        if set(line.replace("|", "").strip()) <= {"-"}:
            continue  # the rule under the header
        row = dict(zip(header, cells))
        name = row.get("workload")
        if not name:
            continue
        # Section titles carry sizes ("Memory (heap bytes, all-in, 100k each)"): the
        # part before the parenthesis names the section.
        key = (section.split(" (")[0], name)
        graph_column = next((c for c in header if c.startswith("StateGraph")), None)
        unit = graph_column.split(" ", 1)[1] if graph_column and " " in graph_column else ""
        rows[key] = {
            "ratio": number(row.get("ratio", "—")),
            "value": number(row.get(graph_column, "—")) if graph_column else None,
            "unit": unit,
            "allocs": number(row.get("allocs/op", "—")),
        }
        order.append(key)
    return rows, order


def failures(report):
    lines = report.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("VERIFICATION FAILED"):
            return lines[index:index + 12]
    return []


# ------------------------------------------------------------------ report

def span(values, digits, suffix=""):
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    low, high = min(values), max(values)
    text = f"{low:.{digits}f}"
    if f"{high:.{digits}f}" != text:
        text += f"–{high:.{digits}f}"
    return text + suffix


def digits_for(values):
    values = [v for v in values if v is not None]
    top = max(values) if values else 0
    return 2 if top < 10 else 1 if top < 100 else 0


def median(values):
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def with_unit(text, unit):
    return text if text == "—" else f"{text} {unit}"


def table(header, rows, right):
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]

    def line(cells):
        return "| " + " | ".join(
            c.rjust(widths[i]) if i in right else c.ljust(widths[i])
            for i, c in enumerate(cells)) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if i in right else "-" * (w + 2)
                          for i, w in enumerate(widths)) + "|"
    return "\n".join([line(header), rule] + [line(r) for r in rows])


def report(ref_label, ref_runs, now_runs):
    ref_parsed = [parse(r) for r in ref_runs]
    now_parsed = [parse(r) for r in now_runs]
    # Order: the current runner's, with workloads only REF has after their section.
    order = []
    for rows, keys in now_parsed + ref_parsed:
        for key in keys:
            if key not in order:
                position = max((i for i, k in enumerate(order) if k[0] == key[0]), default=None)
                order.insert(position + 1 if position is not None else len(order), key)

    out = []
    header = ["section", "workload", f"ratio at {ref_label}", "ratio now", "now ÷ ref",
              f"StateGraph at {ref_label}", "StateGraph now"]
    rows = []
    for key in order:
        ref = [p[0][key] for p in ref_parsed if key in p[0]]
        now = [p[0][key] for p in now_parsed if key in p[0]]
        ratios = [r["ratio"] for r in ref + now]
        digits = digits_for(ratios)
        unit = (now or ref)[0]["unit"]
        values = [r["value"] for r in ref + now]
        value_digits = digits_for(values)
        ref_ratio = median([r["ratio"] for r in ref])
        now_ratio = median([r["ratio"] for r in now])
        if not ref:
            change = "new"
        elif not now:
            change = "gone"
        elif ref_ratio and now_ratio:
            change = f"{now_ratio / ref_ratio:.2f}"
        else:
            ref_value = median([r["value"] for r in ref])
            now_value = median([r["value"] for r in now])
            change = f"{now_value / ref_value:.2f}" if ref_value and now_value else "—"
        rows.append([
            key[0], key[1],
            span([r["ratio"] for r in ref], digits, "×") if ref else "—",
            span([r["ratio"] for r in now], digits, "×") if now else "—",
            change,
            with_unit(span([r["value"] for r in ref], value_digits), unit) if ref else "—",
            with_unit(span([r["value"] for r in now], value_digits), unit) if now else "—",
        ])
    out.append(table(header, rows, right={2, 3, 4, 5, 6}))
    out.append("")
    out.append("ratio: StateGraph ÷ its hand-written baseline in the same run (range over "
               f"{len(ref_runs)} runs at {ref_label}, {len(now_runs)} now); now ÷ ref: the "
               "medians' quotient, above 1 = slower than at the reference (for rows without a "
               "ratio, the StateGraph figures' quotient).")
    return "\n".join(out)


# ------------------------------------------------------------ instructions

PROGRESS = re.compile(r"^\s+(?:ok|FAILED)\s+(.+?)\s+\(\d")


def second_thread_preload():
    """SecondThread/second-thread.so, built next to its source when missing or older."""
    source = os.path.join(BENCHMARKS, "SecondThread", "second-thread.c")
    library = os.path.join(BENCHMARKS, ".build", "second-thread.so")
    if not os.path.exists(library) or os.path.getmtime(library) < os.path.getmtime(source):
        os.makedirs(os.path.dirname(library), exist_ok=True)
        subprocess.run([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", source, "-o",
                        library, "-lpthread"], check=True)
    return library


def runner_environment(second_thread):
    environment = dict(os.environ)
    if second_thread:
        environment["LD_PRELOAD"] = second_thread_preload()
    return environment


def workload_names(binary, filter_text):
    command = [binary, "--quick"] + (["--filter", filter_text] if filter_text else [])
    result = subprocess.run(command, capture_output=True, text=True)
    return [m.group(1) for m in map(PROGRESS.match, result.stderr.splitlines()) if m]


def callgrind_total(binary, name, ops):
    with tempfile.TemporaryDirectory(prefix="sg-cg-") as directory:
        out = os.path.join(directory, "cg")
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary,
             "--filter", name, "--profile", str(ops)], capture_output=True, text=True)
        if result.returncode != 0 or not os.path.exists(out):
            return None, ""
        with open(out) as file:
            totals = [line for line in file if line.startswith("totals:") or line.startswith("summary:")]
        return (int(totals[-1].split()[1]) if totals else None), result.stdout


def instructions_per_op(binary, name, ops):
    """Callgrind instructions per op of the StateGraph side (`--profile`): two runs with
    different op counts, subtracted, so that building the graph cancels out."""
    low, high = ops
    a, out = callgrind_total(binary, name, low)
    # --profile runs every workload whose name contains the filter: only exact matches count.
    if a is None or sum(line.startswith(name + ":") for line in out.splitlines()) != 1:
        return None
    b, _ = callgrind_total(binary, name, high)
    return None if b is None else (b - a) / (high - low)


def instructions_report(ref_label, ref_binary, now_binary, filter_text, ops):
    names = workload_names(now_binary, filter_text)
    for name in workload_names(ref_binary, filter_text):
        if name not in names:
            names.append(name)
    rows = []
    # Callgrind is single-threaded and slow: the workloads run side by side.
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        counts = {(name, side): pool.submit(instructions_per_op, binary, name, ops)
                  for name in names for side, binary in (("ref", ref_binary), ("now", now_binary))}
        for name in names:
            ref = counts[(name, "ref")].result()
            now = counts[(name, "now")].result()
            log(f"bench-compare: callgrind, {name}: {ref} → {now}")
            if ref is None and now is None:
                continue  # not a --profile workload (memory, allocations, ...)
            rows.append([name, f"{ref:,.0f}" if ref is not None else "—",
                         f"{now:,.0f}" if now is not None else "—",
                         f"{now / ref:.2f}" if ref and now else "—"])
    header = ["workload", f"instructions/op at {ref_label}", "instructions/op now", "now ÷ ref"]
    return (table(header, rows, right={1, 2, 3}) + "\n\ninstructions/op: callgrind, the "
            "StateGraph side alone (`--profile`), runs of two op counts subtracted; "
            "the same on any machine, however loaded.")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ref", help="the reference commit (anything git rev-parse accepts)")
    parser.add_argument("--pairs", type=int, default=3, help="runs of each side (default 3)")
    parser.add_argument("--filter", help="only workloads whose name contains this")
    parser.add_argument("--samples", type=int, help="timed samples per workload and run")
    parser.add_argument("--keep", help="write every run's full output into this directory")
    parser.add_argument("--ref-binary", help="a runner already built at REF (skips that build)")
    parser.add_argument("--now-binary", help="a runner already built at the working tree")
    parser.add_argument("--instructions", action="store_true",
                        help="instead of timing, count instructions per op with callgrind")
    parser.add_argument("--second-thread", action="store_true",
                        help="run both runners with a second, idle thread (see above)")
    parser.add_argument("--ops", type=int, nargs=2, default=[3, 9],
                        help="op counts of the two callgrind runs (default 3 9)")
    args = parser.parse_args()
    if not args.ref:
        sys.exit("bench-compare: which commit? make bench-compare REF=<commit>")

    try:
        commit = git("rev-parse", "--verify", args.ref + "^{commit}")
    except subprocess.CalledProcessError:
        sys.exit(f"bench-compare: {args.ref!r} is not a commit")
    ref_label = git("rev-parse", "--short", commit)

    ref_binary = args.ref_binary or reference_runner(commit)
    if args.now_binary:
        now_binary = args.now_binary
    else:
        log("bench-compare: building the runner at the working tree")
        now_binary = build(BENCHMARKS)

    if args.instructions:
        print(f"# Instructions per op: {ref_label} against "
              f"{args.now_binary or 'the working tree'}\n")
        print(instructions_report(ref_label, ref_binary, now_binary, args.filter, args.ops))
        return

    options = []
    if args.filter:
        options += ["--filter", args.filter]
    if args.samples:
        options += ["--samples", str(args.samples)]
    environment = runner_environment(args.second_thread)
    runs = {"ref": [], "now": []}
    failed = []
    for pair in range(args.pairs):
        # Alternate which side goes first, so neither always runs on a warmer machine.
        sides = ["ref", "now"] if pair % 2 == 0 else ["now", "ref"]
        for side in sides:
            binary = ref_binary if side == "ref" else now_binary
            label = ref_label if side == "ref" else "now"
            log(f"bench-compare: run {pair + 1}/{args.pairs} at {label}")
            result = subprocess.run([binary] + options, capture_output=True, text=True,
                                    env=environment)
            runs[side].append(result.stdout)
            if args.keep:
                os.makedirs(args.keep, exist_ok=True)
                with open(os.path.join(args.keep, f"{side}-{pair + 1}.txt"), "w") as file:
                    file.write(result.stdout + result.stderr)
            if result.returncode != 0:
                failed.append((label, pair + 1, failures(result.stdout)
                               or result.stderr.splitlines()[-5:]))

    machine = next((l for l in runs["now"][0].splitlines() if l.startswith("machine:")), "")
    now_label = (args.now_binary if args.now_binary else
                 f"the working tree ({git('rev-parse', '--short', 'HEAD')}"
                 f"{'+changes' if git('status', '--porcelain', '--untracked-files=no') else ''})")
    print(f"# Benchmarks: {ref_label} against {now_label}"
          f"{', each runner with a second, idle thread' if args.second_thread else ''}")
    if machine:
        print(machine)
    print()
    print(report(ref_label, runs["ref"], runs["now"]))
    for label, pair, lines in failed:
        print(f"\nrun {pair} at {label} FAILED:")
        for line in lines:
            print("  " + line)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
