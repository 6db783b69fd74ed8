# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""GROUP BY over millions of distinct string groups, in the region servers, under their memory budget.

Run through `./benchmarks/run groups [--groups 2000000] [--regions 4] [--repeat 3]`. On an embedded HBase of
its own, started empty with its default memory settings (1 GB heap; our aggregations may hold
`spark.hbase.server.aggregation.memory.share` = 0.1 of it, about 100 MB, for all regions together), it writes
--groups rows, each row its own string group, plus a second row for every tenth group, and runs

    SELECT g, count(*), sum(v) FROM t GROUP BY g

four ways: the coprocessor with the region server's budget alone, the same with each region's groups capped
at 1 MB (spark.sql.hbase.coprocessor.maxGroupBytes), at 64 KB, and the coprocessor off. Each answer is checked
to be exactly Spark's over the same rows made from range() (EXCEPT ALL both ways is empty). Beside the time:
the partial groups Spark read (rowsRead), the batches sent early for memory (memoryFlushes), and the region
server's peak heap during the runs (jstat, no GC forced) and its live heap after a full GC at the end.

Writes benchmarks/results/groups.json, .md and .png.
"""

import argparse
import statistics
import time

from harness.charts import bar_chart
from harness.common import log, machine, today
from harness.results import write_results
from harness.server_sampling import heap_after_gc_mb, region_server_peak
from harness.sessions import start_session, with_settings
from harness.timing import in_jvm, timed_runs

QUERY = "SELECT g, count(*) AS n, sum(v) AS s FROM {table} GROUP BY g"
MODES = [
    ("coprocessor on, server budget alone", {}),
    ("coprocessor on, 1 MB of groups a region", {"spark.sql.hbase.coprocessor.maxGroupBytes": "1m"}),
    ("coprocessor on, 64 KB of groups a region", {"spark.sql.hbase.coprocessor.maxGroupBytes": "64k"}),
    ("coprocessor off", {"spark.sql.hbase.coprocessor": "false"}),
]


def rows_sql(groups):
    """Every group once, every tenth twice; g is a string unlike any other group's."""
    extra = groups // 10
    return (
        f"SELECT id AS k, concat('group-', id % {groups}, '-', sha1(CAST(id % {groups} AS STRING))) AS g, "
        f"id AS v FROM range({groups + extra})"
    )


def write_rows(spark, table, groups, regions):
    """The table, and its rows with INSERT; how many."""
    total = groups + groups // 10
    splits = ", ".join(f"({total * i // regions})" for i in range(1, regions))
    spark.sql(
        f"CREATE TABLE {table} (k BIGINT, g STRING, v BIGINT, PRIMARY KEY (k)) "
        f"MAPPED BY ({table}, COLS=[g=f.g, v=f.v]) LAYOUT CELLS" + (f" SPLIT ON ({splits})" if splits else "")
    )
    began = time.perf_counter()
    spark.sql(f"INSERT INTO {table} {rows_sql(groups)}")
    log(f"wrote {total} rows in {time.perf_counter() - began:.0f} s")
    return total


def run_mode(spark, hbase, query, mode, settings, repeat):
    """The query's runs in this mode, with the region server's peak heap; its answer checked against Spark's."""
    with region_server_peak(hbase) as peak:
        times, _, metrics = timed_runs(spark, query, settings, repeat, action=in_jvm)
    differ, missing = with_settings(
        spark,
        settings,
        lambda: (
            spark.sql(f"SELECT count(*) FROM (({query}) EXCEPT ALL (SELECT * FROM truth))").first()[0],
            spark.sql(f"SELECT count(*) FROM ((SELECT * FROM truth) EXCEPT ALL ({query}))").first()[0],
        ),
    )
    if differ or missing:
        raise RuntimeError(f"{mode}: {differ} groups differ from Spark's, {missing} of Spark's missing")
    found = {
        "seconds": statistics.median(times),
        "runs": times,
        "peakHeapMb": None if peak.peak_mb is None else round(peak.peak_mb, 1),
        **metrics,
    }
    log(
        f"{mode}: {found['seconds']:.1f} s, rowsRead {metrics['rowsRead']}, "
        f"memoryFlushes {metrics['memoryFlushes']}, peak heap {found['peakHeapMb']} MB; answer exact"
    )
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--groups", type=int, default=2_000_000)
    parser.add_argument("--regions", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    spark, hbase = start_session(
        "groups", {"spark.sql.shuffle.partitions": "8", "spark.ui.showConsoleProgress": "false"}, fresh_hbase=True
    )
    table = "groups_strings"
    total = write_rows(spark, table, args.groups, args.regions)
    truth = f"SELECT g, count(*) AS n, sum(v) AS s FROM ({rows_sql(args.groups)}) GROUP BY g"
    spark.sql(truth).cache().createOrReplaceTempView("truth")
    query = QUERY.format(table=table)
    modes = {mode: run_mode(spark, hbase, query, mode, settings, args.repeat) for mode, settings in MODES}
    report = {
        "command": f"./benchmarks/run groups --groups {args.groups} --regions {args.regions} --repeat {args.repeat}",
        "date": today(),
        "machine": machine(),
        "groups": args.groups,
        "rows": total,
        "regions": args.regions,
        "repeat": args.repeat,
        "query": query,
        "modes": modes,
    }
    if hbase:
        report["hbase"] = {"heap": hbase.heap, "blockCache": hbase.block_cache, "memstore": hbase.memstore}
        report["regionServerAlive"] = hbase.is_running()
        report["liveHeapAfterGcMb"] = heap_after_gc_mb(hbase.pid)
    write_results("groups", report, markdown, chart)
    spark.stop()
    if hbase:
        hbase.stop()


def markdown(report):
    h = report.get("hbase")
    lines = [
        f"`{report['command']}`, {report['date']}, {report['machine']}: {report['rows']:,} rows in "
        f"{report['groups']:,} distinct string groups over {report['regions']} regions, median of "
        f"{report['repeat']} runs; every answer exactly Spark's.",
        "",
    ]
    if h:
        lines += [
            f"One embedded region server, heap {h['heap']}, block cache {h['blockCache']}, memstores {h['memstore']}; "
            f"alive at the end: **{report['regionServerAlive']}**; live heap after a full GC at the end: "
            f"{report['liveHeapAfterGcMb']} MB.",
            "",
        ]
    lines += [
        "| mode | median s | runs (s) | rowsRead | memoryFlushes | region server peak heap MB |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for mode, r in report["modes"].items():
        runs = ", ".join(f"{t:.1f}" for t in r["runs"])
        peak = "" if r["peakHeapMb"] is None else f"{r['peakHeapMb']:.0f}"
        lines.append(f"| {mode} | {r['seconds']:.1f} | {runs} | {r['rowsRead']} | {r['memoryFlushes']} | {peak} |")
    return "\n".join(lines) + "\n"


def chart(report, path):
    modes = report["modes"]
    bar_chart(
        path,
        f"GROUP BY over {report['groups']:,} string groups ({report['rows']:,} rows, {report['regions']} regions)",
        list(modes),
        [("median seconds", [m["seconds"] for m in modes.values()], [m["runs"] for m in modes.values()])],
    )


CHARTS = {"groups": chart}

if __name__ == "__main__":
    main()
