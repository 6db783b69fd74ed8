# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Measuring each query on the four tables: Phoenix's through its JDBC client (PhoenixClient.java), ours through
Spark (and, for the lookups, through our Thrift server from a JVM JDBC client), the answers checked to be the same;
then one more run alone under the regions' read counters and every process's CPU counters."""

import os
import statistics

from harness.answers import comparable, same_answer, sort_key
from harness.common import WORK, log
from harness.server_sampling import CpuMeter, region_reads
from harness.sessions import with_settings
from harness.timing import median_phases, spark_phases_ms, timed_runs, timed_statements

from .constants import (
    DRIVER_READ_OFF,
    ENGINES,
    HBASE_PROCESS,
    JOIN_KINDS,
    JOIN_PLAN_MARKS,
    JOINS_OFF,
    LOOKUP,
    LOOKUP_WARM_UPS,
    OURS,
    OURS_JOB,
    OURS_JOINS_OFF,
    OURS_PACKED,
    OURS_PACKED_TASK_PER_REGION,
    OURS_TASK_PER_REGION,
    PARALLEL,
    PHOENIX,
    PHOENIX_PROCESS,
    PYTHON_PROCESS,
    SINGLE_TASK_OFF,
    SINGLE_TASK_PLAN,
    SPARK_PROCESS,
    TABLES,
)
from .jdbc import jdbc_runs
from .queries import statements
from .tables import is_phoenix, ours_name, table_name


def table_reads(spark, admin, names):
    """region_reads of each table apart: {name: rows its regions read (read + filtered requests)}."""
    return {name: sum(region_reads(spark, admin, [name])) for name in names}


def counted(before, after):
    reads, filtered = after[0] - before[0], after[1] - before[1]
    return {"regionRowsRead": reads + filtered, "regionReadRequests": reads, "regionFilteredReadRequests": filtered}


def profile_region_server(spark, phoenix, profiler, results):
    """One more run of the full-scan aggregates on each of the four tables under a flight recorder on the region
    server. Last, after every timed run: starting a recording makes the JVM compile code anew, which slowed
    Phoenix's next Q1 from about 7 s to 22 s here."""
    for q in results:
        if q["kind"] == PARALLEL:
            for engine in ENGINES:
                sql = q["statements"][engine]
                q["engines"][engine]["regionServerProfile"] = profiler.record(
                    engine.lower().replace(" ", "-"),
                    lambda engine=engine, sql=sql: run_once(spark, phoenix, engine, sql),
                )


def run_once(spark, phoenix, engine, sql):
    """One run of the statement on the engine, untimed, every row read."""
    if is_phoenix(engine):
        return phoenix.query(sql, 0, WORK / "phoenix-rows.jsonl")
    return spark.sql(sql).collect()


def measured_run(spark, phoenix, admin, meter, engine, sql):
    """One more run alone, between two readings of the regions' read counters of the engine's tables and of
    every process's CPU. Phoenix's run includes its client's EXPLAIN and the writing of its rows."""
    names = [table_name(engine, t) for t in TABLES]
    before, before_each = region_reads(spark, admin, names), table_reads(spark, admin, names)
    _, cpu = meter.measure(lambda: run_once(spark, phoenix, engine, sql))
    found = counted(before, region_reads(spark, admin, names))
    after_each = table_reads(spark, admin, names)
    found["regionRowsReadByTable"] = {t: after_each[n] - before_each[n] for t, n in zip(TABLES, names)}
    rows = found["regionRowsRead"]
    found["regionServerCpuSeconds"] = cpu["cpuSeconds"][HBASE_PROCESS]
    found["regionServerCpuMicrosPerRow"] = cpu["cpuSeconds"][HBASE_PROCESS] * 1e6 / rows if rows else None
    return {**found, "cpu": cpu}


