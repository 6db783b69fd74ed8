# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""`./benchmarks/run planner`: see the package's docstring."""

import argparse
import json
import os
import statistics
import subprocess

from harness.common import RESULTS, ROOT, git_commit, log, machine, today, tpch_scale
from harness.data import generate, load
from harness.results import write_results
from harness.sessions import start_session, stop
from harness.timing import PUSHDOWN_OFF, timed_runs

from . import __doc__ as DOC
from . import long_predicates
from .report import chart, markdown


def arguments():
    parser = argparse.ArgumentParser(
        prog="./benchmarks/run planner", description=DOC, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--regions", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=5, help="runs per query with pushdown on (median)")
    parser.add_argument("--repeat-off", type=int, default=3, help="runs per query with pushdown off (median)")
    parser.add_argument(
        "--long-predicates-only", action="store_true", help="plan only the long predicates (issue 36), no query"
    )
    parser.add_argument("--terms", default="1000,10000", help="term counts of the long predicates")
    parser.add_argument("--long-repeat", type=int, default=5, help="timed plannings of each long predicate (median)")
    parser.add_argument("--label", default="now", help="the name the long predicates' run is kept under, e.g. after")
    parser.add_argument("--commit", help="the commit the plugin was built from, when it is not the checkout's")
    return parser.parse_args()


def run_planning_benchmark(terms, long_repeat):
    """The planning microbenchmark's figures, and those of the long predicates through our planner alone."""
    log("planning microbenchmarks (sbt Test/runMain)")
    out = subprocess.run(
        [
            str(ROOT / "build" / "sbt"),
            "Test/runMain org.apache.spark.sql.hbase.bench.PlanningBenchmark",
            long_predicates.planner_alone_command(terms, long_repeat),
        ],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    line = next(ln for ln in out.splitlines() if '"benchmark": "planning"' in ln)
    return json.loads(line[line.index("{") :]), long_predicates.planner_alone_results(out)


def write_long_predicates(args, scale, planner_alone, spark_long, load_before):
    long_predicates.write(
        RESULTS,
        args.label,
        f"./benchmarks/run planner{' --long-predicates-only' if args.long_predicates_only else ''} --scale {scale} "
        f"--terms {args.terms} --long-repeat {args.long_repeat} --label {args.label}"
        + (f" --commit {args.commit}" if args.commit else ""),
        args.commit or git_commit(),
        planner_alone,
        spark_long,
        load_before,
    )


def queries(spark, lineitem, orders, max_key):
    """(name, SQL, selective) of each query."""
    keys = [r[0] for r in spark.sql("SELECT o_orderkey FROM src_orders ORDER BY o_orderkey").collect()]
    point = keys[len(keys) // 3]
    low = keys[len(keys) // 2]
    high = low + max_key // 1000  # 0.1 % of the key space
    in_keys = keys[len(keys) // 5 :: len(keys) // 100][:100]
    return [
        ("point lookup by full key", f"SELECT * FROM {lineitem} WHERE l_orderkey = {point} AND l_linenumber = 1", True),
        ("point lookup, orders", f"SELECT * FROM {orders} WHERE o_orderkey = {point}", True),
        ("0.1 % range on the leading key", f"SELECT * FROM {lineitem} WHERE l_orderkey BETWEEN {low} AND {high}", True),
        ("IN list of 100 keys", f"SELECT * FROM {lineitem} WHERE l_orderkey IN ({', '.join(map(str, in_keys))})", True),
        ("l_linenumber only", f"SELECT * FROM {lineitem} WHERE l_linenumber = 7", False),
        ("full-scan count", f"SELECT count(*) FROM {lineitem}", False),
    ]


def run_query(spark, name, query, selective, repeat, repeat_off):
    """The query with pushdown on and off, its answers checked to be the same."""
    on_runs, on_rows, on_metrics = timed_runs(spark, query, {}, repeat)
    # A full scan needs no warm-up.
    off_runs, off_rows, off_metrics = timed_runs(spark, query, PUSHDOWN_OFF, repeat_off, warm_up=False)
    on_time, off_time = statistics.median(on_runs), statistics.median(off_runs)
    assert sorted(map(tuple, on_rows)) == sorted(map(tuple, off_rows)), f"{name}: results differ"
    matched = on_rows[0][0] if query.startswith("SELECT count(*)") else len(on_rows)
    log(
        f"{name}: {matched} rows, on {on_time * 1000:.0f} ms (rowsRead {on_metrics['rowsRead']}), "
        f"off {off_time * 1000:.0f} ms (rowsRead {off_metrics['rowsRead']}), {off_time / on_time:.0f}x"
    )
    return {
        "query": name,
        "sql": query,
        "selective": selective,
        "rowsMatched": matched,
        "pushdownOn": {"seconds": on_time, "runs": on_runs, **on_metrics},
        "pushdownOff": {"seconds": off_time, "runs": off_runs, **off_metrics},
        "speedup": off_time / on_time,
    }


def main():
    args = arguments()
    scale = tpch_scale(args.scale)
    terms = [int(t) for t in args.terms.split(",")]
    load_before = os.getloadavg()[0]

    # First: it compiles the test classes, and needs no HBase.
    planning, planner_alone = run_planning_benchmark(terms, args.long_repeat)
    data = generate(scale)
    spark, hbase = start_session("planner", {"spark.sql.shuffle.partitions": "4"})
    lineitem, orders, max_key, load_times = load(spark, data, scale, args.regions)
    spark_long = long_predicates.through_spark(spark, lineitem, orders, terms, args.long_repeat)
    write_long_predicates(args, scale, planner_alone, spark_long, load_before)
    if args.long_predicates_only:
        stop(spark, hbase)
        return
    results = [
        run_query(spark, name, query, selective, args.repeat, args.repeat_off)
        for name, query, selective in queries(spark, lineitem, orders, max_key)
    ]
    spark.stop()
    report = {
        "scale": scale,
        "regions": args.regions,
        "loadSeconds": load_times,
        "queries": results,
        "planning": planning,
        "machine": machine(),
        "date": today(),
    }
    write_results(f"planner-sf{scale}", report, markdown, chart)
    if hbase:
        hbase.stop()


if __name__ == "__main__":
    main()
