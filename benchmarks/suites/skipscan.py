# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Skip-scan benchmark: predicates on the second key column and on value columns of TPC-H lineitem.

Run through benchmarks/run, which installs what this needs. It uses the tables of the planner
benchmark (loading them first if no earlier run did) and times each query three ways in the same
session: with the server jar's SkipScanFilter (the default), with spark.sql.hbase.customfilter=false
(HBase's own filters, the residual checked by Spark), and with spark.sql.hbase.pushdown=false
(every row read, Spark filters). It writes benchmarks/results/skipscan-sf<scale>.json, .md and .png;
`./benchmarks/run chart skipscan` draws the .png again from the .json without running the queries.
"""

import os
import statistics
import time

from harness.charts import bar_chart
from harness.common import log, scale_and_regions_arguments
from harness.data import generate, load
from harness.results import write_results
from harness.sessions import start_session
from harness.timing import PUSHDOWN_OFF, timed_runs

MODES = [
    ("server jar", {}),
    ("customfilter off", {"spark.sql.hbase.customfilter": "false"}),
    ("pushdown off", PUSHDOWN_OFF),
]


def main():
    args, scale = scale_and_regions_arguments(__doc__)

    data = generate(scale)
    spark, hbase = start_session("skipscan", {"spark.sql.shuffle.partitions": "4"})
    lineitem, _, max_key, _ = load(spark, data, scale, args.regions)
    low, high = max_key // 2, max_key // 2 + max_key // 10  # 10 % of the order keys
    queries = [
        ("l_linenumber = 7", f"SELECT * FROM {lineitem} WHERE l_linenumber = 7"),
        (
            "l_orderkey BETWEEN (10 %) AND l_linenumber IN (1, 7)",
            f"SELECT * FROM {lineitem} WHERE l_orderkey BETWEEN {low} AND {high} AND l_linenumber IN (1, 7)",
        ),
        (
            "value columns only: l_shipmode = 'AIR' AND l_quantity < 2",
            f"SELECT * FROM {lineitem} WHERE l_shipmode = 'AIR' AND l_quantity < 2",
        ),
    ]
    results = []
    for name, query in queries:
        runs = {}
        for mode, settings in MODES:
            times, rows, metrics = timed_runs(spark, query, settings, args.repeat, warm_up=mode != "pushdown off")
            runs[mode] = {
                "seconds": statistics.median(times),
                "runs": times,
                "rows": sorted(map(tuple, rows)),
                **metrics,
            }
        reference = runs["pushdown off"]["rows"]
        assert all(r["rows"] == reference for r in runs.values()), f"{name}: results differ between modes"
        matched = len(reference)
        for r in runs.values():
            del r["rows"]
        results.append({"query": name, "sql": query, "rowsMatched": matched, "modes": runs})
        log(
            f"{name}: {matched} rows; "
            + "; ".join(f"{m} {r['seconds'] * 1000:.0f} ms, rowsRead {r['rowsRead']}" for m, r in runs.items())
        )
    spark.stop()

    report = {
        "scale": scale,
        "regions": args.regions,
        "queries": results,
        "machine": f"{os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"),
    }
    write_results(f"skipscan-sf{scale}", report, markdown, chart)
    if hbase:
        hbase.stop()


def markdown(report):
    lines = [
        f"TPC-H scale {report['scale']}, {report['regions']} regions, {report['machine']}, {report['date']}.",
        "",
        "| query | rows matched | server jar | rowsRead | rowsRead / matched | customfilter off | rowsRead | "
        "pushdown off | rowsRead | speedup vs customfilter off | speedup vs pushdown off |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in report["queries"]:
        on, plain, off = (r["modes"][m] for m, _ in MODES)
        ratio = on["rowsRead"] / r["rowsMatched"] if r["rowsMatched"] else float("nan")
        lines.append(
            f"| {r['query']} | {r['rowsMatched']} | {on['seconds'] * 1000:.0f} ms | {on['rowsRead']} | "
            f"{ratio:.2f} | {plain['seconds'] * 1000:.0f} ms | {plain['rowsRead']} | "
            f"{off['seconds'] * 1000:.0f} ms | {off['rowsRead']} | {plain['seconds'] / on['seconds']:.1f}x | "
            f"{off['seconds'] / on['seconds']:.1f}x |"
        )
    return "\n".join(lines) + "\n"


def chart(report, path):
    """Median ms of each query in each mode; runs are dotted where the JSON has them (older results keep medians
    only)."""
    queries = report["queries"]
    bar_chart(
        path,
        f"Skip scan and filters in the region server, TPC-H lineitem scale {report['scale']}, "
        f"{report['regions']} regions",
        [f"{q['query']}\n({q['rowsMatched']:,} rows)" for q in queries],
        [
            (mode, [q["modes"][mode]["seconds"] for q in queries], [q["modes"][mode].get("runs") for q in queries])
            for mode, _ in MODES
        ],
        unit="ms",
    )


CHARTS = {"skipscan": chart}

if __name__ == "__main__":
    main()
