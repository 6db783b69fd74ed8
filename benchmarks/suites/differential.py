# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The long differential run: the planner (key ranges, skip scans, residuals), aggregate and range
index differential specs, with --cases random queries in all instead of the test suite's shorter run.

Run through `./benchmarks/run differential [--cases 10000]`. The cases are shared equally by the
three generators (the range index's share half on each of its two tables). It runs the three Scala
specs with sbt against the embedded HBase that the test build starts (a fresh one), each comparing
every answer with Spark's over the same rows in memory, and writes
benchmarks/results/differential-<cases>.json and .md: cases, answers that differ (the target is
0) and the minutes taken. A spec that finds differences lists the first ones in the sbt output."""

import argparse
import os
import re
import subprocess
import time

from harness.common import ROOT, machine, today
from harness.results import write_results

SPECS = ["PlannerDifferentialSpec", "AggregateDifferentialSpec", "RangeIndexDifferentialSpec"]
# Runs of random cases the specs report: two each (the planner's and the aggregates' over both layouts, the index's
# over its two tables).
EXPECTED_RUNS = 2 * len(SPECS)
# What DifferentialCases.noFailedCases reports for every run of random cases.
SUMMARY = re.compile(r"\+ (?P<what>[^:]+): (?P<cases>\d+) cases, (?P<differ>\d+) answers differ")
FINISHED = re.compile(r"^\[info\] - .*\((?P<time>[^)]*)\)$")
FAILED = re.compile(r"^\[info\] - (?P<test>.*) \*\*\* FAILED \*\*\*")
# A failed assertion of a statistical floor ("clauses for which the index skipped chunks: 0.0 was not greater than
# 0.0"): the random cases showed less of something than they should often show. With few cases that is chance, not
# a wrong answer; an answer that differs fails noFailedCases instead ("N answers of M cases differ").
FLOOR = re.compile(r"was not greater than")
DIFFERENCE = re.compile(r"answers of \d+ cases differ")


def failures(lines):
    """[(test, first line of its message)] of the tests ScalaTest reports failed."""
    found = []
    for i, line in enumerate(lines):
        if failed := FAILED.match(line):
            message = next((ln for ln in lines[i + 1 : i + 4] if ln.strip() not in ("", "[info]")), "")
            found.append((failed["test"], message.removeprefix("[info]").strip()))
    return found


def verdict(report):
    """(exit code, why): 0 when the specs reported every run of cases and no answer differs, even if a statistical
    floor was missed (said, not failed); 1 when an answer differs, or a spec failed or ended otherwise."""
    if report["differ"]:
        return 1, f"{report['differ']} answers differ from Spark's: see the sbt output above"
    if len(report["runs"]) < EXPECTED_RUNS:
        return 1, "a spec ended before it reported its cases (an error rather than a difference): see the sbt output"
    other = [f for f in report["failures"] if not FLOOR.search(f[1]) or DIFFERENCE.search(f[1])]
    if other or (report["sbtExit"] and not report["failures"]):
        return 1, "sbt failed other than on a statistical floor: " + "; ".join(f"{t}: {m}" for t, m in other)
    floors = report["failures"]
    if floors:
        return 0, (
            f"no answer differs; {len(floors)} statistical floor(s) not reached with {report['cases']} cases, which "
            "chance explains in a sample this small (run more --cases to check them): "
            + "; ".join(f"{t}: {m}" for t, m in floors)
        )
    return 0, "no answer differs"


def run_specs(per_spec):
    """Every line sbt printed, and its exit code."""
    env = dict(os.environ, SPARK_HBASE_DIFFERENTIAL_CASES=str(per_spec))
    command = [str(ROOT / "build" / "sbt"), "testOnly " + " ".join(f"*{spec}" for spec in SPECS)]
    print(f"running {', '.join(SPECS)} with {per_spec} cases each", flush=True)
    lines = []
    with subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as sbt:
        for line in sbt.stdout:
            lines.append(line.rstrip("\n"))
            if SUMMARY.search(line) or FINISHED.match(line) or FAILED.match(line) or "Tests:" in line:
                print(line, end="", flush=True)
    return lines, sbt.returncode


def runs_of(lines):
    """Each run of random cases the specs reported, with the time of the test it ends."""
    runs, took = [], None
    for line in lines:
        if finished := FINISHED.match(line):
            took = finished["time"]
        elif summary := SUMMARY.search(line):
            # The summary follows the line of the test that it ends.
            runs.append(
                {
                    "what": summary["what"].strip(),
                    "cases": int(summary["cases"]),
                    "differ": int(summary["differ"]),
                    "took": took,
                }
            )
    return runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=10000, help="random queries in all, shared by the generators")
    args = parser.parse_args()
    if args.cases < len(SPECS) * 2:
        raise SystemExit(f"--cases {args.cases}: at least {len(SPECS) * 2}, so that every generator has a case")
    per_spec = -(-args.cases // len(SPECS))
    t0 = time.monotonic()
    lines, sbt_exit = run_specs(per_spec)
    runs = runs_of(lines)
    report = {
        "cases": sum(r["cases"] for r in runs),
        "specs": SPECS,
        "runs": runs,
        "differ": sum(r["differ"] for r in runs),
        "minutes": round((time.monotonic() - t0) / 60, 1),
        "sbtExit": sbt_exit,
        "failures": failures(lines),
        "machine": machine(),
        "date": today(),
        "command": f"./benchmarks/run differential --cases {args.cases}",
    }
    code, why = verdict(report)
    report["verdict"] = why
    write_results(f"differential-{args.cases}", report, markdown, None)
    print(why)
    raise SystemExit(code)


def markdown(report):
    lines = [
        f"`{report['command']}`, {report['date']}, {report['machine']}, {report['minutes']} minutes in all:",
        "",
        "| differential run | cases | answers that differ | time |",
        "|---|---|---|---|",
    ]
    lines += [f"| {r['what']} | {r['cases']} | {r['differ']} | {r['took']} |" for r in report["runs"]]
    lines += [f"| **all** | **{report['cases']}** | **{report['differ']}** | {report['minutes']} minutes |"]
    if report.get("verdict"):
        lines += ["", report["verdict"]]
    return "\n".join(lines) + "\n"


CHARTS = {}

if __name__ == "__main__":
    main()
