# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The four tables of each TPC-H table (ours, ours packed, Phoenix's default and packed): their names, how Phoenix's
are created, their regions, and what they store on disk."""

import time

from harness.common import WORK
from harness.phoenix import create_table

from .constants import (
    ENGINES,
    FAMILY,
    OURS,
    OURS_PACKED,
    PHOENIX,
    PHOENIX_PACKED,
    STORE_FILES_WAIT_SECONDS,
    TABLES,
)


def ours_name(table):
    return f"ours_{table}"


def phoenix_name(table):
    return f"PHOENIX_{table.upper()}"


def is_phoenix(engine):
    return engine in (PHOENIX, PHOENIX_PACKED)


def table_name(engine, table):
    """The engine's table of TPC-H's `table`: ours_lineitem, ours_lineitem_packed, PHOENIX_LINEITEM, ..."""
    packed = f"{table}_packed" if engine in (OURS_PACKED, PHOENIX_PACKED) else table
    return phoenix_name(packed) if is_phoenix(engine) else ours_name(packed)


def create_phoenix(phoenix, name, columns, key, splits, properties=None):
    """A Phoenix table with the FAMILY settings and `properties` ({name: value}) besides, else Phoenix's defaults."""
    create_table(phoenix, name, columns, key, splits, FAMILY, properties)


def phoenix_storage(phoenix, name):
    """What Phoenix's catalog holds for the table: IMMUTABLE_ROWS, and its storage and qualifier encoding schemes
    as the bytes it stores for them."""
    rows = phoenix.query(
        "SELECT IMMUTABLE_ROWS, IMMUTABLE_STORAGE_SCHEME, ENCODING_SCHEME FROM SYSTEM.CATALOG "
        f"WHERE TABLE_SCHEM IS NULL AND TABLE_NAME = '{name}' AND COLUMN_NAME IS NULL AND COLUMN_FAMILY IS NULL",
        0,
        WORK / "phoenix-rows.jsonl",
    )["result"]
    immutable, scheme, encoding = rows[0]
    return {"immutableRows": immutable, "immutableStorageScheme": scheme, "encodingScheme": encoding}


def region_start_keys(spark, admin, name):
    regions = admin.getRegions(spark._jvm.org.apache.hadoop.hbase.TableName.valueOf(name))
    return sorted(bytes(r.getStartKey()).hex() for r in regions)


def same_regions(ours_keys, their_keys):
    """Phoenix pads a split point with zero bytes to the key's full width (l_linenumber's lowest value, below any
    stored one): its regions hold the same rows as ours."""
    return len(ours_keys) == len(their_keys) and all(
        t.startswith(o) and set(t[len(o) :]) <= {"0"} for o, t in zip(ours_keys, their_keys)
    )


def cells_in_first_row(spark, admin, name):
    """How many cells the table's first row is stored as: what its layout makes of one row."""
    jvm = spark._jvm
    table = admin.getConnection().getTable(jvm.org.apache.hadoop.hbase.TableName.valueOf(name))
    try:
        scanner = table.getScanner(jvm.org.apache.hadoop.hbase.client.Scan().setLimit(1))
        try:
            return scanner.next().size()
        finally:
            scanner.close()
    finally:
        table.close()


def store_files(hbase, name):
    """The table's store files under the embedded HBase's root directory, by store (region and family)."""
    table_dir = hbase.data_dir / "hbase" / "data" / "default" / name
    stores = [
        store
        for region in table_dir.iterdir()
        if region.is_dir() and not region.name.startswith(".")
        for store in region.iterdir()
        if store.is_dir() and not store.name.startswith(".") and store.name != "recovered.edits"
    ]
    return {store: [f for f in store.iterdir() if f.is_file() and not f.name.startswith(".")] for store in stores}


def bytes_on_disk(hbase, name):
    """{"bytes", "storeFiles", "stores"}: the store files of the table once each store holds the one file its major
    compaction wrote (the files it replaced are archived by the region server's chore a little later)."""
    deadline = time.monotonic() + STORE_FILES_WAIT_SECONDS
    while True:
        files = store_files(hbase, name)
        if all(len(f) <= 1 for f in files.values()) or time.monotonic() > deadline:
            break
        time.sleep(2)
    every = [f for fs in files.values() for f in fs]
    return {"bytes": sum(f.stat().st_size for f in every), "storeFiles": len(every), "stores": len(files)}


def storage(spark, admin, hbase):
    """For each TPC-H table and engine: its bytes on disk and how many cells its first row is."""
    return {
        table: {
            engine: {
                "table": table_name(engine, table),
                **bytes_on_disk(hbase, table_name(engine, table)),
                "cellsPerRow": cells_in_first_row(spark, admin, table_name(engine, table)),
            }
            for engine in ENGINES
        }
        for table in TABLES
    }


def check_layouts(on_disk):
    """Each packed table stores a row in fewer cells than its engine's default table, or it is not packed."""
    for engines in on_disk.values():
        for default, packed in ((OURS, OURS_PACKED), (PHOENIX, PHOENIX_PACKED)):
            if engines[packed]["cellsPerRow"] >= engines[default]["cellsPerRow"]:
                raise RuntimeError(
                    f"{engines[packed]['table']} stores a row as {engines[packed]['cellsPerRow']} cells, "
                    f"{engines[default]['table']} as {engines[default]['cellsPerRow']}: it is not packed"
                )
