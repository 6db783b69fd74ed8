# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""`./benchmarks/run phoenix`: see the package's docstring."""

import argparse
import json
import time
from pathlib import Path

from harness.common import WORK, log, machine, today, tpch_scale
from harness.data import generate_csv
from harness.phoenix import (
    PHOENIX_COMPAT,
    PHOENIX_MODULES,
    PHOENIX_SITE,
    PHOENIX_VERSION,
    PhoenixJdbc,
    hbase_with_phoenix,
)
from harness.results import write_results
from harness.server_sampling import RegionServerProfiler
from harness.sessions import hbase_admin, spark_session
from harness.thrift_jdbc import start_with_client

from . import __doc__ as DOC
from .constants import (
    FAMILY,
    FILTERED_ORDERS,
    HBASE_HEAP,
    JDBC_FLOOR,
    JDBC_WARM_UP,
    LOOKUP,
    MEASURE_SITE,
    OURS_PACKED,
    PHOENIX_PACKED_PROPERTIES,
    TABLES,
    UPSERT_BATCH,
)
from .jdbc import jdbc_floor
from .load import load_all
from .measure import process_meter, profile_region_server, run_query, spark_floors
from .queries import join_queries, order_keys, price_bound, queries
from .report import chart, markdown
from .tables import check_layouts, storage
from .targets import issue20_targets, issue36_targets, issue52_targets, targets


def arguments():
    parser = argparse.ArgumentParser(
        prog="./benchmarks/run phoenix", description=DOC, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--regions", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per query and engine (median)")
    parser.add_argument(
        "--reuse", action="store_true", help="query the tables the last run of this scale loaded, without loading"
    )
    parser.add_argument(
        "--no-jdbc", dest="jdbc", action="store_false", help="leave out the lookups through our Thrift server"
    )
    parser.add_argument(
        "--no-joins",
        dest="joins",
        action="store_false",
        help="leave out the join with a few hundred orders, TPC-H Q3 and Q12 (the keyed join stays): at scale 1 they "
        "make the run last over an hour",
    )
    return parser.parse_args()


def start(log_dir, reuse):
    """Phoenix installed, an HBase with it (fresh unless reused), a Spark session and a Phoenix client on it, the
    jars Phoenix added and the client's classpath."""
    # every run loads anew unless reused: the load is measured too
    hbase, phoenix_jars, client_classpath = hbase_with_phoenix(
        WORK, "hbase-phoenix", HBASE_HEAP, MEASURE_SITE, not reuse, log
    )
    spark = spark_session(
        "spark-hbase-sql Phoenix benchmark",
        hbase.data_dir,
        {"spark.ui.showConsoleProgress": "false", "spark.sql.shuffle.partitions": "4"},
    )
    phoenix = PhoenixJdbc(hbase.conf_dir, client_classpath, hbase.zk_port, log_dir / "phoenix-client.log")
    return hbase, spark, phoenix, phoenix_jars, client_classpath


def reusable(loads_file, wanted):
    """Only a run that loaded all four tables of each left what --reuse needs."""
    if not wanted:
        return False
    found = loads_file.is_file() and json.loads(loads_file.read_text())
    ok = bool(found) and OURS_PACKED in found["lineitem"] and set(TABLES) <= set(found)
    if not ok:
        log(f"no tables of this scale to reuse ({loads_file.name}): loading them")
    return ok


def loaded_tables(spark, phoenix, admin, hbase, client_classpath, csv_dir, max_key, regions, loads_file, reuse):
    """The load seconds: measured now, or, with reuse, by the run that loaded the tables; and what they store."""
    if reuse:
        loads = json.loads(loads_file.read_text())
        log(f"querying the tables loaded before (load times from {loads_file.name})")
    else:
        loads_file.unlink(missing_ok=True)
        loads = load_all(spark, phoenix, admin, hbase, client_classpath, csv_dir, max_key, regions)
        loads_file.write_text(json.dumps(loads))
    on_disk = storage(spark, admin, hbase)
    for table, engines in on_disk.items():
        log(
            f"{table} on disk: "
            + ", ".join(f"{e} {s['bytes'] / 1e6:.1f} MB, {s['cellsPerRow']} cells a row" for e, s in engines.items())
        )
    check_layouts(on_disk)
    return loads, on_disk


