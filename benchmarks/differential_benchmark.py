"""The long differential run: the planner (key ranges, skip scans, residuals), aggregate and range
index differential specs, with --cases random queries in all instead of the test suite's shorter run.

Run through `./benchmarks/run differential [--cases 10000]`. The cases are shared equally by the
three generators (the range index's share half on each of its two tables). It runs the three Scala
specs with sbt against the embedded HBase that the test build starts (a fresh one), each comparing
every answer with Spark's over the same rows in memory, and writes
benchmarks/results/differential-<cases>.json and .md: cases, answers that differ (the target is
0) and the minutes taken. A spec that finds differences lists the first ones in the sbt output."""

import argparse
import json
import os
import re
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "benchmarks" / "results")
SPECS = ["PlannerDifferentialSpec", "AggregateDifferentialSpec", "RangeIndexDifferentialSpec"]
# What DifferentialCases.noFailedCases reports for every run of random cases.
SUMMARY = re.compile(r"\+ (?P<what>[^:]+): (?P<cases>\d+) cases, (?P<differ>\d+) answers differ")
FINISHED = re.compile(r"^\[info\] - .*\((?P<time>[^)]*)\)$")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=10000, help="random queries in all, shared by the generators")
    args = parser.parse_args()
    per_spec = -(-args.cases // len(SPECS))
    env = dict(os.environ, SPARK_HBASE_DIFFERENTIAL_CASES=str(per_spec))
    command = [str(ROOT / "build" / "sbt"), "testOnly " + " ".join(f"*{spec}" for spec in SPECS)]
    print(f"running {', '.join(SPECS)} with {per_spec} cases each", flush=True)
    t0 = time.monotonic()
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
            if SUMMARY.search(line) or FINISHED.match(line) or "Tests:" in line:
                print(line, end="", flush=True)
    minutes = (time.monotonic() - t0) / 60
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
    report = {
        "cases": sum(r["cases"] for r in runs),
        "specs": SPECS,
        "runs": runs,
        "differ": sum(r["differ"] for r in runs),
        "minutes": round(minutes, 1),
        "sbtExit": sbt.returncode,
        "machine": f"{os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"),
        "command": f"./benchmarks/run differential --cases {args.cases}",
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"differential-{args.cases}.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / f"differential-{args.cases}.md").write_text(markdown(report))
    print(markdown(report))
    if len(runs) < 4:  # the index spec reports once per table
        raise SystemExit(
            "a spec ended before it reported its cases (an error rather than a difference): see the sbt output above"
        )
    raise SystemExit(0 if report["differ"] == 0 and sbt.returncode == 0 else 1)


def markdown(report):
    lines = [
        f"`{report['command']}`, {report['date']}, {report['machine']}, {report['minutes']} minutes in all:",
        "",
        "| differential run | cases | answers that differ | time |",
        "|---|---|---|---|",
    ]
    lines += [f"| {r['what']} | {r['cases']} | {r['differ']} | {r['took']} |" for r in report["runs"]]
    lines += [f"| **all** | **{report['cases']}** | **{report['differ']}** | {report['minutes']} minutes |"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
