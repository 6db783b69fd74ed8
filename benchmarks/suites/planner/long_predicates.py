# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Long predicates (issue 36): planning ORs of key equalities, IN lists and ORs over a composite key of 1,000 and
10,000 terms. Part of the planner benchmark (`./benchmarks/run planner`, or with --long-predicates-only this part
alone); the planner benchmark calls these functions.

Two measures:
- our planner alone, without HBase or Spark (LongPredicatesBenchmark in src/test/scala/.../bench, run with sbt):
  the key ranges (KeyRangePlanner) and the whole scan plan over 16 synthetic regions whose servers run the server
  jar (HBaseScanPlanner, server filters written), each on the clock and on the thread's CPU;
- the whole statement through Spark on the planner benchmark's TPC-H tables: spark.sql() and
  queryExecution.executedPlan (parsing, analysis, optimization and planning, Spark's rules and ours), with Spark's
  phases; each statement's answer is checked once, untimed.

Each run's results are kept under its --label in results/long_predicates.json beside the earlier labels', so that
one file shows a change's before and after; a label run again replaces its own.
"""

import json
import os
import statistics
import time

from harness.charts import bar_chart
from harness.common import log
from harness.results import write_results
from harness.timing import SPARK_PHASES, spark_phases_ms

BENCHMARK_CLASS = "org.apache.spark.sql.hbase.bench.LongPredicatesBenchmark"
RANGES = 5  # range terms among the equalities of the mixed OR


def planner_alone_command(terms, repeat):
    """The sbt command that runs LongPredicatesBenchmark, for a run of sbt with other commands."""
    return f"Test/runMain {BENCHMARK_CLASS} {','.join(map(str, terms))} {repeat}"


def planner_alone_results(sbt_output):
    """LongPredicatesBenchmark's JSON lines, one per case and term count."""
    return [json.loads(ln[ln.index("{") :]) for ln in sbt_output.splitlines() if '"benchmark": "long-predicates"' in ln]


def spread(values, n):
    """n of the sorted values, evenly apart over all of them: every region of the table holds some."""
    step = len(values) / n
    return [values[int(i * step)] for i in range(n)]


def statements(spark, lineitem, orders, n):
    """(name, table, WHERE clause, rows expected) of each long predicate of n terms over the TPC-H tables."""
    keys = [r[0] for r in spark.sql("SELECT o_orderkey FROM src_orders ORDER BY o_orderkey").collect()]
    pairs = [tuple(r) for r in spark.sql("SELECT l_orderkey, l_linenumber FROM src_lineitem ORDER BY 1, 2").collect()]
    if n > len(keys):
        raise SystemExit(f"{n} terms need {n} orders, scale has {len(keys)}: choose a larger --scale")
    picked, picked_pairs = spread(keys, n), spread(pairs, n)
    # Ranges between picked keys, each over a few of them: the equalities inside are swallowed by the range.
    ranges = [(picked[i] + 1, picked[i + 3] - 1) for i in range(0, n - 4, n // RANGES)][:RANGES]
    mixed = [f"o_orderkey = {k}" for k in picked[: n - RANGES]] + [
        f"o_orderkey BETWEEN {lo} AND {hi}" for lo, hi in ranges
    ]
    mixed_rows = spark.sql(f"SELECT count(*) FROM src_orders WHERE {' OR '.join(mixed)}").first()[0]
    return [
        ("OR of key equalities", orders, " OR ".join(f"o_orderkey = {k}" for k in picked), n),
        ("IN list", orders, f"o_orderkey IN ({', '.join(map(str, picked))})", n),
        (f"OR of key equalities and {RANGES} ranges", orders, " OR ".join(mixed), mixed_rows),
        (
            "OR over the composite key",
            lineitem,
            " OR ".join(f"(l_orderkey = {a} AND l_linenumber = {b})" for a, b in picked_pairs),
            n,
        ),
    ]


def planning_times(spark, sql, repeat):
    """Every run's seconds of spark.sql(sql) and its executed plan, after one untimed run, with Spark's phases."""
    spark.sql(sql)._jdf.queryExecution().executedPlan()
    seconds, phases = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        df = spark.sql(sql)
        df._jdf.queryExecution().executedPlan()
        seconds.append(time.perf_counter() - start)
        phases.append(spark_phases_ms(df))
    return seconds, phases


def through_spark(spark, lineitem, orders, terms, repeat):
    """The whole statement's planning of each long predicate and term count, its answer checked once."""
    results = []
    for n in terms:
        for name, table, where, expected in statements(spark, lineitem, orders, n):
            sql = f"SELECT * FROM {table} WHERE {where}"
            rows = len(spark.sql(sql).collect())
            assert rows == expected, f"{name}, {n} terms: {rows} rows, expected {expected}"
            seconds, phases = planning_times(spark, sql, repeat)
            median = statistics.median(seconds)
            results.append(
                {
                    "statement": name,
                    "terms": n,
                    "rows": rows,
                    "medianMs": median * 1000,
                    "runsMs": [round(s * 1000, 1) for s in seconds],
                    "phasesMs": {p: statistics.median(r.get(p, 0) for r in phases) for p in SPARK_PHASES},
                }
            )
            log(
                f"long predicate, {name}, {n} terms: planned in {median * 1000:.0f} ms (median of {repeat}), {rows} rows"
            )
    return results


def write(results_dir, label, command, commit, planner_alone, spark_results, load_before):
    """results/long_predicates.json (this label's run beside the others), .md and .png."""
    path = results_dir / "long_predicates.json"
    report = json.loads(path.read_text()) if path.exists() else {"runs": {}}
    report["runs"][label] = {
        "command": command,
        "commit": commit,
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores",
        "loadAverage": {"before": round(load_before, 1), "after": round(os.getloadavg()[0], 1)},
        "plannerAlone": planner_alone,
        "throughSpark": spark_results,
    }
    write_results("long_predicates", report, markdown, chart, results_dir)


def markdown(report):
    lines = []
    for label, run in report["runs"].items():
        lines += [
            f"**{label}**: `{run['command']}` at {run['commit']}, {run['date']}, {run['machine']}, load average "
            f"{run['loadAverage']['before']} at the start and {run['loadAverage']['after']} at the end",
            "",
            "Whole statement through Spark (spark.sql and the executed plan):",
            "",
            "| statement | terms | rows | median ms | parsing | analysis | optimization | planning | every run (ms) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
        for r in run["throughSpark"]:
            p = r["phasesMs"]
            lines.append(
                f"| {r['statement']} | {r['terms']:,} | {r['rows']:,} | {r['medianMs']:.0f} | "
                + " | ".join(f"{p.get(name, 0):.0f}" for name in SPARK_PHASES)
                + f" | {', '.join(f'{x:.0f}' for x in r['runsMs'])} |"
            )
        lines += [
            "",
            "Our planner alone, 16 synthetic regions (median ms on the clock, and on the thread's CPU):",
            "",
            "| predicate | terms | key ranges | key ranges: ms (CPU) | whole scan plan: ms (CPU) | whole scan plan, every run (ms) |",
            "|---|---:|---:|---:|---:|---|",
        ]
        for r in run["plannerAlone"]:
            planner, whole = r["plannerMs"], r["wholePlanMs"]
            lines.append(
                f"| {r['case']} | {r['terms']:,} | {r['keyRanges']:,} | {planner['median']:.1f} "
                f"({planner['cpuMedian']:.1f}) | {whole['median']:.1f} ({whole['cpuMedian']:.1f}) | "
                f"{', '.join(f'{x:.0f}' for x in whole['runs'])} |"
            )
        lines.append("")
    return "\n".join(lines)


def chart(report, path):
    """The whole statement's median planning time through Spark, a group per label and term count, a bar per
    statement, on a log scale: a quadratic planner's seconds beside milliseconds."""
    groups = [
        (label, n)
        for label, run in report["runs"].items()
        for n in dict.fromkeys(r["terms"] for r in run["throughSpark"])
    ]
    names = list(dict.fromkeys(r["statement"] for run in report["runs"].values() for r in run["throughSpark"]))

    def found(label, n, name):
        return next(r for r in report["runs"][label]["throughSpark"] if r["terms"] == n and r["statement"] == name)

    bar_chart(
        path,
        "Planning a long predicate through Spark (spark.sql and the executed plan)",
        [f"{label}\n{n:,} terms" for label, n in groups],
        [
            (
                name,
                [found(label, n, name)["medianMs"] / 1000 for label, n in groups],
                [[x / 1000 for x in found(label, n, name)["runsMs"]] for label, n in groups],
            )
            for name in names
        ],
        unit="ms",
        log_scale=True,
        xlabel="run and terms",
    )