def executed_plan(spark, sql, settings=None):
    """The physical plan one more run of the statement executed: adaptive execution's final plan, which may
    differ from EXPLAIN's (a sort-merge join made a broadcast one once the sizes are known)."""

    def run():
        df = spark.sql(sql)
        df.collect()
        return df._jdf.queryExecution().executedPlan().toString().split("== Initial Plan ==")[0]

    return with_settings(spark, settings or {}, run)


def join_shapes(plan):
    """{"merged by key": 1, "broadcast hash": 1, ...}: how many of each kind of join (and pushed keys) a plan holds."""
    return {name: plan.count(mark) for name, mark in JOIN_PLAN_MARKS if mark in plan}


def shapes_text(shapes):
    return ", ".join(f"{n} {name}" for name, n in shapes.items()) or "no join"


def joins_off_run(spark, phoenix, admin, meter, sql, repeat, answer):
    """The query on today's format with JOINS_OFF, timed as the lookups' Spark job is, its answer checked against
    `answer` (ours with both features on), with one more run measured and the plan each way."""
    runs, rows, metrics, phases = timed_statements(spark, sql, repeat, JOINS_OFF)
    theirs = [tuple(comparable(v) for v in row) for row in rows]
    if not same_answer(answer, theirs):
        raise RuntimeError(
            f"{OURS_JOINS_OFF} answers differently ({len(theirs)} and {len(answer)} rows):\n"
            f"{sorted(theirs, key=sort_key)[:3]}\nagainst\n{sorted(answer, key=sort_key)[:3]}\n{sql}"
        )
    found = {"seconds": statistics.median(runs), "runs": runs, "sparkPhasesMs": phases, **metrics}
    found["plan"] = with_settings(spark, JOINS_OFF, lambda: spark.sql(f"EXPLAIN {sql}").first()[0])
    found["executedPlan"] = executed_plan(spark, sql, JOINS_OFF)
    found.update(with_settings(spark, JOINS_OFF, lambda: measured_run(spark, phoenix, admin, meter, OURS, sql)))
    return found


def timed_rounds(spark, phoenix, sqls, kind, repeat):
    """One untimed run on each table (six for the lookups, whose runs take milliseconds: both clients' paths for
    them warmed), then the timed runs in rounds, one run on each table a round, the first table of a round another
    each time: what the machine does meanwhile falls on the four alike. (every run, Spark's phases, last answer)
    by engine."""
    scratch = WORK / "phoenix-rows.jsonl"
    for _ in range(LOOKUP_WARM_UPS + 1 if kind == LOOKUP else 1):
        for engine in ENGINES:
            run_once(spark, phoenix, engine, sqls[engine])
    runs = {engine: [] for engine in ENGINES}
    phases = {engine: [] for engine in ENGINES}
    last = {}
    for round_ in range(repeat):
        for engine in ENGINES[round_ % len(ENGINES) :] + ENGINES[: round_ % len(ENGINES)]:
            if is_phoenix(engine):
                last[engine] = phoenix.query(sqls[engine], 1, scratch, warm_up=False)
                runs[engine] += last[engine]["runs"]
            else:
                times, rows, metrics = timed_runs(
                    spark,
                    sqls[engine],
                    {},
                    1,
                    warm_up=False,
                    whole_statement=True,  # from the parse on, as Phoenix's clock runs from its compile on
                    each_run=lambda df, engine=engine: phases[engine].append(spark_phases_ms(df)),
                )
                runs[engine] += times
                last[engine] = (rows, metrics)
    return runs, phases, last


