# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Each query on the three tables: Phoenix's through its JDBC client, ours through Spark from the parse on, from
PySpark and, as Phoenix's Java client reads, in the JVM; the answers checked to be the same; then MEASURED_RUNS more
runs of each alone, between readings of the regions' read counters (data table and each index table) and of the
region server's CPU."""

import statistics
import time

from harness.answers import comparable, same_answer, sort_key
from harness.common import WORK, log
from harness.server_sampling import cpu_seconds
from harness.timing import timed_runs

from .constants import (
    BLOCK_BYTES,
    COVERED,
    ENGINES,
    INDEX_COLUMN,
    LOOKUP,
    LOOKUP_WARM_UPS,
    MAX_WARM_UP_BLOCKS,
    MEASURED_RUNS,
    MIN_WARM_UP_BLOCKS,
    NO_INDEX,
    PHOENIX,
    STEADY_BLOCKS,
    STEADY_GAIN,
    UNCOVERED,
    WARM_UP_RUNS,
)
from .queries import statements
from .tables import (
    index_name,
    index_table,
    region_counters,
    regions_by_start,
    regions_holding,
    store_bytes,
    table_name,
)

SCRATCH = WORK / "global-index-rows.jsonl"


def run_once(spark, phoenix, engine, sql):
    if engine == PHOENIX:
        return phoenix.query(sql, 0, SCRATCH)  # its one untimed run
    return spark.sql(sql).collect()


def in_jvm_seconds(spark, sql):
    """One run of ours from the parse on, its rows collected as Java objects in the JVM (as Phoenix's client gets
    them) rather than converted to Python's: the seconds, the Py4J calls' own included."""
    start = time.perf_counter()
    spark._jsparkSession.sql(sql).collectAsList()
    return time.perf_counter() - start


def engines_in_turn(round_):
    """The engines in the order a round runs them: a different one first each round."""
    first = round_ % len(ENGINES)
    return ENGINES[first:] + ENGINES[:first]


def warm_up_paths():
    """The ways a statement is run and timed: Phoenix's client, and each of our tables from PySpark and in the JVM."""
    return [PHOENIX] + [f"{e}{where}" for e in ENGINES if e != PHOENIX for where in ("", " in the JVM")]


def warm_up_block(spark, phoenix, all_sqls, block):
    """WARM_UP_RUNS runs of each statement on each path, a different engine first each block, timed only to follow
    the warm-up: {path: the sum over the statements of the median ms of their runs}."""
    medians = {path: 0.0 for path in warm_up_paths()}
    for sqls in all_sqls:
        for engine in engines_in_turn(block):
            if engine == PHOENIX:
                runs = phoenix.query(sqls[engine], WARM_UP_RUNS, SCRATCH, warm_up=False)["runs"]
                medians[PHOENIX] += statistics.median(runs) * 1000
            else:
                times, _, _ = timed_runs(spark, sqls[engine], {}, WARM_UP_RUNS, warm_up=False, whole_statement=True)
                medians[engine] += statistics.median(times) * 1000
                jvm = [in_jvm_seconds(spark, sqls[engine]) for _ in range(WARM_UP_RUNS)]
                medians[f"{engine} in the JVM"] += statistics.median(jvm) * 1000
    return medians


def steady(sums):
    """Whether the last STEADY_BLOCKS of a path's block sums each took no less than (1 - STEADY_GAIN) of the fastest
    block before it: the JIT compiler has stopped making it faster."""
    return len(sums) > STEADY_BLOCKS and all(
        sums[i] >= (1 - STEADY_GAIN) * min(sums[:i]) for i in range(len(sums) - STEADY_BLOCKS, len(sums))
    )


