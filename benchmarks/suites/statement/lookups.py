# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The Phoenix benchmark's lookups on a lineitem-shaped table, from PySpark and from a JVM JDBC client through our
Thrift server, run after run alternately."""

import json
import os
import statistics
import time

from harness.common import WORK, log
from harness.server_sampling import cpu_seconds
from harness.thrift_jdbc import phases_since, start_with_client
from harness.timing import SPARK_PHASES, median_phases, spark_phases_ms

LINEITEM = "stmt_lineitem"

ORDERS = 150_000

MAX_KEY = ORDERS * 4

LINEITEM_COLUMNS = (
    "l_orderkey BIGINT, l_linenumber INT, l_partkey BIGINT, l_suppkey BIGINT, l_quantity DECIMAL(15,2), "
    "l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2), l_tax DECIMAL(15,2), l_returnflag STRING, "
    "l_linestatus STRING, l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct STRING, "
    "l_shipmode STRING, l_comment STRING"
)

LINEITEM_CELLS = (
    "l_partkey=f.pk, l_suppkey=f.sk, l_quantity=f.q, l_extendedprice=f.ep, l_discount=f.d, l_tax=f.t, "
    "l_returnflag=f.rf, l_linestatus=f.ls, l_shipdate=f.sd, l_commitdate=f.cd, l_receiptdate=f.rd, "
    "l_shipinstruct=f.si, l_shipmode=f.sm, l_comment=f.c"
)


# Order o has key 4 * o + 1 and lines 1 to 1 + o % 7.
LINEITEM_ROWS = f"""
    SELECT o * 4 + 1, CAST(l AS INT), o * 7 % 20000, o % 1000, CAST(l + 1 AS DECIMAL(15,2)),
           CAST(o % 100000 AS DECIMAL(15,2)) / 10, CAST(0.05 AS DECIMAL(15,2)), CAST(0.02 AS DECIMAL(15,2)),
           'N', 'O', date_add(DATE'1992-01-01', CAST(o % 2500 AS INT)), date_add(DATE'1992-02-01', CAST(o % 2500 AS INT)),
           date_add(DATE'1992-03-01', CAST(o % 2500 AS INT)), 'DELIVER IN PERSON', 'AIR', concat('comment ', o)
    FROM (SELECT id AS o FROM range({ORDERS})) LATERAL VIEW explode(sequence(1, CAST(1 + o % 7 AS INT))) AS l"""


# Hive's pool runs each JDBC statement on one of up to 100 threads, and a thread's first statement opens its own
# metastore connection (ObjectStore, HiveConf: about 15 ms of CPU); the timed runs start once each thread has run one.
JDBC_WARM_UP = 110

IDLE_SECONDS = 11  # Hive's statement threads end after 10 s idle (hive.server2.async.exec.keepalive.time)


def lines_of(o):
    return 1 + o % 7


def lookups():
    """(name, SQL, rows expected): the Phoenix benchmark's three keyed reads, and Spark's floor."""
    point = ORDERS // 3
    low = ORDERS // 2 * 4 + 1
    high = low + MAX_KEY // 1000  # 0.1 % of the key space
    in_orders = [ORDERS // 5 + i * (ORDERS // 130) for i in range(100)]
    in_keys = ", ".join(str(o * 4 + 1) for o in in_orders)
    return (
        ("point lookup", f"SELECT * FROM {LINEITEM} WHERE l_orderkey = {point * 4 + 1} AND l_linenumber = 1", 1),
        (
            "0.1 % range on the leading key",
            f"SELECT * FROM {LINEITEM} WHERE l_orderkey BETWEEN {low} AND {high}",
            sum(lines_of(o) for o in range(ORDERS) if low <= o * 4 + 1 <= high),
        ),
        (
            "IN list of 100 keys",
            f"SELECT * FROM {LINEITEM} WHERE l_orderkey IN ({in_keys})",
            sum(map(lines_of, in_orders)),
        ),
        ("SELECT 1 (Spark's floor)", "SELECT 1", 1),
    )


def python_rows(rows):
    """Rows as both clients can give them: JDBC's decimals and dates come as strings."""
    return sorted(tuple(str(v) if v is not None and not isinstance(v, (int, str)) else v for v in r) for r in rows)


# The JDBC paths, each its own Thrift server on the same HBase with a JDBC client of its own: as the launcher starts
# it (no Hive metastore is configured here, so Spark's tables are kept in memory), and with Spark's tables in a Hive
# metastore (Derby), as it started before: (the server's options, the names of its and its client's processes).
JDBC_SERVERS = {
    "jdbc": ({"catalog_implementation": "in-memory"}, ("Thrift server", "JDBC client")),
    "jdbc-hive": (
        {"catalog_implementation": "hive"},
        ("Thrift server (Hive metastore)", "JDBC client (Hive metastore)"),
    ),
}


