# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Aggregates below joins merged by key: the Phoenix benchmark's keyed join (lineitem joined with orders over 10 %
of the order keys, grouped by o_orderpriority), with its lineitem rows grouped by l_orderkey below the join
(spark.sql.hbase.join.aggregateBelow, the default) and with the aggregate above the join, on TPC-H tables as
CREATE TABLE makes them (packed).

Run through benchmarks/run. It loads its own lineitem and orders (packed, the planner benchmark's splits) unless an
earlier run did, then times the query both ways in rounds, one run of each a round, the first another each round,
with the Spark JVM's CPU seconds of each run. The same query with a condition only Spark checks shows the groups
made in the join's tasks instead of the region servers. It writes benchmarks/results/aggregate_below-sf<scale>.json,
.md and .png.
"""

import os
import statistics
import time

from harness.charts import bar_chart
from harness.common import log, scale_and_regions_arguments
from harness.data import LINEITEM_COLUMNS, LINEITEM_KEY, ORDERS_COLUMNS, generate, load_table, tpch_table_names
from harness.results import write_results
from harness.server_sampling import cpu_seconds
from harness.sessions import compact, start_session

BELOW, ABOVE = "aggregate below the join", "aggregate above the join"
MODES = [(BELOW, {}), (ABOVE, {"spark.sql.hbase.join.aggregateBelow": "false"})]


def tables(spark, scale, regions):
    """lineitem and orders as CREATE TABLE makes them (packed), loaded unless an earlier run did: their names and
    the highest order key."""
    data = generate(scale)
    spark.read.parquet(str(data / "lineitem.parquet")).createOrReplaceTempView("src_lineitem")
    spark.read.parquet(str(data / "orders.parquet")).createOrReplaceTempView("src_orders")
    max_key = spark.sql("SELECT max(o_orderkey) FROM src_orders").first()[0]
    splits = [max_key * i // regions for i in range(1, regions)]
    existing = {r.tableName for r in spark.sql("SHOW TABLES IN hbase").collect()}
    names = tuple(f"{name}_default" for name in tpch_table_names(scale))
    for name, columns, key, source in zip(
        names, (LINEITEM_COLUMNS, ORDERS_COLUMNS), (LINEITEM_KEY, ["o_orderkey"]), ("src_lineitem", "src_orders")
    ):
        if load_table(spark, name, columns, key, splits, source, existing, layout=None) is not None:
            compact(spark, name)
    return names, max_key


def spark_cpu(spark):
    """The Spark JVM's CPU seconds so far (user and system)."""
    return cpu_seconds(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())


def rounds(spark, sql, repeat):
    """Each mode's runs and Spark CPU seconds, a run of each a round after one untimed run each; the answers checked
    the same."""
    found = {mode: {"runs": [], "sparkCpuRuns": []} for mode, _ in MODES}
    answers = {}

    def run(mode, settings, timed):
        for key, value in settings.items():
            spark.conf.set(key, value)
        try:
            cpu, start = spark_cpu(spark), time.perf_counter()
            answers[mode] = sorted(map(tuple, spark.sql(sql).collect()))
            if timed:
                found[mode]["runs"].append(time.perf_counter() - start)
                found[mode]["sparkCpuRuns"].append(spark_cpu(spark) - cpu)
        finally:
            for key in settings:
                spark.conf.unset(key)

    for mode, settings in MODES:
        run(mode, settings, timed=False)
    for r in range(repeat):
        for mode, settings in MODES if r % 2 == 0 else MODES[::-1]:
            run(mode, settings, timed=True)
    assert answers[BELOW] == answers[ABOVE], f"the answers differ:\n{answers[BELOW]}\n{answers[ABOVE]}"
    for mode in found.values():
        mode["seconds"] = statistics.median(mode["runs"])
        mode["sparkCpuSeconds"] = statistics.median(mode["sparkCpuRuns"])
    plan = spark.sql(f"EXPLAIN {sql}").first()[0]
    return found, len(answers[BELOW]), plan


def main():
    args, scale = scale_and_regions_arguments(__doc__, "timed runs per query and mode, in rounds (median)")
    spark, hbase = start_session("aggregate_below", {"spark.sql.shuffle.partitions": "4"})
    (lineitem, orders), max_key = tables(spark, scale, args.regions)
    low, high = max_key // 4, max_key // 4 + max_key // 10
    keyed = (
        f"SELECT o_orderpriority, count(*) AS line_count, sum(l_extendedprice) AS revenue "
        f"FROM {lineitem} JOIN {orders} ON l_orderkey = o_orderkey "
        f"WHERE l_orderkey BETWEEN {low} AND {high} AND o_orderkey BETWEEN {low} AND {high}{{and_also}} "
        f"GROUP BY o_orderpriority ORDER BY o_orderpriority"
    )
    queries = [
        ("keyed join, 10 % of the orders", keyed.format(and_also="")),
        (
            "the same, a condition only Spark checks (groups made in the join's tasks)",
            keyed.format(and_also=" AND hash(l_extendedprice) <> 0"),
        ),
    ]
    results = []
    for name, sql in queries:
        modes, rows, plan = rounds(spark, sql, args.repeat)
        below, above = modes[BELOW], modes[ABOVE]
        results.append({"query": name, "sql": sql, "rows": rows, "modes": modes, "planBelow": plan})
        log(
            f"{name}: {rows} rows; median ms below {below['seconds'] * 1000:.0f}, above {above['seconds'] * 1000:.0f} "
            f"({above['seconds'] / below['seconds']:.2f}x); Spark CPU s {below['sparkCpuSeconds']:.2f} against "
            f"{above['sparkCpuSeconds']:.2f}"
        )
    spark.stop()
    report = {
        "scale": scale,
        "regions": args.regions,
        "repeat": args.repeat,
        "queries": results,
        "machine": f"{os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"),
        "command": f"./benchmarks/run aggregate_below --scale {scale} --regions {args.regions} --repeat {args.repeat}",
    }
    write_results(f"aggregate_below-sf{scale}", report, markdown, chart)
    if hbase:
        hbase.stop()


