# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Range index benchmark: value-column filters on a time series, with the range index used and unused.

Run through benchmarks/run (./benchmarks/run index [--rows 5000000] [--repeat 3]), which installs what
this needs. It bulk-loads a table of sensor readings (key (sensor, seq), one sensor per region;
event_time grows with seq, code is random), builds a range index on (event_time, code), and times in
one session each query with the index used and with spark.sql.hbase.index.enabled=false, run for run
in turn after the same untimed warm-up runs, checking that both return the same rows. It then times INSERT and LOAD
DATA into a table with an index against the same table without one, and writes
benchmarks/results/index.json, .md and .png. `./benchmarks/run chart index` draws the .png again from
the .json without running anything.
"""

import argparse
import csv
import json
import os
import platform
import statistics
import time

from harness.charts import bar_chart
from harness.common import WORK, log
from harness.results import target_lines, write_results
from harness.sessions import start_session
from harness.timing import timed_runs

INDEX_OFF = {"spark.sql.hbase.index.enabled": "false"}
MODES = [("index used", {}), ("index unused", INDEX_OFF)]
SENSORS = 16
CHUNK_ROWS = 512
START = 1_700_000_000  # event_time of seq 0, in seconds
SPEEDUP_TARGET = 20.0  # the 0.1 % range, index used against unused
SLOWDOWN_LIMIT = 1.05  # where the index cannot help
WRITE_SLOWDOWN_LIMIT = 1.15  # INSERT and LOAD DATA into an indexed table
WARM_UPS = 5  # untimed runs of each query in each mode before the timed ones


def create_readings(spark, name):
    splits = ", ".join(f"({s})" for s in range(1, SENSORS))
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"""CREATE TABLE {name} (sensor INT, seq INT, event_time TIMESTAMP, code INT, value DOUBLE,
                  PRIMARY KEY (sensor, seq)) MAPPED BY ({name}, COLS=[event_time=f.t, code=f.c, value=f.v])
                  LAYOUT CELLS SPLIT ON ({splits})""")


def readings(spark, rows, first_seq=0):
    """`rows` readings spread evenly over the sensors, from seq `first_seq` on: event_time follows seq
    (one reading a second per sensor), code is random."""
    per_sensor = rows // SENSORS
    return spark.sql(f"""
        SELECT CAST(id % {SENSORS} AS INT) AS sensor, CAST({first_seq} + id DIV {SENSORS} AS INT) AS seq,
               CAST(timestamp_seconds({START} + {first_seq} + id DIV {SENSORS}) AS TIMESTAMP) AS event_time,
               CAST(hash(id, 7) % 10000000 AS INT) AS code, rand(3) * 100 AS value
        FROM range({per_sensor * SENSORS})""")


def load(spark, rows):
    name = "readings"
    create_readings(spark, name)
    started = time.perf_counter()
    readings(spark, rows).write.format("hbase").option("table", name).option("bulkload", "true").mode("append").save()
    log(f"bulk-loaded {rows} readings in {time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    spark.sql(f"CREATE INDEX readings_time ON {name} (event_time, code) OPTIONS (chunkRows = {CHUNK_ROWS})")
    build = time.perf_counter() - started
    log(f"built the range index in {build:.1f} s")
    return name, build


def queries(table, rows):
    per_sensor = rows // SENSORS

    def time_range(fraction):
        first = START + per_sensor // 2
        return (
            f"event_time >= timestamp_seconds({first}) AND "
            f"event_time < timestamp_seconds({first + int(per_sensor * fraction)})"
        )

    return [
        ("0.1 % range on event_time", f"SELECT * FROM {table} WHERE {time_range(0.001)}"),
        ("1 % range on event_time", f"SELECT * FROM {table} WHERE {time_range(0.01)}"),
        ("equality on the random code", f"SELECT * FROM {table} WHERE code = 4242"),
    ]


def run_queries(spark, table, rows, repeat):
    """Each query in both modes, run for run in turn (used, unused, used, ...), so that the machine's drift
    falls on both alike."""
    jvm = lambda df: df._jdf.collectAsList().size()  # noqa: E731 - the rows kept in the JVM
    results = []
    for label, query in queries(table, rows):
        entry = {"query": label, "sql": query, "modes": {}}
        answers, runs = {}, {mode: {"python": [], "jvm": []} for mode, _ in MODES}
        # Steady state: the JIT compiles the planner's and reader's paths over the first few runs.
        for _ in range(WARM_UPS):
            for _, settings in MODES:
                timed_runs(spark, query, settings, 1, warm_up=False)
        for _ in range(repeat):
            for mode, settings in MODES:
                times, result, metrics = timed_runs(spark, query, settings, 1, warm_up=False)
                runs[mode]["python"] += times
                answers[mode] = sorted(map(tuple, result))
                entry["modes"].setdefault(mode, {}).update(metrics)
                # The same read with the rows kept in the JVM: the scan without Python's row conversion.
                runs[mode]["jvm"] += timed_runs(spark, query, settings, 1, warm_up=False, action=jvm)[0]
        for mode, _ in MODES:
            python, in_jvm = runs[mode]["python"], runs[mode]["jvm"]
            entry["modes"][mode].update(
                {
                    "seconds": statistics.median(python),
                    "runs": python,
                    "jvmSeconds": statistics.median(in_jvm),
                    "jvmRuns": in_jvm,
                }
            )
            log(
                f"{label}, {mode}: {statistics.median(python):.2f} s ({', '.join(f'{t:.2f}' for t in python)}); "
                f"rows kept in the JVM {statistics.median(in_jvm):.2f} s; {entry['modes'][mode]}"
            )
        if answers["index used"] != answers["index unused"]:
            raise SystemExit(f"{label}: the index changed the answer")
        entry["rows"] = len(answers["index used"])
        entry["explain"] = explain_line(spark, query)
        results.append(entry)
    return results


def explain_line(spark, query):
    plan = spark.sql(query)._jdf.queryExecution().executedPlan().toString()
    return next((line.strip() for line in plan.splitlines() if "HBaseTableScan" in line), "")


def join(spark, repeat):
    """A small HBase table joined with a larger DataFrame: Spark broadcasts the HBase side."""
    spark.sql("DROP TABLE IF EXISTS sensor_sites")
    spark.sql(
        "CREATE TABLE sensor_sites (sensor INT, site STRING, PRIMARY KEY (sensor)) "
        "MAPPED BY (sensor_sites, COLS=[site=f.s]) LAYOUT CELLS"
    )
    spark.sql(f"INSERT INTO sensor_sites SELECT CAST(id AS INT), CONCAT('site-', id % 4) FROM range({SENSORS})")
    spark.range(2_000_000).selectExpr(
        f"CAST(id % {SENSORS} AS INT) AS sensor", "id AS reading"
    ).createOrReplaceTempView("recent_readings")
    query = (
        "SELECT s.site, count(*) AS n FROM recent_readings r JOIN sensor_sites s ON r.sensor = s.sensor GROUP BY s.site"
    )
    times, result, _ = timed_runs(spark, query, {}, repeat)
    plan = spark.sql(query)._jdf.queryExecution().executedPlan().toString()
    broadcast = "BroadcastHashJoin" in plan or "BroadcastExchange" in plan
    log(f"join: {statistics.median(times):.2f} s, broadcast: {broadcast}")
    return {
        "query": query,
        "seconds": statistics.median(times),
        "runs": times,
        "broadcast": broadcast,
        "rows": len(result),
    }


def writes(spark, rows, repeat):
    """INSERT and LOAD DATA of the same rows into a fresh table, with a range index on it and without."""
    csv_path = WORK / "index-readings.csv"
    if not csv_path.exists():
        with open(csv_path, "w", newline="") as f:
            out = csv.writer(f)
            for r in readings(spark, rows).collect():
                out.writerow([r.sensor, r.seq, r.event_time.strftime("%Y-%m-%d %H:%M:%S"), r.code, r.value])
    results = {}
    for how in ("INSERT", "LOAD DATA"):
        runs = {False: [], True: []}

        def write(indexed, how=how):
            name = f"write_{'indexed' if indexed else 'plain'}"
            create_readings(spark, name)
            if indexed:
                spark.sql(f"CREATE INDEX {name}_time ON {name} (event_time, code) OPTIONS (chunkRows = {CHUNK_ROWS})")
            started = time.perf_counter()
            if how == "INSERT":
                readings(spark, rows).write.insertInto(name)
            else:
                spark.sql(f"LOAD DATA LOCAL INPATH '{csv_path}' INTO TABLE {name} FIELDS TERMINATED BY ','")
            return time.perf_counter() - started

        # One untimed write each, then the two modes in turn, run for run, so that drift hits both alike.
        for indexed in (False, True):
            write(indexed)
        for _ in range(repeat):
            for indexed in (False, True):
                runs[indexed].append(write(indexed))
        results[how] = {}
        for indexed in (False, True):
            mode = "with index" if indexed else "without index"
            results[how][mode] = {"seconds": statistics.median(runs[indexed]), "runs": runs[indexed]}
            log(
                f"{how} of {rows} rows {mode}: {statistics.median(runs[indexed]):.2f} s "
                f"({', '.join(f'{t:.2f}' for t in runs[indexed])})"
            )
        results[how]["slowdown"] = results[how]["with index"]["seconds"] / results[how]["without index"]["seconds"]
    return results


def targets(report):
    found = []
    by_label = {q["query"]: q for q in report["queries"]}
    for q in report["queries"]:
        if q["query"] == "equality on the random code":
            continue  # no chunk can be ruled out: the index cannot help, and its target is the slowdown below
        used = q["modes"]["index used"]
        bound = 2 * q["rows"] + CHUNK_ROWS * used["regionsScanned"]
        found.append(
            {
                "target": f"{q['query']}: rows the region servers read, with the index, at most 2 x rows matched "
                "+ one chunk per region read",
                "value": f"{used['rowsScanned']} against 2 x {q['rows']} + {CHUNK_ROWS} x "
                f"{used['regionsScanned']} = {bound}",
                "met": used["rowsScanned"] <= bound,
            }
        )
    narrow = by_label["0.1 % range on event_time"]
    for measure, key in (("rows collected into Python", "seconds"), ("rows kept in the JVM", "jvmSeconds")):
        speedup = narrow["modes"]["index unused"][key] / narrow["modes"]["index used"][key]
        found.append(
            {
                "target": f"0.1 % range at least {SPEEDUP_TARGET:.0f}x faster with the index, {measure}",
                "value": f"{speedup:.1f}x",
                "met": speedup >= SPEEDUP_TARGET,
            }
        )
    blind = by_label["equality on the random code"]
    for measure, key in (("rows collected into Python", "seconds"), ("rows kept in the JVM", "jvmSeconds")):
        ratio = blind["modes"]["index used"][key] / blind["modes"]["index unused"][key]
        found.append(
            {
                "target": f"where the index cannot help (equality on a random column), at most 5 % slower, {measure}",
                "value": f"{ratio:.2f}x the time",
                "met": ratio <= SLOWDOWN_LIMIT,
            }
        )
    for how, w in report["writes"].items():
        found.append(
            {
                "target": f"{how} into a table with a range index at most 15 % slower",
                "value": f"{w['slowdown']:.2f}x the time",
                "met": w["slowdown"] <= WRITE_SLOWDOWN_LIMIT,
            }
        )
    found.append(
        {
            "target": "the join broadcasts the small HBase table",
            "value": str(report["join"]["broadcast"]),
            "met": report["join"]["broadcast"],
        }
    )
    return found


def seconds_list(times):
    return ", ".join(f"{t:.2f}" for t in times)


def markdown(report):
    lines = [
        f"{report['tableRows']:,} readings, {SENSORS} regions (one sensor each), chunks of {CHUNK_ROWS} rows "
        f"(index built in {report['buildSeconds']:.1f} s), median of {report['repeat']} runs after "
        f"{WARM_UPS} untimed ones, rows collected into Python, "
        f"{report['machine']}, {report['date']}.",
        "",
        "| query | rows | mode | median s | runs (s) | time / index used | rows kept in the JVM: median s | runs (s) "
        "| time / index used | chunksSkipped | rowsScanned | rowsRead |",
        "|---|---:|---|---:|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    for q in report["queries"]:
        used = q["modes"]["index used"]["seconds"]
        for i, (mode, _) in enumerate(MODES):
            r = q["modes"][mode]
            first = [q["query"], str(q["rows"])] if i == 0 else ["", ""]
            jvm_used = q["modes"]["index used"]["jvmSeconds"]
            lines.append(
                "| "
                + " | ".join(
                    first
                    + [
                        mode,
                        f"{r['seconds']:.2f}",
                        seconds_list(r["runs"]),
                        f"{r['seconds'] / used:.1f}x",
                        f"{r['jvmSeconds']:.2f}",
                        seconds_list(r["jvmRuns"]),
                        f"{r['jvmSeconds'] / jvm_used:.1f}x",
                        str(r["chunksSkipped"]),
                        str(r["rowsScanned"]),
                        str(r["rowsRead"]),
                    ]
                )
                + " |"
            )
    lines += ["", "EXPLAIN with the index:", ""]
    lines += [f"- {q['query']}: `{q['explain']}`" for q in report["queries"]]
    j = report["join"]
    lines += [
        "",
        f"Join of the {SENSORS}-row HBase table with a 2,000,000-row DataFrame: {j['seconds']:.2f} s "
        f"({seconds_list(j['runs'])}), broadcast: {j['broadcast']}.",
        "",
        f"Writes of {report['writeRows']:,} rows into a fresh table, one untimed write per mode, then the modes in turn:",
        "",
        "| write | without index, median s | runs (s) | with index, median s | runs (s) | with / without |",
        "|---|---:|---|---:|---|---:|",
    ]
    for how, w in report["writes"].items():
        lines.append(
            f"| {how} | {w['without index']['seconds']:.2f} | {seconds_list(w['without index']['runs'])} | "
            f"{w['with index']['seconds']:.2f} | {seconds_list(w['with index']['runs'])} | {w['slowdown']:.2f} |"
        )
    lines += ["", "Targets:", ""]
    lines += target_lines(report["targets"])
    return "\n".join(lines) + "\n"


def chart(report, path):
    """Median seconds of each query with the index used and unused, with every run, rows collected into Python."""
    bar_chart(
        path,
        f"Range index: {report['tableRows']:,} readings, {SENSORS} regions, rows collected into Python",
        [f"{q['query']}\n({q['rows']:,} rows)" for q in report["queries"]],
        [
            (
                mode,
                [q["modes"][mode]["seconds"] for q in report["queries"]],
                [q["modes"][mode]["runs"] for q in report["queries"]],
            )
            for mode, _ in MODES
        ],
        size=(9, 5),
    )


def rewrite(report_path):
    """The Markdown, targets and chart again from a run's JSON (after a change to how they are shown)."""
    report = json.loads(report_path.read_text())
    report["targets"] = targets(report)
    report_path.write_text(json.dumps(report, indent=2) + "\n")
    report_path.with_suffix(".md").write_text(markdown(report))
    chart(report, report_path.with_suffix(".png"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000, help="readings in the table")
    parser.add_argument("--write-rows", type=int, default=500_000, help="rows each timed INSERT and LOAD DATA writes")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per query and mode (median)")
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    spark, hbase = start_session("index", {}, fresh_hbase=True)
    try:
        table, build = load(spark, args.rows)
        report = {
            "tableRows": args.rows,
            "buildSeconds": build,
            "repeat": args.repeat,
            "machine": f"{os.cpu_count()} cores, {platform.system()}",
            "date": time.strftime("%Y-%m-%d"),
            "command": f"./benchmarks/run index --rows {args.rows} --write-rows {args.write_rows} "
            f"--repeat {args.repeat}",
        }
        report["queries"] = run_queries(spark, table, args.rows, args.repeat)
        report["join"] = join(spark, args.repeat)
        report["writeRows"] = args.write_rows
        report["writes"] = writes(spark, args.write_rows, args.repeat)
        report["targets"] = targets(report)
    finally:
        spark.stop()
        if hbase:
            hbase.stop()
    write_results("index", report, markdown, chart)


CHARTS = {"index": chart}

if __name__ == "__main__":
    main()