def measure_lookups(spark, jdbcs, repeat, idle_runs, processes):
    """Each lookup from PySpark and through each JDBC path (`jdbcs`: name -> (client, phases file)), run after run
    alternately, with every answer checked, and the CPU each process spent over each path's runs (`processes`:
    name -> pid; read from /proc in 10 ms ticks, which average out over the runs)."""

    def cpu():
        return {name: cpu_seconds(pid) for name, pid in processes.items()}

    def add(into, before):
        for name, seconds in cpu().items():
            into[name] = into.get(name, 0.0) + seconds - before[name]

    for jdbc, _ in jdbcs.values():
        jdbc.query(lookups()[0][1], JDBC_WARM_UP)
    results = {}
    for name, sql, rows in lookups():
        py_rows = spark.sql(sql).collect()  # untimed warm-up of every path
        assert len(py_rows) == rows, (name, len(py_rows), rows)
        for path, (jdbc, _) in jdbcs.items():
            warm = jdbc.query(sql, 1)
            assert python_rows(warm["result"]) == python_rows(py_rows), (name, path)
        offsets = {path: os.path.getsize(phases) for path, (_, phases) in jdbcs.items()}
        py_seconds, py_phases, py_cpu = [], [], {}
        jdbc_seconds, jdbc_cpu = {path: [] for path in jdbcs}, {path: {} for path in jdbcs}
        for _ in range(repeat):
            before = cpu()
            start = time.perf_counter()
            df = spark.sql(sql)
            got = df.collect()
            py_seconds.append(time.perf_counter() - start)
            add(py_cpu, before)
            py_phases.append(spark_phases_ms(df))
            assert len(got) == rows
            for path, (jdbc, _) in jdbcs.items():
                before = cpu()
                answer = jdbc.query(sql, 1, warm_up=False)
                add(jdbc_cpu[path], before)
                jdbc_seconds[path].append(answer["runs"][0])
                assert answer["rows"] == rows, (name, path)
        results[name] = {
            "sql": sql,
            "rows": rows,
            "pyspark": {
                **timings(py_seconds, median_phases(py_phases, py_seconds)),
                "cpuMsPerRun": per_run(py_cpu, repeat),
            },
        }
        for path, (_, phases_file) in jdbcs.items():
            lines = phases_since(phases_file, offsets[path], repeat)[-repeat:]
            server = [{p: line[p] for p in SPARK_PHASES} for line in lines]
            results[name][path] = {
                **timings(jdbc_seconds[path], median_phases(server, jdbc_seconds[path])),
                "cpuMsPerRun": per_run(jdbc_cpu[path], repeat),
            }
        log(
            f"{name}: PySpark {results[name]['pyspark']['medianMs']:.1f} ms, "
            + ", ".join(f"{path} {results[name][path]['medianMs']:.1f} ms" for path in jdbcs)
        )
    if idle_runs:
        name, sql, rows = lookups()[0]
        idle = {path: [] for path in jdbcs}
        for _ in range(idle_runs):
            time.sleep(IDLE_SECONDS)
            for path, (jdbc, _) in jdbcs.items():
                idle[path].append(jdbc.query(sql, 1, warm_up=False)["runs"][0])
        results[f"{name} after {IDLE_SECONDS} s idle"] = {
            "sql": sql,
            "rows": rows,
            **{path: timings(runs, None) for path, runs in idle.items()},
        }
    return results


def per_run(cpu, runs):
    return {name: round(seconds * 1000 / runs, 1) for name, seconds in cpu.items()}


def timings(seconds, phases):
    return {
        "medianMs": statistics.median(seconds) * 1000,
        "runsMs": [round(s * 1000, 1) for s in seconds],
        "phasesMs": phases,
    }


def run_lookups(spark, hbase, args):
    """The lineitem-shaped table, our Thrift servers on the same HBase (JDBC_SERVERS), a JDBC client of each, and the
    lookups."""
    splits = ", ".join(f"({MAX_KEY * i // 16})" for i in range(1, 16))
    spark.sql(
        f"CREATE TABLE {LINEITEM} ({LINEITEM_COLUMNS}, PRIMARY KEY (l_orderkey, l_linenumber)) "
        f"MAPPED BY ({LINEITEM}, COLS=[{LINEITEM_CELLS}]) LAYOUT CELLS SPLIT ON ({splits})"
    )
    start = time.perf_counter()
    spark.sql(f"INSERT INTO {LINEITEM} {LINEITEM_ROWS}")
    log(f"{LINEITEM}: {ORDERS} orders' lines written in {time.perf_counter() - start:.1f} s")
    servers, jdbcs = [], {}
    processes = {"Spark": spark._jvm.java.lang.ProcessHandle.current().pid(), "Python": os.getpid(), "HBase": hbase.pid}
    try:
        for path, (options, (server_name, client_name)) in JDBC_SERVERS.items():
            server, jdbc, phases_file = start_with_client(
                hbase, WORK, f"statement-{path}", directory=WORK / f"statement-{path}-thriftserver", **options
            )
            servers.append(server)
            jdbcs[path] = (jdbc, phases_file)
            processes[server_name] = json.loads(server.state_file.read_text())["pid"]
            processes[client_name] = jdbc.pid
        return measure_lookups(spark, jdbcs, args.repeat, args.idle_runs, processes)
    finally:
        for jdbc, _ in jdbcs.values():
            jdbc.close()
        for server in servers:
            server.stop()