def warm_up(spark, phoenix, queries):
    """Both engines run every query but the full scan, in blocks, until each is steady (constants.py says why and
    when): {"blocks", "steady", "runsPerBlock", "statements" per path, "blockMs": {path: each block's sum of
    medians}}."""
    all_sqls = [
        statements(kind, index, columns, where, group_by)
        for _, kind, index, columns, where, group_by in queries
        if kind != NO_INDEX
    ]
    sums = {path: [] for path in warm_up_paths()}
    block = 0
    while block < MAX_WARM_UP_BLOCKS:
        for path, ms in warm_up_block(spark, phoenix, all_sqls, block).items():
            sums[path].append(ms)
        block += 1
        log(f"warm-up block {block}: " + ", ".join(f"{p} {s[-1]:.0f} ms" for p, s in sums.items()))
        if block >= MIN_WARM_UP_BLOCKS and all(steady(s) for s in sums.values()):
            break
    return {
        "blocks": block,
        "steady": all(steady(s) for s in sums.values()),
        "runsPerBlock": WARM_UP_RUNS,
        "statements": block * WARM_UP_RUNS * len(all_sqls),
        "blockMs": sums,
    }


def timed_rounds(spark, phoenix, sqls, repeat):
    """Warm-up runs on each table, then `repeat` rounds of one timed run on each, a different table first each
    round, and of one more of ours in the JVM: (every run by engine, every JVM run by engine, the last answer by
    engine)."""
    for _ in range(LOOKUP_WARM_UPS):
        for engine in ENGINES:
            run_once(spark, phoenix, engine, sqls[engine])
            if engine != PHOENIX:
                in_jvm_seconds(spark, sqls[engine])
    runs, last = {e: [] for e in ENGINES}, {}
    jvm_runs = {e: [] for e in ENGINES if e != PHOENIX}
    for round_ in range(repeat):
        for engine in engines_in_turn(round_):
            if engine == PHOENIX:
                last[engine] = phoenix.query(sqls[engine], 1, SCRATCH, warm_up=False)
                runs[engine] += last[engine]["runs"]
            else:
                # From the parse on, as Phoenix's clock runs from its compile on.
                times, rows, metrics = timed_runs(spark, sqls[engine], {}, 1, warm_up=False, whole_statement=True)
                runs[engine] += times
                last[engine] = (rows, metrics)
                jvm_runs[engine].append(in_jvm_seconds(spark, sqls[engine]))
    return runs, jvm_runs, last


def answers_of(columns, last):
    """{engine: its answer's rows, comparable, in Spark's column order}."""
    found = {}
    for engine in ENGINES:
        if engine == PHOENIX:
            theirs = last[engine]
            position = {c.lower(): i for i, c in enumerate(theirs["columns"])}
            found[engine] = [tuple(comparable(r[position[c.lower()]]) for c in columns) for r in theirs["result"]]
        else:
            found[engine] = [tuple(comparable(v) for v in row) for row in last[engine][0]]
    return found


def check_answers(name, sqls, answers):
    first = ENGINES[0]
    for engine in ENGINES[1:]:
        if not same_answer(answers[first], answers[engine]):
            raise RuntimeError(
                f"{name}: {first} and {engine} answer differently ({len(answers[first])} and "
                f"{len(answers[engine])} rows):\n{sorted(answers[first], key=sort_key)[:3]}\nagainst\n"
                f"{sorted(answers[engine], key=sort_key)[:3]}\n{sqls[first]}\n{sqls[engine]}"
            )


def hbase_tables(engine):
    """{role: HBase table} an engine's query may read: the data table and its two indexes of o_custkey."""
    table = table_name(engine)
    return {
        "data": table,
        **{
            kind: index_table(engine, table, index_name(engine, table, INDEX_COLUMN, covered=kind == COVERED))
            for kind in (UNCOVERED, COVERED)
        },
    }


