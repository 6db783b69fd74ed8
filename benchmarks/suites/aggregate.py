# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Aggregate benchmark: TPC-H aggregations over lineitem, with partial aggregates in the region servers and without.

Run through benchmarks/run, which installs what this needs. It uses the planner benchmark's lineitem
table (loading it first if no earlier run did) and times each query four ways in the same session:
with the server jar's coprocessor (the default), the same with tight memory for groups
(spark.sql.hbase.coprocessor.maxGroupBytes=64k: each region sends its groups whenever they reach
64 KB), with spark.sql.hbase.coprocessor=false (Spark aggregates the rows HBase returns) and with
spark.sql.hbase.pushdown=false (every row read). Two more ways read a LAYOUT PACKED twin of the table
(the same rows and splits, one cell per family per row; the packed benchmark's, made the same way):
coprocessor on and off. The rows are checked to be the same all six ways.
Beside each time it gives the embedded region server's peak heap during that query's runs (jstat,
sampled every 500 ms, no GC forced) and the batches of groups sent early for memory. It then compares full scans into Spark with a plain HBase
client scanning the same table (RawScan.java), and writes benchmarks/results/aggregate-sf<scale>.json,
.md and .png. `./benchmarks/run chart aggregate` draws the .png again from the .json without running
the queries.
"""

import math
import os
import statistics
import time

from harness.charts import bar_chart
from harness.common import log, scale_and_regions_arguments
from harness.data import session_with_twins
from harness.java import hbase_client_program
from harness.results import target_lines, write_results
from harness.server_sampling import region_server_peak
from harness.timing import PUSHDOWN_OFF, timed_runs

COPROCESSOR_OFF = {"spark.sql.hbase.coprocessor": "false"}
TIGHT_MEMORY = {"spark.sql.hbase.coprocessor.maxGroupBytes": "64k"}
CELLS, PACKED = "cells", "packed"
# Each mode: its name, its settings, and the layout of the lineitem table it reads (the same rows in both).
MODES = [
    ("coprocessor on", {}, CELLS),
    ("coprocessor on, 64 KB of groups", TIGHT_MEMORY, CELLS),
    ("coprocessor off", COPROCESSOR_OFF, CELLS),
    ("pushdown off", PUSHDOWN_OFF, CELLS),
    ("LAYOUT PACKED, coprocessor on", {}, PACKED),
    ("LAYOUT PACKED, coprocessor off", COPROCESSOR_OFF, PACKED),
]
PUSHED = "partial aggregate in region servers"  # what EXPLAIN shows for an aggregate the region servers compute
SPEEDUP_TARGET = 3.0  # coprocessor on against off, for Q1 and Q6
SPEEDUP_TARGET_QUERIES = ("TPC-H Q1", "TPC-H Q6")
PACKED_TARGET = 1.5  # the packed twin against the cells table, coprocessor on, on the full-table aggregates
PACKED_TARGET_QUERIES = ("count(*)", "TPC-H Q1", "TPC-H Q6", "GROUP BY l_suppkey")
RAW_SCAN_TARGET = 0.7  # rows/s of a full read into Spark against a plain HBase client's


def queries(lineitem, max_key):
    low, high = max_key // 2, max_key // 2 + max_key // 10  # 10 % of the order keys
    return [
        ("count(*)", f"SELECT count(*) FROM {lineitem}"),
        (
            "TPC-H Q1",
            f"""
            SELECT l_returnflag, l_linestatus,
                   sum(l_quantity) AS sum_qty,
                   sum(l_extendedprice) AS sum_base_price,
                   sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
                   sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
                   avg(l_quantity) AS avg_qty,
                   avg(l_extendedprice) AS avg_price,
                   avg(l_discount) AS avg_disc,
                   count(*) AS count_order
            FROM {lineitem}
            WHERE l_shipdate <= date '1998-12-01' - interval '90' day
            GROUP BY l_returnflag, l_linestatus
            ORDER BY l_returnflag, l_linestatus""",
        ),
        (
            "TPC-H Q6",
            f"""
            SELECT sum(l_extendedprice * l_discount) AS revenue
            FROM {lineitem}
            WHERE l_shipdate >= date '1994-01-01'
              AND l_shipdate < date '1994-01-01' + interval '1' year
              AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01
              AND l_quantity < 24""",
        ),
        (
            "GROUP BY l_orderkey, 10 % key range",
            f"SELECT l_orderkey, count(*), sum(l_quantity) FROM {lineitem} "
            f"WHERE l_orderkey BETWEEN {low} AND {high} GROUP BY l_orderkey",
        ),
        (
            "GROUP BY l_suppkey",
            f"SELECT l_suppkey, count(*), sum(l_quantity), max(l_shipdate) FROM {lineitem} GROUP BY l_suppkey",
        ),
    ]


def main():
    args, scale = scale_and_regions_arguments(__doc__)

    spark, hbase, tables, max_key, _, _ = session_with_twins("aggregate", scale, args.regions)
    lineitem = tables[CELLS]

    results = []
    for name, query in queries(lineitem, max_key):
        result, rows = run_query(spark, hbase, name, query, tables, args.repeat)
        results.append(result)
        if name == "count(*)":
            table_rows, count_query = rows[0][0], result
    full_scan = compare_full_scans(spark, hbase, tables, table_rows, count_query, args.repeat)
    spark.stop()

    report = {
        "scale": scale,
        "regions": args.regions,
        "repeat": args.repeat,
        "tableRows": table_rows,
        "queries": results,
        "fullScan": full_scan,
        "machine": f"{os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"),
    }
    report["targets"] = targets(report)
    write_results(f"aggregate-sf{scale}", report, markdown, chart)
    if hbase:
        hbase.stop()


def run_query(spark, hbase, name, query, tables, repeat):
    """One query in every mode, its results checked to be the same in all of them; returns them too. With the
    embedded HBase, each mode's peak heap of the region server during its runs (the warm-up included). `query`
    names the cells table; a mode on the packed twin reads the same query of it."""
    pushed = PUSHED in spark.sql(f"EXPLAIN {query}").first()[0]  # with the defaults: coprocessor on
    packed_query = query.replace(tables[CELLS], tables[PACKED])
    packed_pushed = PUSHED in spark.sql(f"EXPLAIN {packed_query}").first()[0]
    modes, rows = {}, {}
    for mode, settings, layout in MODES:
        statement = packed_query if layout == PACKED else query
        with region_server_peak(hbase) as peak:
            times, result, metrics = timed_runs(spark, statement, settings, repeat, warm_up=mode != "pushdown off")
        modes[mode] = {"seconds": statistics.median(times), "runs": times, "peakHeapMb": peak.peak_mb, **metrics}
        rows[mode] = sorted(map(tuple, result))
    reference = rows["pushdown off"]
    for mode, mode_rows in rows.items():
        if not same_rows(mode_rows, reference):
            raise RuntimeError(
                f"{name}: {mode} returns other rows than pushdown off:\n{mode_rows[:5]}\nagainst\n{reference[:5]}"
            )
    on, off = modes["coprocessor on"], modes["coprocessor off"]
    log(
        f"{name}: {len(reference)} rows, region servers aggregate: {'yes' if pushed else 'no'}; "
        + "; ".join(f"{m} {r['seconds']:.2f} s, rowsRead {r['rowsRead']}" for m, r in modes.items())
    )
    return {
        "query": name,
        "sql": " ".join(query.split()),
        "pushed": pushed,
        "packedPushed": packed_pushed,
        "groups": len(reference),
        "modes": modes,
        "speedupOnVsOff": off["seconds"] / on["seconds"],
        "speedupPackedVsCells": on["seconds"] / modes["LAYOUT PACKED, coprocessor on"]["seconds"],
    }, reference


def same_rows(rows, expected):
    """Equal row by row: DECIMALs exactly, doubles to a relative 1e-9 (their sums depend on the order of the terms)."""
    return len(rows) == len(expected) and all(
        len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b)) for a, b in zip(rows, expected)
    )


def same_value(x, y):
    if isinstance(x, float) and isinstance(y, float):
        return math.isclose(x, y, rel_tol=1e-9) or (math.isnan(x) and math.isnan(y))
    return x == y


def compare_full_scans(spark, hbase, tables, table_rows, count_query, repeat):
    """Rows per second of full scans into Spark (of both layouts) and of a plain HBase client scanning the cells
    table."""
    lineitem = tables[CELLS]
    caching = int(spark.conf.get("spark.sql.hbase.scanner.fetchsize"))
    task_slots = spark.sparkContext.defaultParallelism
    count_off = count_query["modes"]["coprocessor off"]
    spark_reads = {
        "count(*), coprocessor off (row keys only)": {
            **rate(count_off["runs"], table_rows),
            "rowsRead": count_off["rowsRead"],
        },
    }
    for layout, read in [(CELLS, "SELECT * into Spark, every column decoded"), (PACKED, "the same, LAYOUT PACKED")]:
        # Every column of every row decoded into Spark rows, counted in the JVM: no aggregate, no transfer to Python.
        times, counted, metrics = timed_runs(
            spark,
            f"SELECT * FROM {tables[layout]}",
            COPROCESSOR_OFF,
            repeat,
            action=lambda df: df._jdf.queryExecution().toRdd().count(),
        )
        if counted != table_rows:
            raise RuntimeError(f"SELECT * of {tables[layout]} read {counted} rows, count(*) says {table_rows}")
        spark_reads[read] = {**rate(times, table_rows), "rowsRead": metrics["rowsRead"]}
    raw_scans = {}
    for threads in sorted({1, task_slots}):
        runs = raw_scan(hbase, lineitem, caching, threads, repeat)
        if any(r["rows"] != table_rows for r in runs):
            raise RuntimeError(f"the raw HBase scan read {runs[0]['rows']} rows, count(*) says {table_rows}")
        raw_scans[threads] = {**rate([r["seconds"] for r in runs], table_rows), "cells": runs[0]["cells"]}
        log(f"raw HBase scan, {threads} thread(s): {raw_scans[threads]['seconds']:.2f} s, {runs[0]['cells']} cells")
    baseline = raw_scans[task_slots]
    for read in spark_reads.values():
        read["ofRawScan"] = read["rowsPerSecond"] / baseline["rowsPerSecond"]
    log(
        "; ".join(
            f"{name}: {r['seconds']:.2f} s, {r['ofRawScan']:.0%} of the raw scan's rows/s"
            for name, r in spark_reads.items()
        )
    )
    return {
        "caching": caching,
        "taskSlots": task_slots,
        "sparkReads": spark_reads,
        "rawScans": {str(t): r for t, r in raw_scans.items()},
    }


def rate(times, rows):
    seconds = statistics.median(times)
    return {"seconds": seconds, "runs": times, "rowsPerSecond": rows / seconds}


def raw_scan(hbase, table, caching, threads, repeat):
    """Every run of RawScan.java."""
    return hbase_client_program(hbase, "RawScan.java", table, caching, threads, repeat)


def targets(report):
    """Each target with the value measured and whether it is met."""
    found = []
    for q in report["queries"]:
        if q["query"] in SPEEDUP_TARGET_QUERIES:
            found.append(
                {
                    "target": f"{q['query']} at least {SPEEDUP_TARGET:.0f}x faster with the coprocessor on than off",
                    "value": f"{q['speedupOnVsOff']:.1f}x" + not_pushed(q),
                    "met": q["speedupOnVsOff"] >= SPEEDUP_TARGET,
                }
            )
    for q in report["queries"]:
        if "speedupPackedVsCells" in q and q["query"] in PACKED_TARGET_QUERIES:
            found.append(
                {
                    "target": f"{q['query']}, coprocessor on: LAYOUT PACKED at least {PACKED_TARGET}x faster than "
                    "one cell per column",
                    "value": f"{q['speedupPackedVsCells']:.2f}x",
                    "met": q["speedupPackedVsCells"] >= PACKED_TARGET,
                }
            )
    for q in report["queries"]:
        on = q["modes"]["coprocessor on"]
        bound = q["groups"] * on["regionsScanned"]
        found.append(
            {
                "target": f"{q['query']}: rowsRead with the coprocessor on at most groups x regions scanned",
                "value": f"{on['rowsRead']} against {q['groups']} x {on['regionsScanned']} = {bound}" + not_pushed(q),
                "met": on["rowsRead"] <= bound,
            }
        )
    full = report["fullScan"]
    for name, read in full["sparkReads"].items():
        found.append(
            {
                "target": f"{name}: at least {RAW_SCAN_TARGET:.0%} of the raw HBase scan's rows/s "
                f"({full['taskSlots']} threads)",
                "value": f"{read['ofRawScan']:.0%}",
                "met": read["ofRawScan"] >= RAW_SCAN_TARGET,
            }
        )
    return found


def not_pushed(query):
    return "" if query["pushed"] else ", not aggregated in the region servers"


def seconds_list(times):
    return ", ".join(f"{t:.2f}" for t in times)


def markdown(report):
    lines = [
        f"TPC-H scale {report['scale']} ({report['tableRows']} lineitem rows), {report['regions']} regions, "
        f"median of {report['repeat']} runs, {report['machine']}, {report['date']}.",
        "",
        "| query | aggregated in region servers | rows | mode | median s | runs (s) | rowsRead | rowsScanned "
        "| memoryFlushes | region server peak heap MB | coprocessor on faster by |",
        "|---|---|---:|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for q in report["queries"]:
        on_seconds = q["modes"]["coprocessor on"]["seconds"]
        shown = set()
        for i, (mode, _, layout) in enumerate(MODES):
            if mode not in q["modes"]:  # results of earlier runs lack later modes
                continue
            r = q["modes"][mode]
            pushed = q["pushed"] if layout == CELLS else q.get("packedPushed")
            first = [
                q["query"] if i == 0 else "",
                ("yes" if pushed else "no") + ("" if layout == CELLS else " (packed)") if layout not in shown else "",
                str(q["groups"]) if i == 0 else "",
            ]
            shown.add(layout)
            lines.append(
                "| "
                + " | ".join(
                    first
                    + [
                        mode,
                        f"{r['seconds']:.2f}",
                        seconds_list(r["runs"]),
                        str(r["rowsRead"]),
                        str(r["rowsScanned"]),
                        str(r.get("memoryFlushes", "")),
                        "" if r.get("peakHeapMb") is None else f"{r['peakHeapMb']:.0f}",
                        f"{r['seconds'] / on_seconds:.1f}x",
                    ]
                )
                + " |"
            )
    full = report["fullScan"]
    lines += [
        "",
        f"Full scans, scanner caching {full['caching']} rows, Spark with {full['taskSlots']} task slots:",
        "",
        "| read | median s | runs (s) | rows/s | rowsRead | of the raw scan's rows/s |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for threads, raw in full["rawScans"].items():
        lines.append(
            f"| raw HBase client, one scan per region, {threads} thread(s), every cell ({raw['cells']}) | "
            f"{raw['seconds']:.2f} | {seconds_list(raw['runs'])} | {raw['rowsPerSecond']:,.0f} | | |"
        )
    for name, read in full["sparkReads"].items():
        lines.append(
            f"| {name} | {read['seconds']:.2f} | {seconds_list(read['runs'])} | "
            f"{read['rowsPerSecond']:,.0f} | {read['rowsRead']} | {read['ofRawScan']:.0%} |"
        )
    lines += ["", "Targets:", ""]
    lines += target_lines(report["targets"])
    return "\n".join(lines) + "\n"


def chart(report, path):
    """Median seconds of each query in each mode, with every run, on a log scale (they span orders of magnitude)."""
    labels = [f"{q['query']}\n({'region servers' if q['pushed'] else 'Spark'} aggregate)" for q in report["queries"]]
    bar_chart(
        path,
        f"Aggregates over TPC-H lineitem, scale {report['scale']}, {report['regions']} regions",
        labels,
        [
            (
                mode,
                [q["modes"][mode]["seconds"] for q in report["queries"]],
                [q["modes"][mode]["runs"] for q in report["queries"]],
            )
            for mode, _, _ in MODES
            if mode in report["queries"][0]["modes"]  # results of earlier runs lack later modes
        ],
        log_scale=True,
    )


CHARTS = {"aggregate": chart}

if __name__ == "__main__":
    main()
