# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""TPC-H data from tpchgen-cli (Parquet and CSV), our tables of it and their loads, and tables made and dropped
as a user trying the project does."""

import subprocess
import sys
import time
from pathlib import Path

from .common import WORK, log
from .sessions import compact, start_session

LINEITEM_COLUMNS = [
    ("l_orderkey", "BIGINT", None),
    ("l_linenumber", "INT", None),
    ("l_partkey", "BIGINT", "f.pk"),
    ("l_suppkey", "BIGINT", "f.sk"),
    ("l_quantity", "DECIMAL(15,2)", "f.q"),
    ("l_extendedprice", "DECIMAL(15,2)", "f.ep"),
    ("l_discount", "DECIMAL(15,2)", "f.d"),
    ("l_tax", "DECIMAL(15,2)", "f.t"),
    ("l_returnflag", "STRING", "f.rf"),
    ("l_linestatus", "STRING", "f.ls"),
    ("l_shipdate", "DATE", "f.sd"),
    ("l_commitdate", "DATE", "f.cd"),
    ("l_receiptdate", "DATE", "f.rd"),
    ("l_shipinstruct", "STRING", "f.si"),
    ("l_shipmode", "STRING", "f.sm"),
    ("l_comment", "STRING", "f.c"),
]
ORDERS_COLUMNS = [
    ("o_orderkey", "BIGINT", None),
    ("o_custkey", "BIGINT", "f.ck"),
    ("o_orderstatus", "STRING", "f.os"),
    ("o_totalprice", "DECIMAL(15,2)", "f.tp"),
    ("o_orderdate", "DATE", "f.od"),
    ("o_orderpriority", "STRING", "f.op"),
    ("o_clerk", "STRING", "f.cl"),
    ("o_shippriority", "INT", "f.sp"),
    ("o_comment", "STRING", "f.c"),
]
LINEITEM_KEY = ["l_orderkey", "l_linenumber"]


def tpchgen(form, scale, tables, out):
    log(f"generating TPC-H {' and '.join(tables)} scale {scale} as {form} with tpchgen-cli")
    subprocess.run(
        [str(Path(sys.executable).parent / "tpchgen-cli"), form, "-s", str(scale), "--tables", ",".join(tables)]
        + ["-o", str(out)],
        check=True,
    )


def generate(scale):
    """The directory holding lineitem.parquet and orders.parquet at this TPC-H scale."""
    out = WORK / f"tpch-sf{scale}"
    if not (out / "lineitem.parquet").exists():
        tpchgen("parquet", scale, ("lineitem", "orders"), out)
    return out


def generate_csv(scale, tables=("lineitem",)):
    """The directory holding <table>.csv for each of `tables`, at this TPC-H scale."""
    out = WORK / f"tpch-csv-sf{scale}"
    if not all((out / f"{table}.csv").exists() for table in tables):
        tpchgen("csv", scale, tables, out)
    return out


def in_file_order(csv, columns):
    """The table's columns in the file's order: LOAD DATA and the CSV reader map fields by position."""
    header = csv.open().readline().strip().split(",")
    return sorted(columns, key=lambda c: header.index(c[0]))


def create_table(spark, name, columns, key, splits, family_settings=None, layout="CELLS"):
    """Our table; `family_settings` ({setting: value}) for family f, else HBase's defaults; `layout` "PACKED" for
    one cell per row and family, "CELLS" for one cell per column, None for what CREATE TABLE chooses (packed)."""
    cols = ", ".join(f"{c} {t}" for c, t, _ in columns)
    mapping = ", ".join(f"{c}={cell}" for c, _, cell in columns if cell)
    split = ", ".join(f"({s})" for s in splits)
    families = (
        f" FAMILIES (f ({', '.join(f'{k} = {v}' for k, v in family_settings.items())}))" if family_settings else ""
    )
    spark.sql(
        f"CREATE TABLE {name} ({cols}, PRIMARY KEY ({', '.join(key)})) "
        f"MAPPED BY ({name}, COLS=[{mapping}]){f' LAYOUT {layout}' if layout else ''}{families} SPLIT ON ({split})"
    )


def tpch_table_names(scale):
    suffix = str(scale).replace(".", "_")
    return f"bench_lineitem_sf{suffix}", f"bench_orders_sf{suffix}"


def load(spark, data, scale, regions):
    """Creates and fills the TPC-H tables unless an earlier run did: (lineitem, orders, max order key, the load
    seconds it measured)."""
    lineitem, orders = tpch_table_names(scale)
    spark.read.parquet(str(data / "lineitem.parquet")).createOrReplaceTempView("src_lineitem")
    spark.read.parquet(str(data / "orders.parquet")).createOrReplaceTempView("src_orders")
    max_key = spark.sql("SELECT max(o_orderkey) FROM src_orders").first()[0]
    splits = [max_key * i // regions for i in range(1, regions)]
    existing = {r.tableName for r in spark.sql("SHOW TABLES IN hbase").collect()}
    timings = {}
    for name, columns, key, source in [
        (lineitem, LINEITEM_COLUMNS, LINEITEM_KEY, "src_lineitem"),
        (orders, ORDERS_COLUMNS, ["o_orderkey"], "src_orders"),
    ]:
        seconds = load_table(spark, name, columns, key, splits, source, existing)
        if seconds is not None:
            timings[name] = seconds
    for name in (lineitem, orders):
        compact(spark, name)
    return lineitem, orders, max_key, timings


def load_table(spark, name, columns, key, splits, source, existing, layout="CELLS"):
    """Our table filled with INSERT ... SELECT from the `source` view unless it holds its rows: the seconds, or None."""
    expected = spark.table(source).count()
    if name in existing and spark.table(name).count() == expected:
        log(f"{name}: already loaded ({expected} rows)")
        return None
    if name in existing:  # an interrupted load: writing the same rows again finishes it
        spark.sql(f"DROP TABLE {name}")
    create_table(spark, name, columns, key, splits, layout=layout)
    select = ", ".join(f"CAST({c} AS {t})" for c, t, _ in columns)
    log(f"{name}: loading {expected} rows with INSERT ... SELECT (Puts)")
    start = time.perf_counter()
    spark.sql(f"INSERT INTO {name} SELECT {select} FROM {source}")
    seconds = time.perf_counter() - start
    log(f"{name}: loaded in {seconds:.1f} s")
    return seconds


def session_with_twins(benchmark, scale, regions):
    """A session on the benchmark HBase with the TPC-H lineitem table and its LAYOUT PACKED twin (the same rows and
    splits), loading either unless an earlier run did: (spark, hbase, {"cells": t, "packed": twin}, max order key,
    the cells tables' load seconds, the twin's INSERT seconds or None)."""
    data = generate(scale)
    spark, hbase = start_session(
        benchmark, {"spark.sql.shuffle.partitions": "4", "spark.ui.showConsoleProgress": "false"}
    )
    cells, _, max_key, load_times = load(spark, data, scale, regions)
    packed = cells.replace("bench_lineitem", "bench_lineitem_packed")
    existing = {r.tableName for r in spark.sql("SHOW TABLES IN hbase").collect()}
    splits = [max_key * i // regions for i in range(1, regions)]
    packed_load = load_table(spark, packed, LINEITEM_COLUMNS, LINEITEM_KEY, splits, "src_lineitem", existing, "PACKED")
    if packed_load is not None:
        compact(spark, packed)
    return spark, hbase, {"cells": cells, "packed": packed}, max_key, load_times, packed_load


def tables_made_and_dropped(spark, count, purge, label, every=100, sample=None):
    """`count` rounds of create, write 30 rows, read and drop (with PURGE or without, which keeps the HBase table
    and its regions); sample(tables so far) every `every` tables and at the end. Returns the seconds."""
    start = time.perf_counter()
    for i in range(count):
        t = f"heap_{label}_{i}"
        spark.sql(
            f"CREATE TABLE {t} (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ({t}, COLS=[v=f.v]) LAYOUT CELLS "
            "SPLIT ON ((10), (20))"
        )
        spark.sql(f"INSERT INTO {t} SELECT CAST(id AS INT), concat('v', id) FROM range(30)")
        got = spark.sql(f"SELECT count(*) FROM {t} WHERE k >= 5").first()[0]
        assert got == 25, (t, got)
        spark.sql(f"DROP TABLE {t}" + (" PURGE" if purge else ""))
        if sample and ((i + 1) % every == 0 or i + 1 == count):
            sample(i + 1)
    return time.perf_counter() - start
