"""What one short statement costs before its rows are read: Spark's phases, and the RPCs it makes to HBase for
the table's definition, its range indexes and its regions.

Run through `./benchmarks/run statement [--repeat 40] [--label now]`. On an HBase of its own, started empty, one
Spark application (local[2]) creates a 4-region table of 20,000 rows with a built range index, then runs each
statement below once untimed and --repeat times timed, each planned anew (spark.sql() included in the time):
- a point lookup on the key;
- an IN list of 10 keys;
- a count over a key range;
- a count filtered by the range-indexed column.

Per statement it reports the median milliseconds of each of Spark's phases (parsing, analysis, optimization,
planning; execution is the rest, returning the rows to Python included) and, per run, the rows the region server
read in the catalog table, the range index table and hbase:meta (its per-region readRequestCount over JMX,
TableReads.java; a Get reads one row). Every answer is checked.

The results of each --label are kept beside the earlier labels' in results/statement.json, so that one file
shows a change's before and after; a label run again replaces its own.
"""

import argparse
import json
import os
import statistics
import subprocess
import time

from cost_profile import median_phases, spark_phases_ms
from tpch_planner import RESULTS, ROOT, jdk_tool, log, start_session, write_results

TABLE = "stmt_t"
ROWS = 20_000
STATEMENTS = (
    ("point lookup", f"SELECT * FROM {TABLE} WHERE k = 4242", [(4242, "v4242", 4242 % 97)]),
    ("IN list of 10 keys", f"SELECT count(*) FROM {TABLE} WHERE k IN ({', '.join(str(k * 7) for k in range(10))})", 10),
    ("key range count", f"SELECT count(*) FROM {TABLE} WHERE k BETWEEN 1000 AND 1999", 1000),
    ("range-indexed column", f"SELECT count(*) FROM {TABLE} WHERE m = 5", sum(1 for k in range(ROWS) if k % 97 == 5)),
)
WATCHED = {"catalog": "spark_hbase_sql:catalog", "range index": "spark_hbase_sql:range_index", "meta": "hbase:meta"}


# HBase refreshes the region counters JMX shows every few seconds (hbase.regionserver.metrics.period, 5 s, and
# the JMX cache's own 10 s): counters are read only after they have caught up.
METRICS_CATCH_UP_SECONDS = 12


def table_reads(pid):
    time.sleep(METRICS_CATCH_UP_SECONDS)
    out = subprocess.run(
        [jdk_tool("java"), str(ROOT / "benchmarks" / "TableReads.java"), str(pid)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    return json.loads(out.splitlines()[-1])


def answer(rows):
    return [tuple(r) for r in rows] if len(rows) != 1 or len(rows[0]) != 1 else rows[0][0]


def measure(spark, pid, sql, expected, repeat):
    got = answer(spark.sql(sql).collect())  # untimed: the first run warms the code paths and the caches
    assert got == expected, (sql, got, expected)
    before = table_reads(pid)
    seconds, phases = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        df = spark.sql(sql)
        got = answer(df.collect())
        seconds.append(time.perf_counter() - start)
        phases.append(spark_phases_ms(df))
        assert got == expected, (sql, got, expected)
    after = table_reads(pid)
    rpcs = {name: (after.get(t, 0) - before.get(t, 0)) / repeat for name, t in WATCHED.items()}
    return {
        "medianMs": statistics.median(seconds) * 1000,
        "runsMs": [round(s * 1000, 1) for s in seconds],
        "phasesMs": median_phases(phases, seconds),
        "rowsReadPerRun": rpcs,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--label", default="now", help="the name of this run's column, e.g. before or after")
    parser.add_argument("--commit", help="the commit the plugin jar was built from, when it is not the checkout's")
    args = parser.parse_args()
    spark, hbase = start_session("statement", {}, fresh_hbase=True)
    spark.sql(
        f"CREATE TABLE {TABLE} (k INT, v STRING, m INT, PRIMARY KEY (k)) "
        f"MAPPED BY ({TABLE}, COLS=[v=f.v, m=f.m]) SPLIT ON ((5000), (10000), (15000))"
    )
    spark.sql(f"INSERT INTO {TABLE} SELECT CAST(id AS INT), concat('v', id), CAST(id % 97 AS INT) FROM range({ROWS})")
    spark.sql(f"CREATE INDEX {TABLE}_m ON TABLE {TABLE} (m) OPTIONS (chunkRows = 1000)")
    results = {}
    for name, sql, expected in STATEMENTS:
        results[name] = {"sql": sql, **measure(spark, hbase.pid, sql, expected, args.repeat)}
        log(f"{name}: {results[name]['medianMs']:.1f} ms, {results[name]['rowsReadPerRun']}")
    spark.stop()
    hbase.stop()

    path = RESULTS / "statement.json"
    report = json.loads(path.read_text()) if path.exists() else {"runs": {}}
    report["runs"][args.label] = {
        "command": f"./benchmarks/run statement --repeat {args.repeat} --label {args.label}"
        + (f" --commit {args.commit}" if args.commit else ""),
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores",
        "commit": args.commit
        or subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
        ).stdout.strip(),
        "statements": results,
    }
    write_results("statement", report, markdown, chart)


def markdown(report):
    lines = []
    for label, run in report["runs"].items():
        lines += [
            f"**{label}**: `{run['command']}` at {run['commit']}, {run['date']}, {run['machine']}",
            "",
            "| statement | median ms | parsing | analysis | optimization | planning | execution | "
            "catalog rows read | range index rows read | meta rows read |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for name, s in run["statements"].items():
            p, r = s["phasesMs"], s["rowsReadPerRun"]
            lines.append(
                f"| {name} | {s['medianMs']:.1f} | {p['parsing']:.1f} | {p['analysis']:.1f} | {p['optimization']:.1f} | "
                f"{p['planning']:.1f} | {p['execution']:.1f} | {r['catalog']:g} | {r['range index']:g} | {r['meta']:g} |"
            )
        lines += ["", "Every run (ms):", ""]
        lines += [f"- {name}: {', '.join(map(str, s['runsMs']))}" for name, s in run["statements"].items()]
        lines.append("")
    return "\n".join(lines)


def chart(report, path):
    from matplotlib.figure import Figure

    phases = ("parsing", "analysis", "optimization", "planning", "execution")
    labels = list(report["runs"])
    names = list(next(iter(report["runs"].values()))["statements"])
    figure = Figure(figsize=(10, 5), layout="constrained")
    axes = figure.subplots()
    width = 0.8 / len(labels)
    for j, label in enumerate(labels):
        statements = report["runs"][label]["statements"]
        bottoms = [0.0] * len(names)
        for k, phase in enumerate(phases):
            heights = [statements[n]["phasesMs"][phase] if n in statements else 0 for n in names]
            axes.bar(
                [i + j * width for i in range(len(names))],
                heights,
                width,
                bottom=bottoms,
                color=f"C{k}",
                label=phase if j == 0 else None,
                edgecolor="black",
                linewidth=0.4,
            )
            bottoms = [b + h for b, h in zip(bottoms, heights)]
        for i, total in enumerate(bottoms):
            axes.text(i + j * width, total, label, ha="center", va="bottom", fontsize=7)
    axes.set_xticks([i + width * (len(labels) - 1) / 2 for i in range(len(names))], names)
    axes.set_ylabel("median ms, by Spark's phase")
    axes.set_title("One statement's cost, by phase, per labelled run")
    axes.legend()
    figure.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
