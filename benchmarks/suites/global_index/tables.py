# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The tables and indexes of each engine: names, HBase tables, creation, and what HBase says of their regions."""

import time

from harness.data import create_table
from harness.phoenix import create_table as create_phoenix

from .constants import FAMILY, OURS_PACKED, PHOENIX


def table_name(engine, table="orders", suffix=""):
    """ours_orders, ours_orders_packed, PHOENIX_ORDERS; `suffix` for the write cost's and build's tables."""
    packed = "_packed" if engine == OURS_PACKED else ""
    return f"PHOENIX_{table.upper()}{suffix.upper()}" if engine == PHOENIX else f"ours_{table}{suffix}{packed}"


def index_name(engine, table, column, covered=False):
    name = f"by_{column.split('_', 1)[1]}{'_cov' if covered else ''}"
    return f"{table}_{name}".upper() if engine == PHOENIX else name


def index_table(engine, table, index):
    """The HBase table holding the index: Phoenix's is named as the index, ours `<data table>.<index>.idx`."""
    return index if engine == PHOENIX else f"{table}.{index}.idx"


def create(spark, phoenix, engine, name, columns, key, splits, layout="CELLS"):
    if engine == PHOENIX:
        create_phoenix(phoenix, name, columns, key, splits, FAMILY)
    else:
        create_table(spark, name, columns, key, splits, FAMILY, layout=layout)


def create_index(spark, phoenix, engine, table, index, column, include=()):
    """A global index of `column`, covering `include` (none: uncovered); seconds it took, the build included."""
    if engine == PHOENIX:
        covered = f" INCLUDE ({', '.join(include)})" if include else ""
        return phoenix.execute(f"CREATE {'' if include else 'UNCOVERED '}INDEX {index} ON {table} ({column}){covered}")
    options = f" OPTIONS (include '{', '.join(include)}')" if include else ""
    start = time.perf_counter()
    spark.sql(f"CREATE INDEX {index} ON TABLE {table} USING global ({column}){options}").collect()
    return time.perf_counter() - start


def drop(spark, phoenix, engine, table):
    if engine == PHOENIX:
        phoenix.execute(f"DROP TABLE IF EXISTS {table}")
    else:
        spark.sql(f"DROP TABLE IF EXISTS {table} PURGE")


def region_counters(spark, admin, name):
    """{region name: rows its scanners returned and its filters dropped so far} of an HBase table."""
    jvm = spark._jvm
    table = jvm.org.apache.hadoop.hbase.TableName.valueOf(name)
    found = {}
    for server in admin.getRegionServers():
        for region in admin.getRegionMetrics(server, table):
            found[bytes(region.getRegionName()).hex()] = (
                region.getReadRequestCount() + region.getFilteredReadRequestCount()
            )
    return found


def store_bytes(spark, admin, name):
    """The bytes of the table's store files, as its region servers report them."""
    jvm = spark._jvm
    table = jvm.org.apache.hadoop.hbase.TableName.valueOf(name)
    unit = jvm.org.apache.hadoop.hbase.Size.Unit.BYTE
    return int(
        sum(
            region.getStoreFileSize().get(unit)
            for server in admin.getRegionServers()
            for region in admin.getRegionMetrics(server, table)
        )
    )


def key_of(start_key):
    """A BIGINT leading key's value from a region boundary (big-endian, sign bit flipped; both engines')."""
    if not start_key:
        return None
    padded = (bytes(start_key) + bytes(8))[:8]
    return int.from_bytes(padded, "big") ^ (1 << 63)


def regions_by_start(spark, admin, name):
    """[(region name, first key or None, end key or None)] of a table keyed by a BIGINT."""
    table = spark._jvm.org.apache.hadoop.hbase.TableName.valueOf(name)
    return [
        (bytes(r.getRegionName()).hex(), key_of(r.getStartKey()), key_of(r.getEndKey()))
        for r in admin.getRegions(table)
    ]


def regions_holding(regions, keys):
    """The names of the regions whose range holds one of the keys."""
    return {
        name
        for name, start, end in regions
        if any((start is None or k >= start) and (end is None or k < end) for k in keys)
    }
