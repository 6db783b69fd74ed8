"""Phoenix benchmark: the same TPC-H rows in Apache Phoenix and in our tables, on one HBase, the same queries.

Run through `benchmarks/run phoenix [--scale 0.1] [--repeat 5]`, which installs what this needs. It installs
Phoenix (phoenix_install.py) under benchmarks/work, starts an embedded HBase of its own with Phoenix's jars
after HBase's own and our server jar, generates TPC-H lineitem and orders as CSV with tpchgen-cli, and loads
the same files into Phoenix tables (UPSERT batches through Phoenix's thick JDBC client) and into ours (LOAD
DATA), timing both. Both are pre-split at the same order keys, with the same row keys (both engines encode
BIGINT and INT keys as big-endian with the sign bit flipped) and family settings, then flushed and
major-compacted. Each query then runs through Phoenix's JDBC client (PhoenixClient.java) and through Spark
with our plugin, one untimed run and --repeat timed ones each; the answers are checked to be the same.
Rows scanned are counted three ways: Phoenix's request metrics, our scan metrics, and, for both engines
alike, the regions' own read counters. Where the time goes is measured too (cost_profile.py): Spark's phases
per statement beside Spark's floors, every process's CPU seconds over one run of each engine, and what the
region server's CPU ran during the full-scan aggregates. Writes benchmarks/results/phoenix-sf<scale>.json,
.md and .png.
"""

import argparse
import json
import os
import shutil
import statistics
import time
from decimal import Decimal
from pathlib import Path

from charts import bar_chart
from cost_profile import SAMPLE_KINDS, CpuMeter, RegionServerProfiler, median_phases, spark_phases_ms
from phoenix_bulk_load import csv_bulk_load
from phoenix_install import PHOENIX_COMPAT, PHOENIX_MODULES, PHOENIX_VERSION, install
from phoenix_jdbc import PhoenixJdbc
from tpch_load import generate_csv
from tpch_planner import LINEITEM_COLUMNS, ORDERS_COLUMNS, RESULTS, WORK, compact, create_table, log, timed_runs

# Phoenix's documented server setting (its secondary indexes replay their updates from the WAL); the tables
# here have no index, so it only proves that Phoenix's settings reach the region server.
PHOENIX_SITE = {"hbase.regionserver.wal.codec": "org.apache.hadoop.hbase.regionserver.wal.IndexedWALEditCodec"}
HBASE_HEAP = "2g"  # Phoenix's server-side hash join caches live in the region server's heap
PHOENIX_TYPES = {"BIGINT": "BIGINT", "INT": "INTEGER", "STRING": "VARCHAR", "DATE": "DATE"}
# The same HBase family settings for both engines (Phoenix's defaults, spelled out for ours).
FAMILY = {"DATA_BLOCK_ENCODING": "FAST_DIFF", "COMPRESSION": "NONE", "BLOOMFILTER": "ROW"}
UPSERT_BATCH = 1000  # rows per commit, as Phoenix's documentation advises for bulk UPSERTs
DRIVER_READ_OFF = {"spark.sql.hbase.driverRead.maxKeyRanges": "0"}  # every read through a Spark job
SINGLE_TASK_OFF = {"spark.sql.hbase.coprocessor.singleTaskMaxRegions": "0"}  # a Spark task for each region
SINGLE_TASK_PLAN = "regions read together in one task"
TABLES = {
    "lineitem": (LINEITEM_COLUMNS, ["l_orderkey", "l_linenumber"]),
    "orders": (ORDERS_COLUMNS, ["o_orderkey"]),
}
OURS, PHOENIX = "ours", "Phoenix"
PHOENIX_BULK = "Phoenix CsvBulkLoadTool"  # a load route only: the queries read the UPSERTed table
OURS_JOB = "ours, always a Spark job"
OURS_TASK_PER_REGION = "ours, a Spark task per region"
# Kinds of query, by what the targets ask of them.
LOOKUP = "lookup"  # a few key ranges, read on our driver without a Spark job: latency at most 1.2x Phoenix's
KEYED = "keyed"  # a key column narrows the rows: the regions read no more rows for us than for Phoenix
SCAN = "scan"  # value columns only: every row is read either way
PARALLEL = "parallel"  # full-scan aggregates: Spark's parallelism should make us 3x faster
KEYED_JOIN = "keyed join"  # both: a key range, and a join Spark runs in parallel
HBASE_PROCESS, SPARK_PROCESS, PHOENIX_PROCESS, PYTHON_PROCESS = "HBase", "Spark", "Phoenix client", "Python"
LOOKUP_WARM_UPS = 5
LATENCY_TARGET = 1.2
SPEEDUP_TARGET = 3.0


