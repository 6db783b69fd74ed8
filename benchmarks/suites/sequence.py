# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The project's own workloads one after another against one embedded HBase with its default memory, as a new
user's HBase meets them: does the region server survive, and does its heap come back after each step?

Run through `./benchmarks/run sequence [--tables 200] [--scale quick|default] [--soak-minutes 10] [--with-tests]`. One embedded HBase (`spark-hbase local
start` defaults: one region server, 1 GB heap, block cache and memstores 0.25 of it), started empty; every step is a
Spark application of its own, given that HBase through HBASE_CONF_DIR:
1. --tables 3-region tables created, written, read and dropped with PURGE, and a tenth of that dropped without
   (their regions stay open), as a user trying the project does;
2. with --scale quick, the planner and skip-scan benchmarks at TPC-H scale 0.02 (lineitem written with INSERT and
   queried hundreds of times), the load benchmark at 0.1 (LOAD DATA, LOAD DATA PARALLEL and INSERT), the aggregate
   benchmark at 0.1, the range index benchmark over 500,000 readings, the groups benchmark over 200,000 string
   groups, and the differential specs over 300 random queries; with --scale default, each of them at the scale
   `./benchmarks/run` gives it (TPC-H 0.1 over 16 regions, 5,000,000 readings, 2,000,000 groups), each query run
   once, and 1,000 differential queries;
3. with --soak-minutes, the soak's writers, loaders, readers and region splits on this HBase;
4. with --with-tests, the whole test suite (`./bin/test`, which runs against the HBase HBASE_CONF_DIR names; the
   tests that need several region servers or kill one are skipped there, as they say).
Before the first step and after each, the region server's live heap is read after a full GC (JvmCounts.java over
JMX), with what the block cache and the memstores hold of it (they grow with the data, up to their shares of the
heap) and the rest, which must not grow from step to step; its peak heap during each step is sampled with jstat. A step that fails is recorded with its exit code and
the sequence goes on; the region server must be alive at the end. It exits 1 when a step failed, the region
server died, or the rest grew by more than REST_MARGIN_MB after the first step beyond REGION_MB for each region
opened since. The steps' own results go to
benchmarks/work/sequence-results, not over the committed ones.

