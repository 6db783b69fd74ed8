# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""`./benchmarks/run statement`: see the package's docstring."""

import argparse
import os
import statistics
import time
from pathlib import Path

from harness.common import ROOT, git_commit, log, machine, today
from harness.platform import use_plugin_jar
from harness.results import labelled, write_results
from harness.server_sampling import table_reads_over_jmx
from harness.sessions import start_session
from harness.timing import median_phases, spark_phases_ms

from . import __doc__ as DOC
from .lookups import IDLE_SECONDS, run_lookups
from .report import chart, markdown

TABLE = "stmt_t"

ROWS = 20_000

STATEMENTS = (
    ("point lookup", f"SELECT * FROM {TABLE} WHERE k = 4242", [(4242, "v4242", 4242 % 97)]),
    ("IN list of 10 keys", f"SELECT count(*) FROM {TABLE} WHERE k IN ({', '.join(str(k * 7) for k in range(10))})", 10),
    ("key range count", f"SELECT count(*) FROM {TABLE} WHERE k BETWEEN 1000 AND 1999", 1000),
    ("range-indexed column", f"SELECT count(*) FROM {TABLE} WHERE m = 5", sum(1 for k in range(ROWS) if k % 97 == 5)),
)

WATCHED = {"catalog": "spark_hbase_sql:catalog", "range index": "spark_hbase_sql:range_index", "meta": "hbase:meta"}


def answer(rows):
    return [tuple(r) for r in rows] if len(rows) != 1 or len(rows[0]) != 1 else rows[0][0]


def measure(spark, pid, sql, expected, repeat):
    got = answer(spark.sql(sql).collect())  # untimed: the first run warms the code paths and the caches
    assert got == expected, (sql, got, expected)
    before = table_reads_over_jmx(pid)
    seconds, phases = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        df = spark.sql(sql)
        got = answer(df.collect())
        seconds.append(time.perf_counter() - start)
        phases.append(spark_phases_ms(df))
        assert got == expected, (sql, got, expected)
    after = table_reads_over_jmx(pid)
    rpcs = {name: (after.get(t, 0) - before.get(t, 0)) / repeat for name, t in WATCHED.items()}
    return {
        "medianMs": statistics.median(seconds) * 1000,
        "runsMs": [round(s * 1000, 1) for s in seconds],
        "phasesMs": median_phases(phases, seconds),
        "rowsReadPerRun": rpcs,
    }


def use_jar(jar):
    """Runs another build of the plugin: the Spark session and the Thrift server both take it from here."""
    path = Path(jar) if Path(jar).is_absolute() else ROOT / jar  # benchmarks/run runs in benchmarks/
    if not path.is_file():
        raise SystemExit(f"--jar {jar}: no such file {path}")
    use_plugin_jar(path)


def small_table(spark, hbase, repeat):
    """The 4-region table with a built range index, and each statement on it."""
    spark.sql(
        f"CREATE TABLE {TABLE} (k INT, v STRING, m INT, PRIMARY KEY (k)) "
        f"MAPPED BY ({TABLE}, COLS=[v=f.v, m=f.m]) LAYOUT CELLS SPLIT ON ((5000), (10000), (15000))"
    )
    spark.sql(f"INSERT INTO {TABLE} SELECT CAST(id AS INT), concat('v', id), CAST(id % 97 AS INT) FROM range({ROWS})")
    spark.sql(f"CREATE INDEX {TABLE}_m ON TABLE {TABLE} (m) OPTIONS (chunkRows = 1000)")
    results = {}
    for name, sql, expected in STATEMENTS:
        results[name] = {"sql": sql, **measure(spark, hbase.pid, sql, expected, repeat)}
        log(f"{name}: {results[name]['medianMs']:.1f} ms, {results[name]['rowsReadPerRun']}")
    return results


def main():
    parser = argparse.ArgumentParser(
        prog="./benchmarks/run statement", description=DOC, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--label", default="now", help="the name of this run's column, e.g. before or after")
    parser.add_argument("--commit", help="the commit the plugin jar was built from, when it is not the checkout's")
    parser.add_argument("--jar", help="the plugin jar to run (relative to the checkout), if not the checkout's build")
    parser.add_argument("--skip", choices=["small", "lookups"], action="append", default=[], help="leave a part out")
    parser.add_argument("--idle-runs", type=int, default=5, help=f"JDBC lookups after {IDLE_SECONDS} s idle")
    args = parser.parse_args()
    if args.jar:
        use_jar(args.jar)
    load_before = os.getloadavg()[0]
    spark, hbase = start_session("statement", {}, fresh_hbase=True)
    results, lookup_results = {}, {}
    if "small" not in args.skip:
        results = small_table(spark, hbase, args.repeat)
    if "lookups" not in args.skip:
        lookup_results = run_lookups(spark, hbase, args)
    spark.stop()
    hbase.stop()

    command = (
        f"./benchmarks/run statement --repeat {args.repeat} --label {args.label}"
        + (f" --commit {args.commit}" if args.commit else "")
        + (f" --jar {args.jar}" if args.jar else "")
        + "".join(f" --skip {s}" for s in args.skip)
    )
    report = labelled(
        "statement",
        args.label,
        {
            "command": command,
            "date": today(),
            "machine": machine(),
            # What else ran meanwhile: the 1-minute load average as the run began and as it ended.
            "loadAverage": [round(load_before, 1), round(os.getloadavg()[0], 1)],
            "commit": args.commit or git_commit(),
            "statements": results,
            "lookups": lookup_results,
        },
    )
    write_results("statement", report, markdown, chart)


if __name__ == "__main__":
    main()