def markdown(report):
    def runs(values):
        return ", ".join(f"{v * 1000:.0f}" for v in values)

    lines = [
        f"TPC-H scale {report['scale']}, {report['regions']} regions, {report['machine']}, {report['date']}: "
        f"`{report['command']}`. Median ms of {report['repeat']} rounds (a run of each way a round), and the Spark "
        "JVM's CPU seconds (median).",
        "",
        f"| query | rows | {BELOW} | {ABOVE} | above / below | Spark CPU s below | Spark CPU s above |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for q in report["queries"]:
        below, above = q["modes"][BELOW], q["modes"][ABOVE]
        lines.append(
            f"| {q['query']} | {q['rows']} | {below['seconds'] * 1000:.0f} | {above['seconds'] * 1000:.0f} | "
            f"{above['seconds'] / below['seconds']:.2f}x | {below['sparkCpuSeconds']:.2f} | "
            f"{above['sparkCpuSeconds']:.2f} |"
        )
    lines += ["", "Every run, ms:", ""]
    for q in report["queries"]:
        for mode, _ in MODES:
            lines.append(f"- {q['query']}, {mode}: {runs(q['modes'][mode]['runs'])}")
    return "\n".join(lines) + "\n"


def chart(report, path):
    queries = report["queries"]
    bar_chart(
        path,
        f"A GROUP BY over a join merged by key, TPC-H scale {report['scale']}, {report['regions']} regions",
        [q["query"].replace(" (", "\n(").replace(", a condition", ",\na condition") for q in queries],
        [
            (mode, [q["modes"][mode]["seconds"] for q in queries], [q["modes"][mode]["runs"] for q in queries])
            for mode, _ in MODES
        ],
        unit="ms",
    )


CHARTS = {"aggregate_below": chart}

if __name__ == "__main__":
    main()