def ours_name(table):
    return f"ours_{table}"


def phoenix_name(table):
    return f"PHOENIX_{table.upper()}"


def in_file_order(csv, columns):
    """The table's columns in the file's order: LOAD DATA and the UPSERTs map fields by position."""
    header = csv.open().readline().strip().split(",")
    return sorted(columns, key=lambda c: header.index(c[0]))


def phoenix_type(spark_type):
    return spark_type if spark_type.startswith("DECIMAL") else PHOENIX_TYPES[spark_type]


def create_phoenix(phoenix, table, columns, key, splits):
    cols = ", ".join(f"{c} {phoenix_type(t)}{' NOT NULL' if c in key else ''}" for c, t, _ in columns)
    family = ", ".join(f"{k}='{v}'" for k, v in FAMILY.items())
    phoenix.execute(
        f"CREATE TABLE {phoenix_name(table)} ({cols}, CONSTRAINT pk PRIMARY KEY ({', '.join(key)})) "
        # A split point is encoded as its literal's type: a small number would be a 4-byte INTEGER key.
        f"{family} SPLIT ON ({', '.join(f'CAST({s} AS BIGINT)' for s in splits)})"
    )


def hbase_admin(spark):
    """An HBase Admin on the Spark driver's connection; the caller closes it."""
    jvm = spark._jvm
    conf = jvm.org.apache.spark.sql.hbase.connection.HBaseClusterConf.fromSession(spark._jsparkSession)
    return jvm.org.apache.spark.sql.hbase.connection.HBaseConnections.borrow(conf).getAdmin()


def region_start_keys(spark, admin, name):
    regions = admin.getRegions(spark._jvm.org.apache.hadoop.hbase.TableName.valueOf(name))
    return sorted(bytes(r.getStartKey()).hex() for r in regions)


def region_reads(spark, admin, names):
    """HBase's own counters of the regions of these tables, (read requests, filtered read requests): a region
    counts a read request for each row its scanner returns (to a client or a coprocessor) and a filtered one
    for each row a filter drops. Asked of each region server directly, so up to date."""
    jvm = spark._jvm
    reads = filtered = 0
    for server in admin.getRegionServers():
        for name in names:
            for region in admin.getRegionMetrics(server, jvm.org.apache.hadoop.hbase.TableName.valueOf(name)):
                reads += region.getReadRequestCount()
                filtered += region.getFilteredReadRequestCount()
    return reads, filtered


def counted(before, after):
    reads, filtered = after[0] - before[0], after[1] - before[1]
    return {"regionRowsRead": reads + filtered, "regionReadRequests": reads, "regionFilteredReadRequests": filtered}


def order_keys(csv_dir):
    with (csv_dir / "orders.csv").open() as f:
        next(f)
        return sorted(int(line.split(",", 1)[0]) for line in f)


def fingerprint(columns):
    """A query whose answer two tables with the same rows share: a count, sums of the numbers, maxima of the rest."""
    parts = ["count(*)"] + [
        f"{'sum' if t.startswith(('DECIMAL', 'BIGINT', 'INT')) else 'max'}({c})" for c, t, _ in columns
    ]
    return f"SELECT {', '.join(parts)} FROM {{}}"


def bulk_load_phoenix(phoenix, hbase, classpath, table, columns, key, splits, csv):
    """Phoenix's CsvBulkLoadTool into a table of its own, checked to hold the UPSERTed rows, then dropped."""
    bulk = phoenix_name(f"{table}_bulk")
    create_phoenix(phoenix, f"{table}_bulk", columns, key, splits)
    log(f"{table}: loading {csv.name} with Phoenix's CsvBulkLoadTool")
    seconds = csv_bulk_load(hbase.conf_dir, classpath, hbase.zk_port, bulk, csv, WORK)
    check = fingerprint(columns)
    scratch = WORK / "phoenix-rows.jsonl"
    loaded = phoenix.query(check.format(bulk), 0, scratch)["result"]
    upserted = phoenix.query(check.format(phoenix_name(table)), 0, scratch)["result"]
    if loaded != upserted:
        raise RuntimeError(f"{table}: CsvBulkLoadTool loaded {loaded}, the UPSERTs {upserted}")
    phoenix.execute(f"DROP TABLE {bulk}")
    return seconds


