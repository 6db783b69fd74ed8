# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Apache Phoenix beside us on one embedded HBase, for the benchmarks that compare with it: its jars from Maven
Central (install), its thick JDBC client in a JVM of its own (client), its tables and bulk load, and the HBase that has Phoenix's jars."""

import shutil

from harness.platform import Additions, LocalHBase, hbase_classpath

from .bulk_load import csv_bulk_load
from .client import PhoenixError, PhoenixJdbc
from .install import PHOENIX_COMPAT, PHOENIX_MODULES, PHOENIX_VERSION, install
from .tables import PHOENIX_TYPES, create_table, phoenix_type

__all__ = [
    "PHOENIX_COMPAT",
    "PHOENIX_MODULES",
    "PHOENIX_SITE",
    "PHOENIX_TYPES",
    "PHOENIX_VERSION",
    "PhoenixError",
    "PhoenixJdbc",
    "create_table",
    "csv_bulk_load",
    "hbase_with_phoenix",
    "install",
    "phoenix_type",
]

# Phoenix's documented server setting: its global indexes replay their updates from the WAL.
PHOENIX_SITE = {"hbase.regionserver.wal.codec": "org.apache.hadoop.hbase.regionserver.wal.IndexedWALEditCodec"}


def hbase_with_phoenix(work, name, heap, site_settings, fresh, log):
    """Phoenix installed under `work`, and an embedded HBase (work/name, fresh unless not `fresh`) started with
    Phoenix's jars after its own and these site settings besides Phoenix's: (hbase, Phoenix's jars, the classpath
    Phoenix's client and tools need)."""

    classpath = hbase_classpath()
    phoenix_jars = install(work, classpath, log)
    hbase = LocalHBase(work / name, heap=heap, site_settings={**PHOENIX_SITE, **site_settings})
    hbase.stop()
    if fresh:
        shutil.rmtree(hbase.data_dir, ignore_errors=True)
    log(f"starting HBase with Phoenix {PHOENIX_VERSION}'s jars ({len(phoenix_jars)}) after its own")
    hbase.start(progress=log, additions=Additions(classpath=tuple(str(j) for j in phoenix_jars)))
    return hbase, phoenix_jars, classpath + phoenix_jars