def engine_results(columns, runs, phases, last):
    """({engine: its median, runs and metrics}, {engine: its answer, comparable}) of the timed rounds."""
    engines, answers = {}, {}
    for engine in ENGINES:
        if is_phoenix(engine):
            theirs = last[engine]
            position = {c.lower(): i for i, c in enumerate(theirs["columns"])}
            answers[engine] = [tuple(comparable(r[position[c.lower()]]) for c in columns) for r in theirs["result"]]
            engines[engine] = {
                "seconds": statistics.median(runs[engine]),
                "runs": runs[engine],
                "rowsScanned": sum(t.get("COUNT_ROWS_SCANNED", 0) for t in theirs["metrics"].values()),
                "metrics": theirs["metrics"],
                "plan": theirs["plan"],
            }
        else:
            rows, metrics = last[engine]
            answers[engine] = [tuple(comparable(v) for v in row) for row in rows]
            engines[engine] = {
                "seconds": statistics.median(runs[engine]),
                "runs": runs[engine],
                "sparkPhasesMs": median_phases(phases[engine], runs[engine]),
                **metrics,
            }
    return engines, answers


def check_answers(name, sqls, answers):
    for engine in ENGINES:
        if engine != OURS and not same_answer(answers[OURS], answers[engine]):
            raise RuntimeError(
                f"{name}: {OURS} and {engine} answer differently ({len(answers[OURS])} and "
                f"{len(answers[engine])} rows):\n{sorted(answers[OURS], key=sort_key)[:3]}\nagainst\n"
                f"{sorted(answers[engine], key=sort_key)[:3]}\n{sqls[OURS]}\n{sqls[engine]}"
            )


def other_ways(spark, jdbc, name, sqls, kind, answer, repeat):
    """Ours the other ways, beside the four: the lookups as a Spark job and through JDBC; a task per region where
    the plan reads several regions in one task, on both of our tables."""
    found = {}
    if kind == LOOKUP:  # the driver reads a few key ranges without a Spark job; this is what a job costs
        job_runs, _, job_metrics, _ = timed_statements(spark, sqls[OURS], repeat, DRIVER_READ_OFF)
        found[OURS_JOB] = {"seconds": statistics.median(job_runs), "runs": job_runs, **job_metrics}
    if kind == LOOKUP and jdbc:
        found.update(jdbc_runs(spark, jdbc, name, sqls, answer, repeat))
    for engine, per_region in ((OURS, OURS_TASK_PER_REGION), (OURS_PACKED, OURS_PACKED_TASK_PER_REGION)):
        plan = spark.sql(f"EXPLAIN {sqls[engine]}").first()[0]
        if SINGLE_TASK_PLAN.search(plan):  # what fewer tasks save: the same with a task per region
            task_runs, _, task_metrics, _ = timed_statements(spark, sqls[engine], repeat, SINGLE_TASK_OFF)
            found[per_region] = {"seconds": statistics.median(task_runs), "runs": task_runs, **task_metrics}
    return found


def join_runs(spark, phoenix, admin, meter, name, sqls, engines, answer, repeat):
    """What merging by key and pushing keys save, and the plans that ran."""
    for engine in (OURS, OURS_PACKED):
        engines[engine]["executedPlan"] = executed_plan(spark, sqls[engine])
    engines[OURS_JOINS_OFF] = joins_off_run(spark, phoenix, admin, meter, sqls[OURS], repeat, answer)
    log(
        f"{name}: joins in the plans that ran: "
        + "; ".join(
            f"{engine} {shapes_text(join_shapes(engines[engine]['executedPlan']))}"
            for engine in (OURS, OURS_PACKED, OURS_JOINS_OFF)
        )
        + f"; {OURS_JOINS_OFF} {engines[OURS_JOINS_OFF]['seconds'] * 1000:.0f} ms, "
        f"rows the regions read {engines[OURS_JOINS_OFF]['regionRowsReadByTable']}, "
        f"Spark CPU s {engines[OURS_JOINS_OFF]['cpu']['cpuSeconds'][SPARK_PROCESS]:.2f}"
    )


