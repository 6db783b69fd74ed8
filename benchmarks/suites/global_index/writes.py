# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""What indexes cost writers, and what building one costs.

The write cost: the same orders into a fresh table with no index, one (o_custkey) and three (o_custkey,
o_orderdate, o_clerk), each index made on the empty table first: ours by INSERT ... SELECT from a cached view
(Puts, which the region servers' observer turns into index rows) and by LOAD DATA (which writes the index rows'
HFiles in the same load), Phoenix's by UPSERT batches through its JDBC client. Every run into a table of its own.

The build: lineitem loaded into ours by LOAD DATA and into Phoenix's table by CsvBulkLoadTool, compacted, then a
global index of l_partkey made on each: ours by CREATE INDEX (a Spark job over the regions), Phoenix's by its
synchronous CREATE INDEX. Each index is then read against a full scan of its table, to check it holds every row."""

import statistics
import time

from harness.common import WORK, log
from harness.phoenix import csv_bulk_load, phoenix_type
from harness.sessions import compact

from .constants import BUILD_COLUMN, INDEX_COUNTS, OURS, PHOENIX, UPSERT_BATCH, WRITE_INDEX_COLUMNS
from .measure import SCRATCH
from .tables import create, create_index, drop, index_name, table_name

INSERT, LOAD_DATA, UPSERT = "ours INSERT", "ours LOAD DATA", "Phoenix UPSERT"
WRITERS = (INSERT, LOAD_DATA, UPSERT)


def cached_source(spark, csv, columns):
    """The CSV's rows as a cached temporary view `write_source`, typed as the table's columns."""
    schema = ", ".join(f"{c} {t}" for c, t, _ in columns)
    df = spark.read.option("header", "true").schema(schema).csv(str(csv)).cache()
    rows = df.count()
    df.createOrReplaceTempView("write_source")
    return rows


def write_once(spark, phoenix, writer, csv, columns, key, splits, indexes, run):
    """Seconds one writer took to write the CSV's rows into a fresh table with `indexes` indexes."""
    engine = PHOENIX if writer == UPSERT else OURS
    table = table_name(engine, "orders", f"_w{indexes}_{writer.split()[1].lower()}_{run}")
    drop(spark, phoenix, engine, table)
    create(spark, phoenix, engine, table, columns, key, splits)
    for column in WRITE_INDEX_COLUMNS[:indexes]:
        create_index(spark, phoenix, engine, table, index_name(engine, table, column), column)
    start = time.perf_counter()
    if writer == INSERT:
        names = ", ".join(c for c, _, _ in columns)
        spark.sql(f"INSERT INTO {table} SELECT {names} FROM write_source")
    elif writer == LOAD_DATA:
        spark.sql(f"LOAD DATA LOCAL INPATH '{csv}' INTO TABLE {table} OPTIONS (header 'true')").collect()
    else:
        upsert = f"UPSERT INTO {table} VALUES ({', '.join('?' for _ in columns)})"
        phoenix.load(upsert, csv, [phoenix_type(t).split("(")[0] for _, t, _ in columns], UPSERT_BATCH)
    seconds = time.perf_counter() - start
    drop(spark, phoenix, engine, table)
    return seconds


def write_cost(spark, phoenix, csv, columns, key, splits, repeat):
    """{writer: {indexes: {"seconds", "runs", "rowsPerSecond"}}}, and the rows written."""
    rows = cached_source(spark, csv, columns)
    runs = {w: {n: [] for n in INDEX_COUNTS} for w in WRITERS}
    for run in range(repeat):
        for n in INDEX_COUNTS:
            for writer in WRITERS:
                seconds = write_once(spark, phoenix, writer, csv, columns, key, splits, n, run)
                runs[writer][n].append(seconds)
                log(f"write cost: {writer}, {n} indexes, {rows} rows: {seconds:.2f} s ({rows / seconds:,.0f} rows/s)")
    spark.catalog.uncacheTable("write_source")
    return rows, {
        w: {
            str(n): {"seconds": statistics.median(r), "runs": r, "rowsPerSecond": rows / statistics.median(r)}
            for n, r in by_count.items()
        }
        for w, by_count in runs.items()
    }


def loaded_lineitem(spark, phoenix, hbase, classpath, csv, columns, key, splits):
    """lineitem in ours (LOAD DATA) and in Phoenix's table (CsvBulkLoadTool), compacted: {engine: load seconds}."""
    seconds = {}
    for engine in (OURS, PHOENIX):
        table = table_name(engine, "lineitem")
        drop(spark, phoenix, engine, table)
        create(spark, phoenix, engine, table, columns, key, splits)
        log(f"build: loading {csv.name} into {table}")
        start = time.perf_counter()
        if engine == OURS:
            spark.sql(f"LOAD DATA LOCAL INPATH '{csv}' INTO TABLE {table} OPTIONS (header 'true')").collect()
        else:
            csv_bulk_load(hbase.conf_dir, classpath, hbase.zk_port, table, csv, WORK)
        seconds[engine] = time.perf_counter() - start
        compact(spark, table)
    return seconds


def checked_count(spark, phoenix, engine, table, index, low, high):
    """Rows with l_partkey in [low, high], read through the index and by a full scan, which must agree."""
    where = f"{BUILD_COLUMN} BETWEEN {low} AND {high}"
    if engine == PHOENIX:
        through, scanned = (
            phoenix.query(f"SELECT {hint}count(*) FROM {table} WHERE {where}", 0, SCRATCH)["result"][0][0]
            for hint in (f"/*+ INDEX({table} {index}) */ ", "/*+ NO_INDEX */ ")
        )
    else:
        through = spark.sql(f"SELECT /*+ INDEX({table}, {index}) */ count(*) FROM {table} WHERE {where}").first()[0]
        scanned = spark.sql(f"SELECT /*+ NO_INDEX({table}) */ count(*) FROM {table} WHERE {where}").first()[0]
    if int(through) != int(scanned):
        raise RuntimeError(f"{index} on {table} finds {through} rows with {where}, a full scan {scanned}")
    return int(through)


def build(spark, phoenix, hbase, classpath, csv, columns, key, splits, rows):
    """Each engine's CREATE INDEX of l_partkey on the loaded lineitem: {"rows", "loadSeconds", engine: {...}}."""
    loads = loaded_lineitem(spark, phoenix, hbase, classpath, csv, columns, key, splits)
    found = {"rows": rows, "loadSeconds": loads}
    for engine in (PHOENIX, OURS):
        table = table_name(engine, "lineitem")
        index = index_name(engine, table, BUILD_COLUMN)
        log(f"build: CREATE INDEX {index} on {table} ({rows} rows)")
        seconds = create_index(spark, phoenix, engine, table, index, BUILD_COLUMN)
        checked = checked_count(spark, phoenix, engine, table, index, 1000, 1100)
        found[engine] = {"seconds": seconds, "rowsPerSecond": rows / seconds, "checkedRows": checked}
        log(f"build: {engine} built {index} in {seconds:.1f} s; {checked} rows of l_partkey 1000-1100 found alike")
    return found
