# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Loading the same CSV files into the four tables of each TPC-H table: LOAD DATA into ours, UPSERT batches into
Phoenix's default table and UPSERT ... SELECT into its packed one, and Phoenix's own bulk path, CsvBulkLoadTool
(MapReduce, the local runner, writes HFiles, then HBase loads them), into a table that is checked and dropped."""

import time

from harness.common import WORK, log
from harness.data import create_table, in_file_order
from harness.phoenix import csv_bulk_load, phoenix_type
from harness.sessions import compact

from .constants import (
    ENGINES,
    FAMILY,
    ORDER_KEYED,
    OURS,
    OURS_PACKED,
    PHOENIX,
    PHOENIX_BULK,
    PHOENIX_PACKED,
    PHOENIX_PACKED_PROPERTIES,
    TABLES,
    UPSERT_BATCH,
)
from .tables import (
    create_phoenix,
    phoenix_name,
    phoenix_storage,
    region_start_keys,
    same_regions,
    table_name,
)


def max_first(csv):
    """The largest value of the CSV file's first column (a table's leading key)."""
    with csv.open() as f:
        next(f)
        return max(int(line.split(",", 1)[0]) for line in f)


def fingerprint(columns):
    """A query whose answer two tables with the same rows share: a count, sums of the numbers, maxima of the rest."""
    parts = ["count(*)"] + [
        f"{'sum' if t.startswith(('DECIMAL', 'BIGINT', 'INT')) else 'max'}({c})" for c, t, _ in columns
    ]
    return f"SELECT {', '.join(parts)} FROM {{}}"


def bulk_load_phoenix(phoenix, hbase, classpath, table, columns, key, splits, csv):
    """Phoenix's CsvBulkLoadTool into a table of its own, checked to hold the UPSERTed rows, then dropped."""
    bulk = phoenix_name(f"{table}_bulk")
    create_phoenix(phoenix, bulk, columns, key, splits)
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


def warm_up_loads(spark, csv, columns, key, splits):
    """An untimed LOAD DATA of the file into a scratch table of each layout, dropped after: the first LOAD DATA of
    a session took 5.4 s where the next ones took 1.4 to 2.4 s (orders at scale 0.01), whichever the layout."""
    for layout in ("PACKED", "CELLS"):
        name = f"ours_load_warm_up{'_packed' if layout == 'PACKED' else ''}"
        spark.sql(f"DROP TABLE IF EXISTS {name} PURGE")
        create_table(spark, name, columns, key, splits, FAMILY, layout=layout)
        spark.sql(f"LOAD DATA LOCAL INPATH '{csv}' INTO TABLE {name} OPTIONS (header 'true')").collect()
        spark.sql(f"DROP TABLE {name} PURGE")


def load_all(spark, phoenix, admin, hbase, classpath, csv_dir, max_key, regions):
    """Creates the four tables of each TPC-H table and loads them from the same files; returns the load seconds."""
    splits = [max_key * i // regions for i in range(1, regions)]
    log("LOAD DATA of orders into a scratch table of each layout, untimed")
    columns, key = TABLES["orders"]
    warm_up_loads(spark, csv_dir / "orders.csv", in_file_order(csv_dir / "orders.csv", columns), key, splits)
    loads = {}
    for table, (columns, key) in TABLES.items():
        csv = csv_dir / f"{table}.csv"
        columns = in_file_order(csv, columns)
        top = max_key if table in ORDER_KEYED else max_first(csv)  # customer: at its own keys' values
        splits = [top * i // regions for i in range(1, regions)]
        create_table(spark, table_name(OURS, table), columns, key, splits, FAMILY)
        # Ours packed is the table CREATE TABLE makes when the statement names no layout (tables.check_layouts).
        create_table(spark, table_name(OURS_PACKED, table), columns, key, splits, FAMILY, layout=None)
        create_phoenix(phoenix, table_name(PHOENIX, table), columns, key, splits)
        create_phoenix(phoenix, table_name(PHOENIX_PACKED, table), columns, key, splits, PHOENIX_PACKED_PROPERTIES)
        ours_keys = region_start_keys(spark, admin, table_name(OURS, table))
        for engine in (OURS_PACKED, PHOENIX, PHOENIX_PACKED):
            keys = region_start_keys(spark, admin, table_name(engine, table))
            if not same_regions(ours_keys, keys):
                raise RuntimeError(f"{table_name(engine, table)}'s regions start at {keys}, ours at {ours_keys}")
        packed_storage = phoenix_storage(phoenix, table_name(PHOENIX_PACKED, table))
        if not packed_storage["immutableRows"]:
            raise RuntimeError(f"{table_name(PHOENIX_PACKED, table)} is not immutable: {packed_storage}")
        seconds = {}
        # The packed table first: whatever the warm-up left cold cannot favour it.
        for engine in (OURS_PACKED, OURS):
            name = table_name(engine, table)
            log(f"{table}: loading {csv.name} with LOAD DATA into {name}")
            start = time.perf_counter()
            spark.sql(f"LOAD DATA LOCAL INPATH '{csv}' INTO TABLE {name} OPTIONS (header 'true')").collect()
            seconds[engine] = time.perf_counter() - start
        log(f"{table}: loading {csv.name} with Phoenix UPSERTs, {UPSERT_BATCH} rows a commit")
        upsert = f"UPSERT INTO {table_name(PHOENIX, table)} VALUES ({', '.join('?' for _ in columns)})"
        types = [phoenix_type(t).split("(")[0] for _, t, _ in columns]
        loaded = phoenix.load(upsert, csv, types, UPSERT_BATCH)
        seconds[PHOENIX] = loaded["seconds"]
        log(f"{table}: filling {table_name(PHOENIX_PACKED, table)} with UPSERT ... SELECT from its default table")
        seconds[PHOENIX_PACKED] = phoenix.execute(
            f"UPSERT INTO {table_name(PHOENIX_PACKED, table)} SELECT * FROM {table_name(PHOENIX, table)}"
        )
        loads[table] = {
            "rows": loaded["rows"],
            "bytes": csv.stat().st_size,
            "regions": len(ours_keys),
            **seconds,
            PHOENIX_BULK: bulk_load_phoenix(phoenix, hbase, classpath, table, columns, key, splits, csv),
            "phoenixPackedStorage": packed_storage,
        }
        log(
            f"{table}: {loaded['rows']} rows, LOAD DATA {seconds[OURS]:.1f} s, LOAD DATA packed "
            f"{seconds[OURS_PACKED]:.1f} s, Phoenix UPSERT {seconds[PHOENIX]:.1f} s, Phoenix packed UPSERT SELECT "
            f"{seconds[PHOENIX_PACKED]:.1f} s, CsvBulkLoadTool {loads[table][PHOENIX_BULK]:.1f} s"
        )
        for engine in ENGINES:
            compact(spark, table_name(engine, table))
        log(f"{table}: all four flushed and major-compacted")
    return loads
