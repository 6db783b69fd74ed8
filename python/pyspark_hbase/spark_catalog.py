# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Where Spark keeps its own tables and views (spark.sql.catalogImplementation) in the applications
our launchers start: the Thrift server, the Connect server and the spark-sql CLI.

Spark's Thrift server and spark-sql keep them in Hive's metastore, a Derby database of their own
when none is configured. Every one-part table name is looked up there before it reaches the HBase
tables, a Thrift statement thread opens its own connection to it, and spark-sql opens it at every
start. So where no metastore is configured our launchers keep Spark's tables in memory, as pyspark
and Spark's Connect server do: they last as long as the application. Where one is, all three use
it.
"""

import os
from collections.abc import Mapping
from pathlib import Path

from pyspark_hbase._paths import spark_home

CATALOG_IMPLEMENTATIONS = ("in-memory", "hive")

# Spark's setting.
CATALOG_IMPLEMENTATION = "spark.sql.catalogImplementation"


def configured_catalog_implementation(environ: Mapping[str, str] = os.environ) -> str:
    """'hive' where Spark is set up with a Hive metastore, else 'in-memory': a hive-site.xml where
    Spark or Hive reads it, or spark.sql.catalogImplementation in spark-defaults.conf."""
    conf_dir = Path(environ.get("SPARK_CONF_DIR") or spark_home() / "conf")
    defaults = conf_dir / "spark-defaults.conf"
    if defaults.is_file():
        for line in defaults.read_text().splitlines():
            words = line.replace("=", " ", 1).split()
            if len(words) == 2 and words[0] == CATALOG_IMPLEMENTATION:
                return check_catalog_implementation(words[1], f"{CATALOG_IMPLEMENTATION} in {defaults}")
    dirs = [conf_dir] + [
        Path(environ[v]) for v in ("HADOOP_CONF_DIR", "YARN_CONF_DIR", "HIVE_CONF_DIR") if environ.get(v)
    ]
    return "hive" if any((d / "hive-site.xml").is_file() for d in dirs) else "in-memory"


class CatalogImplementationError(ValueError):
    """A catalog implementation that Spark does not have."""


def check_catalog_implementation(name: str, where: str = CATALOG_IMPLEMENTATION) -> str:
    if name not in CATALOG_IMPLEMENTATIONS:
        raise CatalogImplementationError(f"{where} is {name!r}: it can be {' or '.join(CATALOG_IMPLEMENTATIONS)}")
    return name
