# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Spark's own command-line clients (spark-sql, spark-submit, pyspark) wired to HBase."""

import os
import shlex
import subprocess
from pathlib import Path
from typing import Optional

from pyspark_hbase import _paths
from pyspark_hbase._paths import spark_home
from pyspark_hbase.local import LocalHBase
from pyspark_hbase.session import submit_args
from pyspark_hbase.spark_catalog import CATALOG_IMPLEMENTATION, configured_catalog_implementation


def conf_flags(data_dir=None) -> str:
    """Flags for spark-submit, spark-sql and pyspark, as one shell-quoted line."""
    return " ".join(shlex.quote(a) for a in submit_args(data_dir=data_dir))


def spark_sql_command(sql_args: list[str], data_dir=None, work_dir: Optional[Path] = None) -> list[str]:
    """A spark-sql invocation that talks to HBase; `sql_args` (-e, -f, ...) pass through."""
    work = Path(work_dir) if work_dir else LocalHBase(data_dir).data_dir / "spark"
    work.mkdir(parents=True, exist_ok=True)
    # spark-sql keeps a warehouse (and a Derby metastore, with Hive's catalog); keep them out of the
    # user's working dir, and its log in a file, so the terminal shows results and warnings only.
    driver_options = [f"-Dderby.system.home={work}", f"-Dspark.hbase.log.file={work / 'spark-sql.log'}"]
    log_config = _log_config()
    if log_config:
        driver_options.append(f"-Dlog4j2.configurationFile={log_config}")
    # Spark's own tables: in memory unless a Hive metastore is configured (spark_catalog); an
    # implementation given in `sql_args` comes later, and wins.
    catalog = configured_catalog_implementation()
    local_state = [
        "--conf",
        f"{CATALOG_IMPLEMENTATION}={catalog}",
        "--conf",
        f"spark.sql.warehouse.dir={work / ('warehouse' if catalog == 'hive' else 'in-memory-warehouse')}",
        "--driver-java-options",
        " ".join(driver_options),
        "--conf",
        "spark.ui.enabled=false",
    ]
    return [str(spark_home() / "bin" / "spark-sql"), *submit_args(data_dir=data_dir), *local_state, *sql_args]


def _log_config() -> Optional[Path]:
    try:
        config = _paths.conf_dir() / "log4j2.properties"
    except _paths.PathsError:
        return None
    return config if config.is_file() else None


def run_spark_sql(sql_args: list[str], data_dir=None) -> int:
    # Loopback, like the embedded HBase; it also silences Spark's hostname warning.
    env = dict(os.environ, SPARK_HOME=str(spark_home()))
    env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    return subprocess.call(spark_sql_command(sql_args, data_dir), env=env)
