# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""`./benchmarks/run global_index`: see the package's docstring."""

import argparse
import time

from harness.common import WORK, log, machine, today, tpch_scale
from harness.data import LINEITEM_COLUMNS, LINEITEM_KEY, ORDERS_COLUMNS, generate_csv, in_file_order
from harness.phoenix import PHOENIX_VERSION, PhoenixJdbc, csv_bulk_load, hbase_with_phoenix
from harness.results import write_results
from harness.sessions import compact, hbase_admin, spark_session

from . import __doc__ as DOC
from .constants import (
    COVERED,
    COVERED_COLUMNS,
    ENGINES,
    HBASE_HEAP,
    INDEX_COLUMN,
    MEASURE_SITE,
    OURS_PACKED,
    PHOENIX,
    UNCOVERED,
)
from .measure import hbase_tables, rows_per_block, run_query, warm_up
from .queries import orders_keys, queries
from .report import chart, markdown, targets
from .tables import create, create_index, index_name, table_name
from .writes import build, write_cost


def arguments():
    parser = argparse.ArgumentParser(
        prog="./benchmarks/run global_index", description=DOC, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", type=float, default=1, help="TPC-H scale of the orders the queries read")
    parser.add_argument("--write-scale", type=float, default=0.1, help="TPC-H scale of the orders each write writes")
    parser.add_argument("--build-scale", type=float, default=1, help="TPC-H scale of the lineitem the build indexes")
    parser.add_argument("--regions", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per query and engine (median)")
    parser.add_argument("--repeat-writes", type=int, default=3, help="runs per writer and number of indexes")
    return parser.parse_args()


def splits_of(top, regions):
    return [top * i // regions for i in range(1, regions)]


def loaded_orders(spark, phoenix, hbase, classpath, csv, columns, splits):
    """The orders in the three tables, each with its two indexes of o_custkey, compacted: the seconds each took."""
    seconds = {}
    for engine in ENGINES:
        table = table_name(engine)
        create(
            spark,
            phoenix,
            engine,
            table,
            columns,
            ["o_orderkey"],
            splits,
            "PACKED" if engine == OURS_PACKED else "CELLS",
        )
        log(f"loading {csv.name} into {table}")
        start = time.perf_counter()
        if engine == PHOENIX:
            csv_bulk_load(hbase.conf_dir, classpath, hbase.zk_port, table, csv, WORK)
        else:
            spark.sql(f"LOAD DATA LOCAL INPATH '{csv}' INTO TABLE {table} OPTIONS (header 'true')").collect()
        seconds[engine] = {"load": time.perf_counter() - start}
        for covered in (False, True):
            index = index_name(engine, table, INDEX_COLUMN, covered)
            log(f"creating {index} on {table}")
            include = COVERED_COLUMNS if covered else ()
            seconds[engine][COVERED if covered else UNCOVERED] = create_index(
                spark, phoenix, engine, table, index, INDEX_COLUMN, include
            )
        for name in hbase_tables(engine).values():
            compact(spark, name)
    return seconds


def main():
    args = arguments()
    scale, write_scale, build_scale = tpch_scale(args.scale), tpch_scale(args.write_scale), tpch_scale(args.build_scale)
    began = time.perf_counter()
    orders_csv = generate_csv(scale, ("orders",)) / "orders.csv"
    write_csv = generate_csv(write_scale, ("orders",)) / "orders.csv"
    lineitem_csv = generate_csv(build_scale, ("lineitem",)) / "lineitem.csv"
    keys, customers = orders_keys(orders_csv)
    WORK.mkdir(parents=True, exist_ok=True)
    hbase, _, classpath = hbase_with_phoenix(WORK, "hbase-global-index", HBASE_HEAP, MEASURE_SITE, True, log)
    spark = spark_session(
        "spark-hbase-sql global index benchmark",
        hbase.data_dir,
        {"spark.ui.showConsoleProgress": "false", "spark.sql.shuffle.partitions": "4"},
    )
    phoenix = PhoenixJdbc(hbase.conf_dir, classpath, hbase.zk_port, WORK / "phoenix-client.log")
    admin = hbase_admin(spark)
    try:
        columns = in_file_order(orders_csv, ORDERS_COLUMNS)
        setup = loaded_orders(spark, phoenix, hbase, classpath, orders_csv, columns, splits_of(keys[-1], args.regions))
        per_block = rows_per_block(spark, admin, len(keys))
        warmed = warm_up(spark, phoenix, queries(keys, customers))
        results = [
            run_query(spark, phoenix, admin, hbase.pid, q, args.repeat, per_block) for q in queries(keys, customers)
        ]
        write_keys, _ = orders_keys(write_csv)
        write_columns = in_file_order(write_csv, ORDERS_COLUMNS)
        write_rows, writes = write_cost(
            spark,
            phoenix,
            write_csv,
            write_columns,
            ["o_orderkey"],
            splits_of(write_keys[-1], args.regions),
            args.repeat_writes,
        )
        line_columns = in_file_order(lineitem_csv, LINEITEM_COLUMNS)
        with lineitem_csv.open() as f:
            line_rows = sum(1 for _ in f) - 1
        built = build(
            spark,
            phoenix,
            hbase,
            classpath,
            lineitem_csv,
            line_columns,
            LINEITEM_KEY,
            splits_of(int(keys[-1] * build_scale / scale), args.regions),
            line_rows,
        )
    finally:
        admin.close()
        phoenix.close()
        spark.stop()
        hbase.stop()
    report = {
        "scale": scale,
        "writeScale": write_scale,
        "buildScale": build_scale,
        "regions": args.regions,
        "repeat": args.repeat,
        "repeatWrites": args.repeat_writes,
        "phoenixVersion": PHOENIX_VERSION,
        "orders": len(keys),
        "setupSeconds": setup,
        "indexRowsPerBlock": per_block,
        "warmUp": warmed,
        "queries": results,
        "writeRows": write_rows,
        "writes": writes,
        "build": built,
        "machine": machine(),
        "date": today(),
        "command": f"./benchmarks/run global_index --scale {scale} --write-scale {write_scale} --build-scale "
        f"{build_scale} --regions {args.regions} --repeat {args.repeat} --repeat-writes {args.repeat_writes}",
    }
    report["runSeconds"] = time.perf_counter() - began
    report["targets"] = targets(report)
    write_results(f"global_index-sf{scale}", report, markdown, chart)


if __name__ == "__main__":
    main()