def measured_runs(spark, phoenix, admin, hbase_pid, engine, sql, match_keys):
    """MEASURED_RUNS runs alone: per run, the rows each table's regions read and the region server's CPU; the
    data regions read, against those holding the answer's keys."""
    tables = hbase_tables(engine)
    before = {role: region_counters(spark, admin, name) for role, name in tables.items()}
    cpu = cpu_seconds(hbase_pid)
    for _ in range(MEASURED_RUNS):
        run_once(spark, phoenix, engine, sql)
    cpu = cpu_seconds(hbase_pid) - cpu
    after = {role: region_counters(spark, admin, name) for role, name in tables.items()}
    read = {role: {r: after[role][r] - before[role].get(r, 0) for r in after[role]} for role in tables}
    found = {
        "rowsReadPerRun": {role: sum(regions.values()) / MEASURED_RUNS for role, regions in read.items()},
        "regionServerCpuMsPerRun": cpu * 1000 / MEASURED_RUNS,
        "dataRegionsRead": sum(1 for n in read["data"].values() if n),
        "dataRegions": len(read["data"]),
    }
    if match_keys is not None:
        holding = regions_holding(regions_by_start(spark, admin, tables["data"]), match_keys)
        found["dataRegionsHoldingMatches"] = len(holding)
        found["dataRegionsReadBeyondMatches"] = sum(1 for r, n in read["data"].items() if n and r not in holding)
    return found


def engine_result(engine, runs, jvm_runs, last, plan):
    result = {"seconds": statistics.median(runs), "runs": runs}
    if engine != PHOENIX:
        result["jvmSeconds"] = statistics.median(jvm_runs)
        result["jvmRuns"] = jvm_runs
    if engine == PHOENIX:
        result["plan"] = last["plan"]
        result["rowsScanned"] = sum(t.get("COUNT_ROWS_SCANNED", 0) for t in last["metrics"].values())
    else:
        result["plan"] = plan
        result["scanMetrics"] = last[1]
    return result


def run_query(spark, phoenix, admin, hbase_pid, query, repeat, index_rows_per_block):
    name, kind, index, columns, where, group_by = query
    sqls = statements(kind, index, columns, where, group_by)
    runs, jvm_runs, last = timed_rounds(spark, phoenix, sqls, repeat)
    answers = answers_of(spark.sql(sqls[ENGINES[1]]).columns, last)
    check_answers(name, sqls, answers)
    keys = None
    if columns == "*" or columns.startswith("o_orderkey"):
        keys = [int(row[0]) for row in spark.sql(sqls[ENGINES[1]]).select("o_orderkey").collect()]
    engines = {}
    for engine in ENGINES:
        plan = None if engine == PHOENIX else spark.sql(f"EXPLAIN {sqls[engine]}").first()[0]
        engines[engine] = engine_result(engine, runs[engine], jvm_runs.get(engine), last[engine], plan)
        engines[engine].update(measured_runs(spark, phoenix, admin, hbase_pid, engine, sqls[engine], keys))
    rows = len(answers[ENGINES[0]])
    log(
        f"{name}: {rows} rows, the answers the same; median ms "
        + ", ".join(f"{e} {engines[e]['seconds'] * 1000:.1f}" for e in ENGINES)
        + " (in the JVM "
        + ", ".join(f"{e} {engines[e]['jvmSeconds'] * 1000:.1f}" for e in ENGINES if e != PHOENIX)
        + ")"
        + "; rows read a run (data/uncovered/covered) "
        + ", ".join(f"{e} " + "/".join(f"{v:.0f}" for v in engines[e]["rowsReadPerRun"].values()) for e in ENGINES)
        + "; region server CPU ms a run "
        + ", ".join(f"{e} {engines[e]['regionServerCpuMsPerRun']:.1f}" for e in ENGINES)
    )
    return {
        "query": name,
        "kind": kind,
        "index": index,
        "statements": sqls,
        "resultRows": rows,
        "matchKeys": len(keys) if keys is not None else None,
        "indexRowsPerBlock": index_rows_per_block.get(index) if index else None,
        "engines": engines,
        "lookup": kind == LOOKUP,
    }


def rows_per_block(spark, admin, rows):
    """{UNCOVERED/COVERED: {engine: rows of that index in one HBase block}}, from its bytes on disk."""
    return {
        kind: {
            engine: BLOCK_BYTES * rows / max(1, store_bytes(spark, admin, hbase_tables(engine)[kind]))
            for engine in ENGINES
        }
        for kind in (UNCOVERED, COVERED)
    }
