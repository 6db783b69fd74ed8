# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Timing statements: every run's seconds, their median, and Spark's planning phases."""

import statistics
import time

from .platform import scan_metrics

PUSHDOWN_OFF = {"spark.sql.hbase.pushdown": "false"}
SPARK_PHASES = ("parsing", "analysis", "optimization", "planning")


def timed_runs(
    spark, query, settings, repeat, warm_up=True, action=lambda df: df.collect(), whole_statement=False, each_run=None
):
    """Every run's seconds of action(df) under these session settings, with what the last run returned and its
    scan metrics. The action is collect() unless given: one that keeps the rows in the JVM measures the scan alone.
    spark.sql() parses and analyzes the statement before the clock starts, unless whole_statement; each_run(df)
    sees every timed run's DataFrame."""
    for key, value in settings.items():
        spark.conf.set(key, value)
    times, result, metrics = [], None, None
    if warm_up:
        action(spark.sql(query))  # not timed
    for _ in range(repeat):
        start = time.perf_counter()
        df = spark.sql(query)  # planned anew each time: optimizing and planning are part of the cost
        if not whole_statement:
            start = time.perf_counter()
        result = action(df)
        times.append(time.perf_counter() - start)
        metrics = scan_metrics(df)
        if each_run:
            each_run(df)
    for key in settings:
        spark.conf.unset(key)
    return times, result, metrics


def in_jvm(df):
    """An action that keeps the rows in the JVM: the scan without Python's row conversion."""
    return df._jdf.queryExecution().toRdd().count()


def median_and_runs(times, **more):
    """{"seconds": median, "runs": every run} and whatever else is given."""
    return {"seconds": statistics.median(times), "runs": times, **more}


def rate(times, rows):
    seconds = statistics.median(times)
    return {"seconds": seconds, "runs": times, "rowsPerSecond": rows / seconds}


def ms_runs(seconds):
    """{"medianMs", "runsMs"} of runs in seconds."""
    return {"medianMs": statistics.median(seconds) * 1000, "runsMs": [round(s * 1000, 1) for s in seconds]}


def seconds_list(times):
    return ", ".join(f"{t:.2f}" for t in times)


def spark_phases_ms(df):
    """Milliseconds of each of Spark's planning phases the DataFrame's statement went through."""
    phases = df._jdf.queryExecution().tracker().phases()
    found = {}
    for name in SPARK_PHASES:
        phase = phases.get(name)
        if phase.isDefined():
            found[name] = phase.get().endTimeMs() - phase.get().startTimeMs()
    return found


def median_phases(runs, seconds):
    """Per phase, the median over runs of its milliseconds; "execution" is what is left of each run's time."""
    medians = {name: statistics.median(r.get(name, 0) for r in runs) for name in SPARK_PHASES}
    rest = [s * 1000 - sum(r.values()) for r, s in zip(runs, seconds)]
    return {**medians, "execution": statistics.median(rest)}


def timed_statements(spark, statement, repeat, settings=None):
    """timed_runs from the parse on, and the median of each of Spark's phases: (runs, rows, metrics, phases)."""
    phases = []
    runs, rows, metrics = timed_runs(
        spark,
        statement,
        settings or {},
        repeat,
        whole_statement=True,
        each_run=lambda df: phases.append(spark_phases_ms(df)),
    )
    return runs, rows, metrics, median_phases(phases, runs)