Writes benchmarks/results/sequence-<scale>.json, .md and .png.
"""

import argparse
import os
import subprocess
import sys
import time

from harness.charts import figure
from harness.common import BENCHMARKS, ROOT, WORK, log
from harness.data import tables_made_and_dropped
from harness.results import write_results
from harness.server_sampling import PeakHeap, jvm_counts
from harness.sessions import empty_hbase, start_session

# What an open region costs the region server's heap beyond its data (its stores, and HBase's metrics of it):
# 0.17 MB a region in the heap benchmark's kept 3-region tables, 0.33 MB over the test suite's step of this one.
REGION_MB = 0.35
# How much the heap that is neither block cache, memstores nor store file indexes may grow after the first step
# beyond what the regions opened since explain: what GC leaves behind, HBase's chores' state.
REST_MARGIN_MB = 32


def steps(args):
    python = sys.executable
    if args.scale == "default":
        # Every benchmark with the arguments `./benchmarks/run <name>` gives it, except the differential run (1,000
        # random queries rather than 10,000, an hour less) and the soak (--soak-minutes, splits only: the only region
        # server is never killed, as that would start its heap again).
        workloads = [
            ("planner sf0.1", [python, "-m", "suites.planner", "--repeat", "1", "--repeat-off", "1"]),
            ("skipscan sf0.1", [python, "-m", "suites.skipscan", "--repeat", "1"]),
            ("load sf0.1", [python, "-m", "suites.load", "--repeat", "1"]),
            ("aggregate sf0.1", [python, "-m", "suites.aggregate", "--repeat", "1"]),
            ("index 5M", [python, "-m", "suites.index", "--repeat", "1"]),
            ("groups 2M", [python, "-m", "suites.groups", "--repeat", "1"]),
            ("differential 1000", [python, "-m", "suites.differential", "--cases", "1000"]),
        ]
    else:
        workloads = [
            ("planner sf0.02", [python, "-m", "suites.planner", "--scale", "0.02", "--regions", "4", "--repeat", "3"]),
            (
                "skipscan sf0.02",
                [python, "-m", "suites.skipscan", "--scale", "0.02", "--regions", "4", "--repeat", "3"],
            ),
            ("load sf0.1", [python, "-m", "suites.load", "--scale", "0.1", "--regions", "6", "--repeat", "1"]),
            (
                "aggregate sf0.1",
                [python, "-m", "suites.aggregate", "--scale", "0.1", "--regions", "6", "--repeat", "1"],
            ),
            (
                "index 500k",
                [python, "-m", "suites.index", "--rows", "500000", "--write-rows", "50000", "--repeat", "1"],
            ),
            ("groups 200k", [python, "-m", "suites.groups", "--groups", "200000", "--repeat", "1"]),
            ("differential 300", [python, "-m", "suites.differential", "--cases", "300"]),
        ]
    tables = [("tables", [python, "-m", "suites.sequence", "--step-tables", str(args.tables)])]
    soak = []
    if args.soak_minutes:
        soak = [
            (
                f"soak {args.soak_minutes:g}m",
                [python, "-m", "suites.soak", "--minutes", f"{args.soak_minutes:g}", "--chaos-every", "2"]
                + ["--hbase-dir", str(args.hbase_dir)],
            )
        ]
    tests = [("./bin/test", [str(ROOT / "bin" / "test")])] if args.with_tests else []
    return tables + workloads + soak + tests


def heap_of(pid):
    """The region server's live heap after a full GC, what its block cache and memstores hold of it (they grow with
    the data, up to their shares), and the rest, which must not grow from step to step."""
    counts = jvm_counts(pid)
    for _ in range(30):  # a region server just started registers its gauges a little later
        if counts.get("blockCacheMb") is not None:
            break
        time.sleep(2)
        counts = jvm_counts(pid)
    heap, cache = counts["heapAfterGcMb"], counts["blockCacheMb"] or 0.0
    # The memstores' cells take about 2.5 times their data in heap (measured: 66.9 MB for 26.5 MB of data).
    memstores = counts.get("memStoreHeapMb") or counts["memStoreMb"] or 0.0
    indexes = (counts.get("storeFileIndexMb") or 0.0) + (counts.get("staticBloomMb") or 0.0)
    return {
        "heapAfterGcMb": heap,
        "blockCacheMb": cache,
        "memStoreMb": counts["memStoreMb"],
        "memStoreHeapMb": memstores,
        # The store files' block indexes and bloom filters (their roots; the other levels are in the block cache).
        "storeFileIndexMb": round(indexes, 1),
        "regions": counts.get("regions"),
        "storeFiles": counts.get("storeFiles"),
        "activeScanners": counts.get("activeScanners"),
        "restMb": round(heap - cache - memstores - indexes, 1),
    }


def tables_step(count):
    """Run as a step of its own: `count` purged tables and a tenth as many kept, in one Spark application."""
    spark, _ = start_session("sequence-tables", {})
    tables_made_and_dropped(spark, count, True, "sequence_purged")
    tables_made_and_dropped(spark, max(1, count // 10), False, "sequence_kept")
    spark.stop()


def judge(report):
    """The rest's growth after the first step, which every later one is measured from: as read, and beyond
    what the regions opened since explain (REGION_MB each; the steps leave their tables, and DROP TABLE keeps the
    HBase table)."""
    measured = [s for s in report["steps"][1:] if s.get("restMb") is not None]
    if not measured:
        report["restGrowthMb"] = report["restUnexplainedMb"] = None
        return
    first = measured[0]
    report["restGrowthMb"] = round(max(s["restMb"] for s in measured) - first["restMb"], 1)
    report["restUnexplainedMb"] = round(
        max(
            s["restMb"] - first["restMb"] - REGION_MB * ((s["regions"] or 0) - (first["regions"] or 0))
            for s in measured
        ),
        1,
    )
    report["regionMb"], report["restMarginMb"] = REGION_MB, REST_MARGIN_MB


def run_step(hbase, name, argv, env):
    """One step as a process of its own, its log under benchmarks/work, with the region server's peak heap during
    it and its heap after."""
    log(f"step {name}: {' '.join(argv[1:] if argv[0] == sys.executable else argv)}")
    began = time.perf_counter()
    with PeakHeap(hbase.pid) as peak:
        with open(WORK / f"sequence-{name.replace(' ', '_').replace('/', '_')}.log", "w") as out:
            code = subprocess.run(argv, cwd=BENCHMARKS, env=env, stdout=out, stderr=subprocess.STDOUT).returncode
    alive = hbase.is_running()
    step = {
        "step": name,
        "exitCode": code,
        "seconds": round(time.perf_counter() - began, 1),
        "peakHeapMb": round(peak.peak_mb, 1),
        "regionServerAlive": alive,
        **(heap_of(hbase.pid) if alive else {"heapAfterGcMb": None}),
    }
    log(f"step {name}: {step}")
    return step


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200, help="tables created and dropped in the first step")
    parser.add_argument(
        "--scale",
        choices=["quick", "default"],
        default="quick",
        help="quick: small scales (about 30 minutes); default: every benchmark at its own default scale",
    )
    parser.add_argument("--soak-minutes", type=float, default=0, help="a soak of that many minutes after the rest")
    parser.add_argument("--with-tests", action="store_true", help="run ./bin/test as the last step")
    parser.add_argument("--step-tables", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step_tables is not None:
        return tables_step(args.step_tables)

    hbase = empty_hbase("hbase-sequence")
    hbase.start()
    args.hbase_dir = hbase.data_dir
    results_dir = WORK / "sequence-results"
    env = dict(
        os.environ,
        HBASE_CONF_DIR=str(hbase.conf_dir),
        BENCH_RESULTS_DIR=str(results_dir),
        SEQUENCE_HBASE_PID=str(hbase.pid),
    )
    command = f"./benchmarks/run sequence --tables {args.tables} --scale {args.scale}"
    command += f" --soak-minutes {args.soak_minutes:g}" if args.soak_minutes else ""
    command += " --with-tests" if args.with_tests else ""
    report = {
        "command": command,
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores",
        "hbase": {"heap": hbase.heap, "blockCache": hbase.block_cache, "memstore": hbase.memstore},
        "steps": [{"step": "start", **heap_of(hbase.pid)}],
    }
    for name, argv in steps(args):
        step = run_step(hbase, name, argv, env)
        report["steps"].append(step)
        if not step["regionServerAlive"]:
            break
    report["regionServerAlive"] = hbase.is_running()
    judge(report)
    write_results(f"sequence-{args.scale}", report, markdown, chart)
    hbase.stop()
    failed = [s["step"] for s in report["steps"][1:] if s.get("exitCode") != 0]
    if failed or not report["regionServerAlive"] or (report["restUnexplainedMb"] or 0) > REST_MARGIN_MB:
        log(
            f"failed steps {failed}; region server alive {report['regionServerAlive']}; rest grew "
            f"{report['restUnexplainedMb']} MB beyond its open regions (margin {REST_MARGIN_MB} MB)"
        )
        raise SystemExit(1)


def markdown(report):
    h = report["hbase"]
    lines = [
        f"`{report['command']}`, {report['date']}, {report['machine']}; one embedded HBase for every step, one region "
        f"server, heap {h['heap']}, block cache {h['blockCache']}, memstores {h['memstore']}; region server alive at "
        f"the end: **{report['regionServerAlive']}**; after the first step the rest grew {report.get('restGrowthMb')} MB, "
        f"**{report.get('restUnexplainedMb')} MB** beyond {report.get('regionMb')} MB for each region opened since "
        f"(margin {report.get('restMarginMb')} MB)",
        "",
        "| after | exit code | seconds | peak heap during (MB) | live heap after full GC (MB) | block cache (MB) | "
        "memstores' data (MB) | memstores' heap (MB) | store file indexes and blooms (MB) | regions | store files | "
        "the rest (MB) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in report["steps"]:
        lines.append(
            f"| {s['step']} | {s.get('exitCode', '')} | {s.get('seconds', '')} | {s.get('peakHeapMb', '')} | "
            f"{s['heapAfterGcMb'] if s['heapAfterGcMb'] is not None else 'dead'} | {s.get('blockCacheMb', '')} | "
            f"{s.get('memStoreMb', '')} | {s.get('memStoreHeapMb', '')} | {s.get('storeFileIndexMb', '')} | "
            f"{s.get('regions', '')} | {s.get('storeFiles', '')} | {s.get('restMb', '')} |"
        )
    return "\n".join(lines) + "\n"


def chart(report, path):
    fig = figure((10, 5))
    axes = fig.subplots()
    steps = report["steps"]
    xs = list(range(len(steps)))
    axes.plot(xs, [s["heapAfterGcMb"] or 0 for s in steps], marker="o", label="live heap after full GC")
    axes.plot(xs, [s.get("restMb") or 0 for s in steps], marker="s", label="of it, not block cache or memstores")
    axes.scatter(
        [i for i, s in enumerate(steps) if "peakHeapMb" in s],
        [s["peakHeapMb"] for s in steps if "peakHeapMb" in s],
        color="C3",
        label="peak heap during the step",
    )
    axes.set_xticks(xs, [s["step"] for s in steps], rotation=45, fontsize=8)
    axes.set_ylabel("MB")
    axes.set_title(f"One embedded HBase ({report['hbase']['heap']}) under every workload, step after step")
    axes.legend()
    fig.savefig(path, dpi=110)


CHARTS = {"sequence": chart}

if __name__ == "__main__":
    main()