def log_query(name, kind, engines, rows):
    medians = {engine: engines[engine]["seconds"] for engine in ENGINES}
    log(
        f"{name}: {rows} rows, the four answers the same; median ms "
        + ", ".join(f"{engine} {medians[engine] * 1000:.0f}" for engine in ENGINES)
        + "; rows the regions read "
        + ", ".join(f"{engine} {engines[engine]['regionRowsRead']}" for engine in ENGINES)
        + "; region server CPU s "
        + ", ".join(f"{engine} {engines[engine]['regionServerCpuSeconds']:.2f}" for engine in ENGINES)
        + "; Spark CPU s "
        + ", ".join(f"{engine} {engines[engine]['cpu']['cpuSeconds'][SPARK_PROCESS]:.2f}" for engine in ENGINES)
        + (
            "; rows read by table "
            + ", ".join(f"{engine} {engines[engine]['regionRowsReadByTable']}" for engine in ENGINES)
            if kind in JOIN_KINDS
            else ""
        )
        + (f"; ours with a Spark job {engines[OURS_JOB]['seconds'] * 1000:.0f} ms" if kind == LOOKUP else "")
    )


def run_query(spark, phoenix, jdbc, admin, meter, name, spark_sql, phoenix_sql, kind, repeat):
    sqls = statements(spark_sql, phoenix_sql)
    runs, phases, last = timed_rounds(spark, phoenix, sqls, kind, repeat)
    engines, answers = engine_results(spark.sql(sqls[OURS]).columns, runs, phases, last)
    check_answers(name, sqls, answers)
    engines.update(other_ways(spark, jdbc, name, sqls, kind, answers[OURS], repeat))
    for engine in (OURS, OURS_PACKED):
        engines[engine]["plan"] = spark.sql(f"EXPLAIN {sqls[engine]}").first()[0]
    for engine in ENGINES:
        engines[engine].update(measured_run(spark, phoenix, admin, meter, engine, sqls[engine]))
    if kind in JOIN_KINDS:
        join_runs(spark, phoenix, admin, meter, name, sqls, engines, answers[OURS], repeat)
    log_query(name, kind, engines, len(answers[OURS]))
    medians = {engine: engines[engine]["seconds"] for engine in ENGINES}
    return {
        "query": name,
        "sparkSql": " ".join(sqls[OURS].split()),
        "phoenixSql": " ".join(sqls[PHOENIX].split()),
        "statements": {engine: " ".join(sql.split()) for engine, sql in sqls.items()},
        "kind": kind,
        "resultRows": len(answers[OURS]),
        "sameAnswer": {engine: True for engine in ENGINES if engine != OURS},
        "engines": engines,
        "phoenixOverOurs": medians[PHOENIX] / medians[OURS],
        "overOursPacked": {engine: medians[engine] / medians[OURS_PACKED] for engine in ENGINES},
    }


def process_meter(hbase, spark, phoenix):
    """The run's processes: one HBase JVM (master and region server), Spark's (driver and local executors),
    Phoenix's client and this Python."""
    return CpuMeter(
        {
            HBASE_PROCESS: hbase.pid,
            SPARK_PROCESS: spark._jvm.java.lang.ProcessHandle.current().pid(),
            PHOENIX_PROCESS: phoenix.pid,
            PYTHON_PROCESS: os.getpid(),
        }
    )


def spark_floors(spark, point_lookup, repeat):
    """What statements cost Spark from this client however little they read, timed as ours are: SELECT 1, and
    the point lookup on an empty Parquet table of lineitem's columns (Spark's own kind of table)."""
    empty = "spark_floor_lineitem"
    spark.createDataFrame([], spark.table(ours_name("lineitem")).schema).write.mode("overwrite").saveAsTable(empty)
    statements = {
        "SELECT 1": "SELECT 1",
        "point lookup on an empty Parquet table": point_lookup.format(l=empty),
    }
    floors = {}
    try:
        for name, statement in statements.items():
            runs, _, _, phases = timed_statements(spark, statement, repeat)
            floors[name] = {"seconds": statistics.median(runs), "runs": runs, "sparkPhasesMs": phases}
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {empty}")
    return floors
