# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The embedded region server's heap under ordinary work, step after step, on one HBase with its
default memory settings (`spark-hbase local start`: 1 GB heap, block cache and memstores 0.25 each).

Run through `./benchmarks/run heap [--tables 1000] [--kept 100] [--scale 0.1]`. On an HBase of its own,
started empty, one Spark application (local[2]):
1. creates, writes 30 rows into, reads and drops with DROP TABLE ... PURGE --tables 3-region tables;
2. does the same for --kept tables with a plain DROP TABLE, which keeps the HBase table and its regions;
3. loads TPC-H lineitem at --scale with LOAD DATA into a 6-region table, twice (the second load of the same
   file must change nothing), and runs an aggregate over all of it three times (count(*), sum, count
   DISTINCT, max, sum of lengths: the query an issue saw the region server die under).
The region server's live heap is read after a full GC (JvmCounts.java, over JMX) before and after each
step and every 100 tables; its peak heap during the load and the queries is sampled with jstat.

Writes benchmarks/results/heap.json, .md and .png.
"""

import argparse
import time

from harness.charts import line_chart
from harness.common import log, machine, today, tpch_scale
from harness.data import LINEITEM_COLUMNS, create_table, generate_csv, in_file_order, tables_made_and_dropped
from harness.results import write_results
from harness.server_sampling import PeakHeap, heap_after_gc_mb
from harness.sessions import start_session

AGGREGATE = (
    "SELECT count(*), sum(l_extendedprice), count(DISTINCT l_orderkey), max(l_shipdate), "
    "sum(length(l_comment)) FROM {table}"
)


def tables_step(spark, pid, count, purge, samples, label):
    """`count` rounds of create, write, read and drop; the heap after GC every 100 tables into `samples`."""

    def sample(tables):
        samples.append({"step": label, "tables": tables, "heapAfterGcMb": heap_after_gc_mb(pid)})
        log(f"{label}: {tables} tables, live heap {samples[-1]['heapAfterGcMb']} MB")

    return tables_made_and_dropped(spark, count, purge, label, sample=sample)


def sampled_step(report, pid, step, call):
    """call() under jstat, then the live heap after a full GC: its seconds and peak heap into the report."""
    with PeakHeap(pid) as peak:
        began = time.perf_counter()
        result = call()
        report["seconds"][step] = time.perf_counter() - began
    report["peakHeapMb"][step] = round(peak.peak_mb, 1)
    report["samples"].append({"step": step, "tables": None, "heapAfterGcMb": heap_after_gc_mb(pid)})
    log(f"{step}: peak {report['peakHeapMb'][step]} MB, after GC {report['samples'][-1]['heapAfterGcMb']} MB")
    return result


def lineitem_steps(spark, pid, scale, report):
    """Two LOAD DATA of lineitem into a 6-region table, then the aggregate three times: the rows it loaded."""
    csv = generate_csv(scale) / "lineitem.csv"
    table = f"heap_lineitem_sf{str(scale).replace('.', '_')}"
    columns = in_file_order(csv, LINEITEM_COLUMNS)  # LOAD DATA maps fields by position
    max_key = int(6_000_000 * scale)
    create_table(spark, table, columns, ["l_orderkey", "l_linenumber"], [max_key * i // 6 for i in range(1, 6)])
    for n in (1, 2):
        sampled_step(
            report,
            pid,
            f"LOAD DATA {n}",
            lambda: spark.sql(f"LOAD DATA LOCAL INPATH '{csv}' INTO TABLE {table} OPTIONS (header 'true')").collect(),
        )
    answers = [
        sampled_step(report, pid, f"aggregate {n}", lambda: tuple(spark.sql(AGGREGATE.format(table=table)).first()))
        for n in (1, 2, 3)
    ]
    rows = sum(1 for _ in csv.open()) - 1  # the header
    assert len(set(answers)) == 1 and answers[0][0] == rows, (answers, rows)
    return rows


def per_table_mb(samples, tables, kept_tables):
    """The live heap each table created and dropped left behind, with PURGE and without."""
    purged = [s for s in samples if s["step"] == "purged"]
    kept = [s for s in samples if s["step"] == "kept"]
    base = samples[0]["heapAfterGcMb"]
    return {
        "purged": round((purged[-1]["heapAfterGcMb"] - base) / tables, 3) if purged else None,
        "kept": round(
            (kept[-1]["heapAfterGcMb"] - (purged[-1] if purged else samples[0])["heapAfterGcMb"]) / kept_tables, 3
        )
        if kept
        else None,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=1000, help="tables created and dropped with PURGE")
    parser.add_argument("--kept", type=int, default=100, help="tables created and dropped without PURGE")
    parser.add_argument("--scale", type=float, default=0.1, help="TPC-H scale of the lineitem loads")
    args = parser.parse_args()
    scale = tpch_scale(args.scale)
    spark, hbase = start_session("heap", {}, fresh_hbase=True)
    pid = hbase.pid
    report = {
        "command": f"./benchmarks/run heap --tables {args.tables} --kept {args.kept} --scale {scale}",
        "date": today(),
        "machine": machine(),
        "hbase": {"heap": hbase.heap, "blockCache": hbase.block_cache, "memstore": hbase.memstore},
        "samples": [{"step": "start", "tables": 0, "heapAfterGcMb": heap_after_gc_mb(pid)}],
        "seconds": {},
        "peakHeapMb": {},
    }
    samples = report["samples"]
    report["seconds"]["purged tables"] = tables_step(spark, pid, args.tables, True, samples, "purged")
    report["seconds"]["kept tables"] = tables_step(spark, pid, args.kept, False, samples, "kept")
    report["lineitemRows"] = lineitem_steps(spark, pid, scale, report)
    report["regionServerAlive"] = hbase.is_running()
    report["perTableMb"] = per_table_mb(samples, args.tables, args.kept)
    write_results("heap", report, markdown, chart)
    spark.stop()
    hbase.stop()


def markdown(report):
    h = report["hbase"]
    lines = [
        f"`{report['command']}`, {report['date']}, {report['machine']}; one region server, heap {h['heap']}, "
        f"block cache {h['blockCache']}, memstores {h['memstore']}; region server alive at the end: "
        f"**{report['regionServerAlive']}**",
        "",
        f"- live heap per table created and dropped: {report['perTableMb']['purged']} MB with DROP TABLE ... PURGE, "
        f"{report['perTableMb']['kept']} MB with DROP TABLE (its regions stay open)",
        "",
        "| after | tables | live heap after full GC (MB) | peak heap during (MB) | seconds |",
        "|---|---:|---:|---:|---:|",
    ]
    for s in report["samples"]:
        peak = report.get("peakHeapMb", {}).get(s["step"], "")
        secs = report["seconds"].get(s["step"], "")
        lines.append(
            f"| {s['step']} | {s['tables'] if s['tables'] is not None else ''} | {s['heapAfterGcMb']} | {peak} | "
            f"{f'{secs:.1f}' if secs != '' else ''} |"
        )
    return "\n".join(lines) + "\n"


def chart(report, path):
    samples = report["samples"]
    peaks = report.get("peakHeapMb", {})
    line_chart(
        path,
        f"Embedded region server heap ({report['hbase']['heap']}), step after step",
        [f"{s['step']} {s['tables'] or ''}".strip() for s in samples],
        [("live heap after full GC", [s["heapAfterGcMb"] for s in samples], "o")],
        [
            (
                "peak heap during the step",
                [i for i, s in enumerate(samples) if s["step"] in peaks],
                [peaks[s["step"]] for s in samples if s["step"] in peaks],
            )
        ],
    )


CHARTS = {"heap": chart}

if __name__ == "__main__":
    main()