def run_queries(spark, phoenix, hbase, admin, meter, all_queries, repeat, with_jdbc):
    """Every query on the four tables, and the floors of Spark through JDBC: (results, JDBC floors)."""
    thrift, client, phases_file = start_with_client(hbase, WORK, "phoenix", JDBC_WARM_UP) if with_jdbc else [None] * 3
    jdbc = (client, phases_file) if with_jdbc else None
    try:
        results = [
            run_query(spark, phoenix, jdbc, admin, meter, name, spark_sql, phoenix_sql, kind, repeat)
            for name, spark_sql, phoenix_sql, kind in all_queries
        ]
        return results, {JDBC_FLOOR: jdbc_floor(jdbc, repeat)} if jdbc else {}
    finally:
        if thrift:
            client.close()
            thrift.stop()


def report_of(args, scale, phoenix_jars, loads, on_disk, results, floors, price, reuse, began):
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
            "packedTableProperties": PHOENIX_PACKED_PROPERTIES,
        },
        "hbaseSiteSettings": MEASURE_SITE,
        "family": FAMILY,
        "loads": loads,
        "storage": on_disk,
        "queries": results,
        "sparkFloors": floors,
        "machine": machine(),
        "date": today(),
        "command": f"./benchmarks/run phoenix --scale {scale} --regions {args.regions} --repeat {args.repeat}"
        + (" --reuse" if reuse else "")
        + ("" if args.joins else " --no-joins"),
        "runSeconds": time.perf_counter() - began,
    }
    report["targets"] = targets(report)
    report["issue20Targets"] = issue20_targets(report)
    report["filteredOrdersPrice"] = str(price)
    report["issue36Targets"] = issue36_targets(report)
    report["issue52Targets"] = issue52_targets(report)
    return report


def main():
    args = arguments()
    scale = tpch_scale(args.scale)
    began = time.perf_counter()
    csv_dir = generate_csv(scale, tuple(TABLES))
    keys = order_keys(csv_dir)
    max_key = keys[-1]
    price = price_bound(csv_dir, FILTERED_ORDERS)
    loads_file = WORK / f"phoenix-loads-sf{scale}.json"  # what the run that loaded the tables measured
    reuse = reusable(loads_file, args.reuse)
    WORK.mkdir(parents=True, exist_ok=True)
    hbase, spark, phoenix, phoenix_jars, client_classpath = start(WORK, reuse)
    admin = hbase_admin(spark)
    try:
        loads, on_disk = loaded_tables(
            spark, phoenix, admin, hbase, client_classpath, csv_dir, max_key, args.regions, loads_file, reuse
        )
        meter = process_meter(hbase, spark, phoenix)
        all_queries = queries(keys, max_key) + (join_queries(price) if args.joins else [])
        results, jdbc_floors = run_queries(spark, phoenix, hbase, admin, meter, all_queries, args.repeat, args.jdbc)
        profile_region_server(spark, phoenix, RegionServerProfiler(hbase.pid, WORK), results)
        point_lookup = next(sql for _, sql, _, kind in queries(keys, max_key) if kind == LOOKUP)
        floors = {**spark_floors(spark, point_lookup, args.repeat), **jdbc_floors}
    finally:
        admin.close()
        phoenix.close()
        spark.stop()
        hbase.stop()
    report = report_of(args, scale, phoenix_jars, loads, on_disk, results, floors, price, reuse, began)
    write_results(f"phoenix-sf{scale}", report, markdown, chart)


if __name__ == "__main__":
    main()
