# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Packed rows against one cell per column: the same TPC-H lineitem rows in both layouts, side by side.

Run through benchmarks/run (`./benchmarks/run packed [--scale 0.1] [--regions 16] [--repeat 5]`). It uses the
planner benchmark's lineitem table (one cell per column, loading it first if no earlier run did) and a twin in
LAYOUT PACKED with the same rows and splits, both flushed and major-compacted on one embedded HBase. Each query
runs on both tables in turn (warm-up first, then --repeat timed runs each, alternating), the answers are checked
to be the same (for the UPDATE, how many rows it changed), and for one more run of each it reads
the region server's CPU seconds (/proc). It also gives each table's bytes on disk and how long INSERT ... SELECT took to fill the packed twin. Writes
benchmarks/results/packed-sf<scale>.json, .md and .png.
"""

import statistics
import subprocess

from harness.charts import bar_chart
from harness.common import log, machine, scale_and_regions_arguments, today
from harness.data import session_with_twins
from harness.results import write_results
from harness.server_sampling import cpu_seconds
from harness.timing import timed_runs

LAYOUTS = ("cells", "packed")
UPDATE_ONE_PERCENT = "UPDATE of one column, 1 % of the rows"
UPDATE_ROW_BY_ROW = "the same UPDATE, merged an append per row"
UPDATE_IN_SPARK = "the same UPDATE, merged in Spark"
UPDATES = (UPDATE_ONE_PERCENT, UPDATE_ROW_BY_ROW, UPDATE_IN_SPARK)
# A packed table's UPDATE is merged in the region servers, a region's rows in one call, unless these are off:
# then one append per row (as before the calls by region, and still where a table has no endpoint for them), or
# each row read, merged in Spark and written conditionally (as before the merge, and where a table has none).
SETTINGS = {
    UPDATE_ROW_BY_ROW: {"spark.sql.hbase.update.regionBatches": "false"},
    UPDATE_IN_SPARK: {"spark.sql.hbase.update.mergeInRegionServers": "false"},
}


def queries():
    return [
        ("count(*)", "SELECT count(*) FROM {t}"),
        (
            "TPC-H Q1",
            """SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice),
                      sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
                      avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*)
               FROM {t} WHERE l_shipdate <= date '1998-12-01' - interval '90' day
               GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus""",
        ),
        (
            "TPC-H Q6",
            """SELECT sum(l_extendedprice * l_discount) FROM {t}
               WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1995-01-01'
                 AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24""",
        ),
        (
            "value-column filter",
            "SELECT l_orderkey, l_linenumber FROM {t} WHERE l_shipmode = 'AIR' AND l_quantity > 49",
        ),
        ("l_linenumber = 7 (skip scan)", "SELECT l_orderkey, l_quantity FROM {t} WHERE l_linenumber = 7"),
        ("one order's lines (key prefix)", "SELECT * FROM {t} WHERE l_orderkey = 1"),
        # Writes each row's value again, so that the tables other benchmarks share keep their rows; the work is an
        # update's all the same. Timed whole: commands run in spark.sql().
        (UPDATE_ONE_PERCENT, "UPDATE {t} SET l_comment = l_comment WHERE l_orderkey < {one_percent}"),
        (UPDATE_ROW_BY_ROW, "UPDATE {t} SET l_comment = l_comment WHERE l_orderkey < {one_percent}"),
        (UPDATE_IN_SPARK, "UPDATE {t} SET l_comment = l_comment WHERE l_orderkey < {one_percent}"),
    ]


def bytes_on_disk(hbase, table):
    path = hbase.data_dir / "hbase" / "data" / "default" / table
    out = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=True).stdout
    return int(out.split()[0])


def run_query(spark, tables, server_pid, name, template, max_key, repeat):
    """The query on both layouts in turn (warm-up first), its answers compared, and the region server's CPU
    seconds over one more run of each."""
    entry = {"query": name, "layouts": {}}
    answers = {}
    runs = {layout: [] for layout in LAYOUTS}

    def statement(layout):
        return template.format(t=tables[layout], one_percent=max_key // 100)

    settings = SETTINGS.get(name, {})
    for layout in LAYOUTS:  # warm-up
        timed_runs(spark, statement(layout), settings, 1, warm_up=False)
    for _ in range(repeat):
        for layout in LAYOUTS:
            times, rows, metrics = timed_runs(
                spark, statement(layout), settings, 1, warm_up=False, whole_statement=name in UPDATES
            )
            runs[layout] += times
            answers[layout] = sorted(map(str, rows))
            entry["layouts"].setdefault(layout, {})["metrics"] = metrics
    for layout in LAYOUTS:
        cpu = None
        if server_pid:
            before = cpu_seconds(server_pid)
            timed_runs(spark, statement(layout), settings, 1, warm_up=False)
            cpu = cpu_seconds(server_pid) - before
        entry["layouts"][layout].update(
            {"seconds": statistics.median(runs[layout]), "runs": runs[layout], "serverCpuSeconds": cpu}
        )
    entry["sameAnswer"] = answers["cells"] == answers["packed"]
    c, p = entry["layouts"]["cells"], entry["layouts"]["packed"]
    entry["speedup"] = c["seconds"] / p["seconds"]
    entry["serverCpuRatio"] = (p["serverCpuSeconds"] / c["serverCpuSeconds"]) if c["serverCpuSeconds"] else None
    log(
        f"{name}: cells {c['seconds']:.3f} s, packed {p['seconds']:.3f} s ({entry['speedup']:.2f}x); "
        f"region server CPU {c['serverCpuSeconds']} -> {p['serverCpuSeconds']}; same answer {entry['sameAnswer']}"
    )
    return entry


def main():
    args, scale = scale_and_regions_arguments(__doc__)
    spark, hbase, tables, max_key, load_times, packed_load = session_with_twins("packed", scale, args.regions)
    cells = tables["cells"]
    server_pid = hbase.pid if hbase else None
    results = [
        run_query(spark, tables, server_pid, name, template, max_key, args.repeat) for name, template in queries()
    ]
    report = {
        "scale": scale,
        "regions": args.regions,
        "repeat": args.repeat,
        "rows": spark.table(cells).count(),
        "bytesOnDisk": {layout: bytes_on_disk(hbase, tables[layout]) for layout in LAYOUTS} if hbase else None,
        "packedInsertSeconds": packed_load,
        "cellsInsertSeconds": load_times.get(cells),
        "queries": results,
        "machine": machine(),
        "date": today(),
        "command": f"./benchmarks/run packed --scale {scale} --regions {args.regions} --repeat {args.repeat}",
    }
    spark.stop()
    write_results(f"packed-sf{scale}", report, markdown, chart)
    if not all(q["sameAnswer"] for q in results):
        raise SystemExit("the layouts gave different answers")


def markdown(report):
    lines = [
        f"**Packed rows against one cell per column**: `{report['command']}`, {report['date']}, {report['machine']}; "
        f"TPC-H lineitem, scale {report['scale']}, {report['rows']:,} rows, {report['regions']} regions, one "
        "embedded HBase (one region server), both tables flushed and major-compacted. Medians of "
        f"{report['repeat']} runs each, the layouts alternating; region server CPU over one more run of each.",
        "",
        "| query | cells s | packed s | speedup | cells rowsRead | packed rowsRead | cells RS CPU s | packed RS CPU s "
        "| same answer |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for q in report["queries"]:
        c, p = q["layouts"]["cells"], q["layouts"]["packed"]
        lines.append(
            f"| {q['query']} | {c['seconds']:.3f} | {p['seconds']:.3f} | {q['speedup']:.2f}x "
            f"| {c['metrics'].get('rowsRead', 0):,} | {p['metrics'].get('rowsRead', 0):,} "
            f"| {c['serverCpuSeconds'] or 0:.2f} | {p['serverCpuSeconds'] or 0:.2f} | {q['sameAnswer']} |"
        )
    lines += ["", "Every run (s):", ""]
    for q in report["queries"]:
        for layout in LAYOUTS:
            runs = ", ".join(f"{r:.3f}" for r in q["layouts"][layout]["runs"])
            lines.append(f"- {q['query']}, {layout}: {runs}")
    if report["bytesOnDisk"]:
        b = report["bytesOnDisk"]
        lines += ["", f"Bytes on disk: cells {b['cells']:,}, packed {b['packed']:,} ({b['packed'] / b['cells']:.2f}x)."]
    if report["packedInsertSeconds"]:
        lines.append(f"INSERT ... SELECT of the rows into the packed table: {report['packedInsertSeconds']:.1f} s.")
    return "\n".join(lines) + "\n"


def chart(report, path):
    bar_chart(
        path,
        f"Packed rows against one cell per column, TPC-H lineitem scale {report['scale']}",
        [q["query"] for q in report["queries"]],
        [
            (
                layout,
                [q["layouts"][layout]["seconds"] for q in report["queries"]],
                [q["layouts"][layout]["runs"] for q in report["queries"]],
            )
            for layout in LAYOUTS
        ],
        log_scale=True,
    )


CHARTS = {"packed": chart}

if __name__ == "__main__":
    main()