def load_both(spark, phoenix, admin, hbase, classpath, csv_dir, max_key, regions):
    """Creates and loads both engines' tables from the same files; returns the load seconds."""
    splits = [max_key * i // regions for i in range(1, regions)]
    loads = {}
    for table, (columns, key) in TABLES.items():
        csv = csv_dir / f"{table}.csv"
        columns = in_file_order(csv, columns)
        create_table(spark, ours_name(table), columns, key, splits, FAMILY)
        create_phoenix(phoenix, table, columns, key, splits)
        ours_keys = region_start_keys(spark, admin, ours_name(table))
        their_keys = region_start_keys(spark, admin, phoenix_name(table))
        # Phoenix pads a split point with zero bytes to the key's full width (l_linenumber's lowest value,
        # below any stored one): its regions hold the same rows as ours.
        if len(ours_keys) != len(their_keys) or not all(
            t.startswith(o) and set(t[len(o) :]) <= {"0"} for o, t in zip(ours_keys, their_keys)
        ):
            raise RuntimeError(f"{table}: Phoenix's regions start at {their_keys}, ours at {ours_keys}")
        log(f"{table}: loading {csv.name} with LOAD DATA")
        start = time.perf_counter()
        spark.sql(f"LOAD DATA LOCAL INPATH '{csv}' INTO TABLE {ours_name(table)} OPTIONS (header 'true')").collect()
        ours_seconds = time.perf_counter() - start
        log(f"{table}: loading {csv.name} with Phoenix UPSERTs, {UPSERT_BATCH} rows a commit")
        upsert = f"UPSERT INTO {phoenix_name(table)} VALUES ({', '.join('?' for _ in columns)})"
        types = [phoenix_type(t).split("(")[0] for _, t, _ in columns]
        loaded = phoenix.load(upsert, csv, types, UPSERT_BATCH)
        loads[table] = {
            "rows": loaded["rows"],
            "bytes": csv.stat().st_size,
            "regions": len(ours_keys),
            OURS: ours_seconds,
            PHOENIX: loaded["seconds"],
            PHOENIX_BULK: bulk_load_phoenix(phoenix, hbase, classpath, table, columns, key, splits, csv),
        }
        log(
            f"{table}: {loaded['rows']} rows, LOAD DATA {ours_seconds:.1f} s, Phoenix UPSERT {loaded['seconds']:.1f} s, "
            f"CsvBulkLoadTool {loads[table][PHOENIX_BULK]:.1f} s"
        )
        for name in (ours_name(table), phoenix_name(table)):
            compact(spark, name)
        log(f"{table}: both flushed and major-compacted")
    return loads


def queries(keys, max_key):
    """(name, Spark SQL, Phoenix SQL, kind): the same query in each dialect, with {l} and {o} for the tables.
    Aggregates name their columns, so that the answers line up by name."""
    point = keys[len(keys) // 3]
    low = keys[len(keys) // 2]
    high = low + max_key // 1000  # 0.1 % of the key space
    in_keys = ", ".join(map(str, keys[len(keys) // 5 :: len(keys) // 100][:100]))
    join_low, join_high = keys[len(keys) // 4], keys[len(keys) // 4] + max_key // 10  # 10 % of the orders
    same = [
        ("point lookup", f"SELECT * FROM {{l}} WHERE l_orderkey = {point} AND l_linenumber = 1", LOOKUP),
        ("0.1 % range on the leading key", f"SELECT * FROM {{l}} WHERE l_orderkey BETWEEN {low} AND {high}", LOOKUP),
        ("IN list of 100 keys", f"SELECT * FROM {{l}} WHERE l_orderkey IN ({in_keys})", LOOKUP),
        ("l_linenumber = 7 (second key column)", "SELECT * FROM {l} WHERE l_linenumber = 7", KEYED),
        (
            "value columns: l_shipmode = 'AIR' AND l_quantity < 2",
            "SELECT * FROM {l} WHERE l_shipmode = 'AIR' AND l_quantity < 2",
            SCAN,
        ),
        ("count(*)", "SELECT count(*) AS row_count FROM {l}", PARALLEL),
    ]
    q1 = """
        SELECT l_returnflag, l_linestatus,
               sum(l_quantity) AS sum_qty,
               sum(l_extendedprice) AS sum_base_price,
               sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
               sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
               avg(l_quantity) AS avg_qty,
               avg(l_extendedprice) AS avg_price,
               avg(l_discount) AS avg_disc,
               count(*) AS count_order
        FROM {l}
        WHERE l_shipdate <= %s
        GROUP BY l_returnflag, l_linestatus
        ORDER BY l_returnflag, l_linestatus"""
    q6 = """
        SELECT sum(l_extendedprice * l_discount) AS revenue
        FROM {l}
        WHERE l_shipdate >= %s AND l_shipdate < %s
          AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"""
    join = f"""
        SELECT o_orderpriority, count(*) AS line_count, sum(l_extendedprice) AS revenue
        FROM {{l}} JOIN {{o}} ON l_orderkey = o_orderkey
        WHERE l_orderkey BETWEEN {join_low} AND {join_high} AND o_orderkey BETWEEN {join_low} AND {join_high}
        GROUP BY o_orderpriority
        ORDER BY o_orderpriority"""

    def spark_date(day):
        return f"date '{day}'"

    def phoenix_date(day):
        return f"TO_DATE('{day}', 'yyyy-MM-dd')"

    # Q1's date is 1998-12-01 - 90 days; Q6's a year from 1994-01-01: computed, as both dialects spell it otherwise.
    return [(name, sql, sql, kind) for name, sql, kind in same] + [
        ("TPC-H Q1", q1 % spark_date("1998-09-02"), q1 % phoenix_date("1998-09-02"), PARALLEL),
        (
            "TPC-H Q6",
            q6 % (spark_date("1994-01-01"), spark_date("1995-01-01")),
            q6 % (phoenix_date("1994-01-01"), phoenix_date("1995-01-01")),
            PARALLEL,
        ),
        ("join with orders, 10 % key range", join, join, KEYED_JOIN),
    ]


def comparable(value):
    """Numbers as Decimal (the engines type averages differently), dates as ISO days, the rest as it is."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float, Decimal)):
        return Decimal(str(value)) if isinstance(value, float) else Decimal(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def sort_key(row):
    return tuple((0, float(v), "") if isinstance(v, Decimal) else (1, 0.0, str(v)) for v in row)


def same_answer(ours, theirs):
    """Row for row after sorting, numbers to the precision of the less precise of the two: Phoenix cuts an
    average of DECIMAL(15,2) to 4 digits (25.5751), Spark rounds it to 6 (25.575155)."""
    if len(ours) != len(theirs):
        return False
    for a, b in zip(sorted(ours, key=sort_key), sorted(theirs, key=sort_key)):
        for x, y in zip(a, b):
            if isinstance(x, Decimal) and isinstance(y, Decimal):
                digits = max(0, min(-x.as_tuple().exponent, -y.as_tuple().exponent, 12))
                if abs(x - y) >= Decimal(1).scaleb(-digits):
                    return False
            elif x != y:
                return False
    return True


def profile_region_server(spark, phoenix, profiler, results):
    """One more run of each engine's full-scan aggregates under a flight recorder on the region server. Last,
    after every timed run: starting a recording makes the JVM compile code anew, which slowed Phoenix's next
    Q1 from about 7 s to 22 s here."""
    scratch = WORK / "phoenix-rows.jsonl"
    for q in results:
        if q["kind"] == PARALLEL:
            theirs, ours = q["phoenixSql"], q["sparkSql"]
            engines = q["engines"]
            engines[PHOENIX]["regionServerProfile"] = profiler.record(
                "phoenix", lambda sql=theirs: phoenix.query(sql, 0, scratch)
            )
            engines[OURS]["regionServerProfile"] = profiler.record("ours", lambda sql=ours: spark.sql(sql).collect())


def timed_statements(spark, statement, repeat, settings=None):
    """timed_runs from the parse on, as Phoenix's clock runs from its compile on, and the median of each of
    Spark's phases."""
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


def run_query(spark, phoenix, admin, meter, name, spark_sql, phoenix_sql, kind, repeat):
    tables = {"l": ours_name("lineitem"), "o": ours_name("orders")}
    phoenix_tables = {"l": phoenix_name("lineitem"), "o": phoenix_name("orders")}
    spark_sql, phoenix_sql = spark_sql.format(**tables), phoenix_sql.format(**phoenix_tables)
    scratch = WORK / "phoenix-rows.jsonl"

    if kind == LOOKUP:  # milliseconds each: warm both clients' paths for them beyond the one untimed run
        for _ in range(LOOKUP_WARM_UPS):
            phoenix.query(phoenix_sql, 0, scratch)
            spark.sql(spark_sql).collect()
    theirs = phoenix.query(phoenix_sql, repeat, scratch)
    runs, rows, metrics, phases = timed_statements(spark, spark_sql, repeat)
    columns = spark.sql(spark_sql).columns
    ours_rows = [tuple(comparable(v) for v in row) for row in rows]
    position = {c.lower(): i for i, c in enumerate(theirs["columns"])}
    their_rows = [tuple(comparable(r[position[c.lower()]]) for c in columns) for r in theirs["result"]]
    if not same_answer(ours_rows, their_rows):
        raise RuntimeError(
            f"{name}: Phoenix and Spark answer differently ({len(their_rows)} and {len(ours_rows)} rows):\n"
            f"{sorted(their_rows, key=sort_key)[:3]}\nagainst\n{sorted(ours_rows, key=sort_key)[:3]}"
        )
    engines = {
        PHOENIX: {
            "seconds": statistics.median(theirs["runs"]),
            "runs": theirs["runs"],
            "rowsScanned": sum(t.get("COUNT_ROWS_SCANNED", 0) for t in theirs["metrics"].values()),
            "metrics": theirs["metrics"],
            "plan": theirs["plan"],
        },
        OURS: {
            "seconds": statistics.median(runs),
            "runs": runs,
            "sparkPhasesMs": phases,
            **metrics,
        },
    }
    if kind == LOOKUP:  # the driver reads a few key ranges without a Spark job; this is what a job costs
        job_runs, _, job_metrics, _ = timed_statements(spark, spark_sql, repeat, DRIVER_READ_OFF)
        engines[OURS_JOB] = {"seconds": statistics.median(job_runs), "runs": job_runs, **job_metrics}
    plan = spark.sql(f"EXPLAIN {spark_sql}").first()[0]
    if SINGLE_TASK_PLAN in plan:  # what reading the regions in one task saves: the same with a task per region
        task_runs, _, task_metrics, _ = timed_statements(spark, spark_sql, repeat, SINGLE_TASK_OFF)
        engines[OURS_TASK_PER_REGION] = {"seconds": statistics.median(task_runs), "runs": task_runs, **task_metrics}
    # One more run of each, alone, between two readings of the regions' read counters and of every process's CPU.
    # Phoenix's run includes its client's EXPLAIN and the writing of its rows for the comparison.
    names = [ours_name("lineitem"), ours_name("orders"), phoenix_name("lineitem"), phoenix_name("orders")]
    before = region_reads(spark, admin, names)
    _, their_cpu = meter.measure(lambda: phoenix.query(phoenix_sql, 0, scratch))
    between = region_reads(spark, admin, names)
    _, our_cpu = meter.measure(lambda: spark.sql(spark_sql).collect())
    after = region_reads(spark, admin, names)
    engines[PHOENIX].update(counted(before, between), cpu=their_cpu)
    engines[OURS].update(counted(between, after), cpu=our_cpu)
    engines[OURS]["plan"] = plan
    ours, their = engines[OURS], engines[PHOENIX]
    log(
        f"{name}: {len(ours_rows)} rows; Phoenix {their['seconds'] * 1000:.0f} ms "
        f"(COUNT_ROWS_SCANNED {their['rowsScanned']}, regions read {their['regionRowsRead']}); "
        f"ours {ours['seconds'] * 1000:.0f} ms (rowsRead {ours['rowsRead']}, rowsScanned {ours['rowsScanned']}, "
        f"regions read {ours['regionRowsRead']})"
        + (f"; ours with a Spark job {engines[OURS_JOB]['seconds'] * 1000:.0f} ms" if kind == LOOKUP else "")
    )
    return {
        "query": name,
        "sparkSql": " ".join(spark_sql.split()),
        "phoenixSql": " ".join(phoenix_sql.split()),
        "kind": kind,
        "resultRows": len(ours_rows),
        "engines": engines,
        "phoenixOverOurs": their["seconds"] / ours["seconds"],
    }


def start(log_dir, reuse):
    """Phoenix installed, an HBase with it (fresh unless reused), a Spark session and a Phoenix client on it, the
    jars Phoenix added and the client's classpath."""
    from pyspark.sql import SparkSession
    from pyspark_hbase import _paths, enable_hbase
    from pyspark_hbase.local import LocalHBase

    hbase_classpath = _paths.read_classpath()
    phoenix_jars = install(WORK, hbase_classpath, log)
    hbase = LocalHBase(
        WORK / "hbase-phoenix", heap=HBASE_HEAP, extra_classpath=phoenix_jars, site_settings=PHOENIX_SITE
    )
    hbase.stop()
    if not reuse:
        shutil.rmtree(hbase.data_dir, ignore_errors=True)  # every run loads anew: the load is measured too
    log(f"starting HBase with Phoenix {PHOENIX_VERSION}'s jars ({len(phoenix_jars)}) after its own")
    hbase.start(progress=log)
    spark = enable_hbase(
        SparkSession.builder.master("local[2]")
        .appName("spark-hbase-sql Phoenix benchmark")
        .config("spark.driver.memory", "6g")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4"),
        data_dir=hbase.data_dir,
    ).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    client_classpath = hbase_classpath + phoenix_jars  # Phoenix's client and tools need HBase's and its own jars
    phoenix = PhoenixJdbc(hbase.conf_dir, client_classpath, hbase.zk_port, log_dir / "phoenix-client.log")
    return hbase, spark, phoenix, phoenix_jars, client_classpath


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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--regions", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per query and engine (median)")
    parser.add_argument(
        "--reuse", action="store_true", help="query the tables the last run of this scale loaded, without loading"
    )
    args = parser.parse_args()
    scale = int(args.scale) if args.scale == int(args.scale) else args.scale

    csv_dir = generate_csv(scale, ("lineitem", "orders"))
    keys = order_keys(csv_dir)
    max_key = keys[-1]
    loads_file = WORK / f"phoenix-loads-sf{scale}.json"  # what the run that loaded the tables measured
    reuse = args.reuse and loads_file.is_file()
    WORK.mkdir(parents=True, exist_ok=True)
    hbase, spark, phoenix, phoenix_jars, client_classpath = start(WORK, reuse)
    admin = hbase_admin(spark)
    meter = process_meter(hbase, spark, phoenix)
    profiler = RegionServerProfiler(hbase.pid, WORK)
    try:
        if reuse:
            loads = json.loads(loads_file.read_text())
            log(f"querying the tables loaded before (load times from {loads_file.name})")
        else:
            loads_file.unlink(missing_ok=True)
            loads = load_both(spark, phoenix, admin, hbase, client_classpath, csv_dir, max_key, args.regions)
            loads_file.write_text(json.dumps(loads))
        results = [
            run_query(spark, phoenix, admin, meter, name, spark_sql, phoenix_sql, kind, args.repeat)
            for name, spark_sql, phoenix_sql, kind in queries(keys, max_key)
        ]
        profile_region_server(spark, phoenix, profiler, results)
        point_lookup = next(sql for _, sql, _, kind in queries(keys, max_key) if kind == LOOKUP)
        floors = spark_floors(spark, point_lookup, args.repeat)
    finally:
        admin.close()
        phoenix.close()
        spark.stop()
        hbase.stop()

    report = {
        "scale": scale,
        "regions": args.regions,
        "repeat": args.repeat,
        "phoenix": {
            "version": PHOENIX_VERSION,
            "artifacts": [*PHOENIX_MODULES, PHOENIX_COMPAT],
            "jars": [Path(j).name for j in phoenix_jars],
            "siteSettings": PHOENIX_SITE,
            "upsertBatch": UPSERT_BATCH,
        },
        "family": FAMILY,
        "loads": loads,
        "queries": results,
        "sparkFloors": floors,
        "machine": f"{os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"),
    }
    report["targets"] = targets(report)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"phoenix-sf{scale}.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    (RESULTS / f"phoenix-sf{scale}.md").write_text(markdown(report))
    chart(report, RESULTS / f"phoenix-sf{scale}.png")
    print(markdown(report))


def runs_ms(runs):
    return ", ".join(f"{r * 1000:.0f}" for r in runs)


def targets(report):
    """The issue's targets, each with the value measured and whether it is met."""
    found = []
    for q in report["queries"]:
        ours, theirs = q["engines"][OURS], q["engines"][PHOENIX]
        if q["kind"] in (LOOKUP, KEYED, KEYED_JOIN):
            found.append(
                {
                    "target": f"{q['query']}: rows the regions read for us at most Phoenix's",
                    "value": f"{ours['regionRowsRead']} against {theirs['regionRowsRead']}",
                    "met": ours["regionRowsRead"] <= theirs["regionRowsRead"],
                }
            )
        if q["kind"] == LOOKUP:
            found.append(
                {
                    "target": f"{q['query']}: latency at most {LATENCY_TARGET}x Phoenix's",
                    "value": f"{ours['seconds'] / theirs['seconds']:.2f}x "
                    f"({ours['seconds'] * 1000:.0f} ms against {theirs['seconds'] * 1000:.0f} ms)",
                    "met": ours["seconds"] <= LATENCY_TARGET * theirs["seconds"],
                }
            )
        if q["kind"] in (PARALLEL, KEYED_JOIN):
            found.append(
                {
                    "target": f"{q['query']}: at least {SPEEDUP_TARGET:.0f}x faster than Phoenix",
                    "value": f"{q['phoenixOverOurs']:.2f}x",
                    "met": q["phoenixOverOurs"] >= SPEEDUP_TARGET,
                }
            )
    return found


def markdown(report):
    lines = [
        f"TPC-H scale {report['scale']}, {report['regions']} regions, Phoenix {report['phoenix']['version']}, "
        f"median of {report['repeat']} runs after one untimed run, {report['machine']}, {report['date']}.",
        "",
        "| load | rows | CSV MB | LOAD DATA s | Phoenix UPSERT s | Phoenix CsvBulkLoadTool s | UPSERT / LOAD DATA "
        "| CsvBulkLoadTool / LOAD DATA |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for table, load in report["loads"].items():
        lines.append(
            f"| {table} | {load['rows']} | {load['bytes'] / 1e6:.0f} | {load[OURS]:.1f} | {load[PHOENIX]:.1f} | "
            f"{load[PHOENIX_BULK]:.1f} | {load[PHOENIX] / load[OURS]:.1f}x | {load[PHOENIX_BULK] / load[OURS]:.1f}x |"
        )
    lines += [
        "",
        "| query | rows | engine | median ms | runs (ms) | rows the regions read (read + filtered) "
        "| engine's own count | Phoenix / ours |",
        "|---|---:|---|---:|---|---:|---|---:|",
    ]
    for q in report["queries"]:
        for i, (engine, r) in enumerate(q["engines"].items()):
            region = (
                f"{r['regionRowsRead']} ({r['regionReadRequests']} + {r['regionFilteredReadRequests']})"
                if "regionRowsRead" in r
                else ""
            )
            own = (
                f"COUNT_ROWS_SCANNED {r['rowsScanned']}"
                if engine == PHOENIX
                else f"rowsScanned {r['rowsScanned']}, rowsRead {r['rowsRead']}"
            )
            first = [q["query"], str(q["resultRows"])] if i == 0 else ["", ""]
            lines.append(
                "| "
                + " | ".join(
                    first
                    + [
                        engine,
                        f"{r['seconds'] * 1000:.0f}",
                        runs_ms(r["runs"]),
                        region,
                        own,
                        f"{q['phoenixOverOurs']:.2f}x" if i == 0 else "",
                    ]
                )
                + " |"
            )
    lines += spark_phase_lines(report) + cpu_lines(report) + profile_lines(report)
    lines += ["", "Phoenix's plans (EXPLAIN):", ""]
    lines += [
        f"- {q['query']}: `{' / '.join(line.strip() for line in q['engines'][PHOENIX]['plan'])}`"
        for q in report["queries"]
    ]
    lines += ["", "Targets:", ""]
    lines += [f"- {t['target']}: {t['value']}: {'met' if t['met'] else '**not met**'}" for t in report["targets"]]
    return "\n".join(lines) + "\n"


def spark_phase_lines(report):
    """Our time per statement by Spark's phases, beside Phoenix's whole time and Spark's floor."""
    lines = [
        "",
        "Where our time goes, by Spark's phases (median ms; execution includes returning the rows to Python):",
        "",
        "| query | parse | analyze | optimize | plan | execute | ours in all | Phoenix in all |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rows = [(q["query"], q["engines"][OURS], q["engines"][PHOENIX]["seconds"]) for q in report["queries"]]
    rows += [(f"{name} (Spark's floor)", floor, None) for name, floor in report["sparkFloors"].items()]
    for name, ours, theirs in rows:
        phases = ours["sparkPhasesMs"]
        cells = [f"{phases[p]:.0f}" for p in ("parsing", "analysis", "optimization", "planning", "execution")]
        lines.append(
            f"| {name} | {' | '.join(cells)} | {ours['seconds'] * 1000:.0f} | "
            f"{'' if theirs is None else f'{theirs * 1000:.0f}'} |"
        )
    return lines


def cpu_lines(report):
    """CPU seconds of each process over one more run of each query and engine."""
    processes = (HBASE_PROCESS, SPARK_PROCESS, PHOENIX_PROCESS, PYTHON_PROCESS)
    lines = [
        "",
        f"CPU seconds each process spent over one more run of each ({report['machine']}; "
        "cores busy = all CPU seconds / wall seconds):",
        "",
        "| query | engine | wall s | " + " | ".join(f"{p} CPU s" for p in processes) + " | cores busy |",
        "|---|---|---:|" + "---:|" * len(processes) + "---:|",
    ]
    for q in report["queries"]:
        for engine in (PHOENIX, OURS):
            cpu = q["engines"][engine]["cpu"]
            used = " | ".join(f"{cpu['cpuSeconds'][p]:.2f}" for p in processes)
            name = q["query"] if engine == PHOENIX else ""
            lines.append(f"| {name} | {engine} | {cpu['wallSeconds']:.2f} | {used} | {cpu['coresBusy']:.2f} |")
    return lines


def profile_lines(report):
    """Shares of the region server's CPU samples by kind of work, over one run of each full-scan aggregate."""
    kinds = [kind for kind, _ in SAMPLE_KINDS] + ["other"]
    lines = [
        "",
        "What the region server's CPU did over one more run of each full-scan aggregate (Java Flight Recorder; "
        "each sample goes to the innermost frame outside the JDK):",
        "",
        "| query | engine | samples | " + " | ".join(kinds) + " |",
        "|---|---|---:|" + "---:|" * len(kinds),
    ]
    for q in report["queries"]:
        for engine in (PHOENIX, OURS):
            profile = q["engines"][engine].get("regionServerProfile")
            if profile:
                shares = " | ".join(f"{profile['shares'][k] * 100:.0f} %" for k in kinds)
                name = q["query"] if engine == PHOENIX else ""
                lines.append(f"| {name} | {engine} | {profile['samples']} | {shares} |")
    return lines


def chart(report, path):
    """Median ms of each query in each engine, every run dotted, on a log scale (lookups to full scans)."""
    queries = report["queries"]

    def label(q):
        job = q["engines"].get(OURS_JOB)
        per_region = q["engines"].get(OURS_TASK_PER_REGION)
        return (
            q["query"]
            + (f"\n(ours as a Spark job: {job['seconds'] * 1000:,.0f} ms)" if job else "")
            + (f"\n(ours, a task per region: {per_region['seconds'] * 1000:,.0f} ms)" if per_region else "")
        )

    bar_chart(
        path,
        f"Phoenix {report['phoenix']['version']} and spark-hbase-sql on one HBase, TPC-H scale {report['scale']}",
        [label(q) for q in queries],
        [
            (
                engine,
                [q["engines"][engine]["seconds"] for q in queries],
                [q["engines"][engine]["runs"] for q in queries],
            )
            for engine in (PHOENIX, OURS)
        ],
        unit="ms",
        log_scale=True,
        size=(14, 6),
    )


if __name__ == "__main__":
    main()
