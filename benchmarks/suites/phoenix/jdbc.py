# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The lookups on both our tables through our Thrift server from a JVM JDBC client, with the server's phases."""

import os
import statistics
from decimal import Decimal

from harness.answers import comparable, same_answer
from harness.common import log
from harness.thrift_jdbc import phases_since
from harness.timing import median_phases

from .constants import JDBC_ENGINES, JDBC_FLOOR, OURS, OURS_CATALOG_JDBC, PLANNING_PHASES
from .tables import ours_name


def jdbc_runs(spark, jdbc, name, sqls, ours_answer, repeat):
    """The lookup on both our tables through our Thrift server from a JVM JDBC client, one run on each a round,
    after one untimed run on each; the answers checked against ours through Spark; the server's phases. A one-part
    name is looked up in the server's Hive metastore before ours; `hbase.t` goes to our catalog alone."""
    client, phases_file = jdbc
    found = {}
    runs = {engine: [] for engine in JDBC_ENGINES}
    jdbc_sqls = {
        engine: sqls[table].replace(f" {ours_name('lineitem')} ", f" hbase.{ours_name('lineitem')} ")
        if qualified
        else sqls[table]
        for engine, (table, qualified) in JDBC_ENGINES.items()
    }
    if jdbc_sqls[OURS_CATALOG_JDBC] == sqls[OURS]:
        raise RuntimeError(f"{name}: no table name to qualify with hbase. in {sqls[OURS]}")
    for engine, (table, _) in JDBC_ENGINES.items():
        warm = client.query(jdbc_sqls[engine], 1)
        decimals = [type(f.dataType).__name__ == "DecimalType" for f in spark.sql(sqls[table]).schema.fields]
        answer = [
            tuple(Decimal(v) if d and v is not None else comparable(v) for v, d in zip(row, decimals))
            for row in warm["result"]
        ]
        if not same_answer(ours_answer, answer):
            raise RuntimeError(f"{name}: {engine} answers differently ({len(answer)} rows against {len(ours_answer)})")
    offset = os.path.getsize(phases_file)
    for _ in range(repeat):
        for engine in JDBC_ENGINES:
            runs[engine] += client.query(jdbc_sqls[engine], 1, warm_up=False)["runs"]
    count = repeat * len(JDBC_ENGINES)
    lines = phases_since(phases_file, offset, count)[-count:]
    for i, engine in enumerate(JDBC_ENGINES):
        server = [{p: line[p] for p in PLANNING_PHASES} for line in lines[i :: len(JDBC_ENGINES)]]
        found[engine] = {
            "seconds": statistics.median(runs[engine]),
            "runs": runs[engine],
            "sparkPhasesMs": median_phases(server, runs[engine]),
        }
    log(f"{name} through JDBC: " + ", ".join(f"{e} {found[e]['seconds'] * 1000:.0f} ms" for e in found))
    return found


def jdbc_floor(jdbc, repeat):
    """Spark's floor through our Thrift server: SELECT 1 from the same JDBC client, with the server's phases."""
    client, phases_file = jdbc
    offset = os.path.getsize(phases_file)
    runs = client.query("SELECT 1", repeat, warm_up=False)["runs"]
    lines = phases_since(phases_file, offset, repeat)[-repeat:]
    server = [{p: line[p] for p in PLANNING_PHASES} for line in lines]
    log(f"{JDBC_FLOOR}: {statistics.median(runs) * 1000:.0f} ms")
    return {"seconds": statistics.median(runs), "runs": runs, "sparkPhasesMs": median_phases(server, runs)}
