# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Spark's own command-line clients (spark-sql, spark-submit, pyspark) wired to HBase."""

import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import Optional

from pyspark_hbase import _paths
from pyspark_hbase._paths import spark_home
from pyspark_hbase.local import LocalHBase
from pyspark_hbase.session import submit_args
from pyspark_hbase.spark_catalog import (
    CATALOG_IMPLEMENTATION,
    check_catalog_implementation,
    configured_catalog_implementation,
)


def conf_flags(data_dir=None) -> str:
    """Flags for spark-submit, spark-sql and pyspark, as one shell-quoted line."""
    return " ".join(shlex.quote(a) for a in submit_args(data_dir=data_dir))


def spark_sql_command(sql_args: list[str], data_dir, catalog: str, warehouse: Path) -> list[str]:
    """A spark-sql invocation that talks to HBase; `sql_args` (-e, -f, ...) pass through. Spark's own
    tables are kept as `catalog` says (catalog_implementation), their files in `warehouse`."""
    work = work_dir(data_dir)
    # spark-sql keeps a warehouse (and a Derby metastore, with Hive's catalog); keep them out of the
    # user's working dir, and its log in a file, so the terminal shows results and warnings only.
    driver_options = [f"-Dderby.system.home={work}", f"-Dspark.hbase.log.file={work / 'spark-sql.log'}"]
    log_config = _log_config()
    if log_config:
        driver_options.append(f"-Dlog4j2.configurationFile={log_config}")
    local_state = [
        "--conf",
        f"{CATALOG_IMPLEMENTATION}={catalog}",
        "--conf",
        f"spark.sql.warehouse.dir={warehouse}",
        "--driver-java-options",
        " ".join(driver_options),
        "--conf",
        "spark.ui.enabled=false",
    ]
    return [str(spark_home() / "bin" / "spark-sql"), *submit_args(data_dir=data_dir), *local_state, *sql_args]


def work_dir(data_dir=None) -> Path:
    """Where spark-sql's files go: under the local HBase's data dir."""
    work = LocalHBase(data_dir).data_dir / "spark"
    work.mkdir(parents=True, exist_ok=True)
    return work


def catalog_implementation(sql_args: list[str]) -> str:
    """Where spark-sql keeps Spark's own tables: as `--conf spark.sql.catalogImplementation=...` in
    its arguments says, else in memory unless a Hive metastore is configured (spark_catalog)."""
    prefix = f"{CATALOG_IMPLEMENTATION}="
    given = [b for a, b in zip(sql_args, sql_args[1:]) if a == "--conf" and b.startswith(prefix)]
    given += [a.removeprefix("--conf=") for a in sql_args if a.startswith(f"--conf={prefix}")]
    return check_catalog_implementation(given[-1][len(prefix) :]) if given else configured_catalog_implementation()


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
    catalog = catalog_implementation(sql_args)
    if catalog == "hive":
        # A Hive metastore keeps the tables that live in the work dir's warehouse.
        warehouse = work_dir(data_dir) / "warehouse"
        return subprocess.call(spark_sql_command(sql_args, data_dir, catalog, warehouse), env=env)
    # In memory, Spark's tables end with the run, and so do their files: left behind, they would
    # refuse a table of the same name in a later run.
    runs = work_dir(data_dir) / "in-memory-warehouses"
    runs.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="run-", dir=runs) as warehouse:
        return subprocess.call(spark_sql_command(sql_args, data_dir, catalog, Path(warehouse)), env=env)
