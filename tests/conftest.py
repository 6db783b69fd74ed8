"""Shared fixtures: one real HBase and one Spark session for the whole pytest run.

The embedded HBase starts once per run in a temporary data dir and stops at the end. With
HBASE_CONF_DIR set, the tests use that HBase instead and start nothing.
"""

import os
import subprocess
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest
from pyspark_hbase.local import LocalHBase

SPARK_HBASE = str(Path(sys.executable).parent / "spark-hbase")


@pytest.fixture(scope="session")
def hbase(tmp_path_factory):
    """The LocalHBase the run uses, or None for an external HBase named by HBASE_CONF_DIR."""
    if os.environ.get("HBASE_CONF_DIR"):
        yield None
        return
    local = LocalHBase(tmp_path_factory.mktemp("hbase"))
    local.start()
    try:
        yield local
    finally:
        local.stop()


@pytest.fixture(scope="session")
def spark(hbase):
    from pyspark.sql import SparkSession
    from pyspark_hbase import enable_hbase

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("pyspark-hbase tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
    )
    session = enable_hbase(builder, data_dir=hbase.data_dir if hbase else None).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def data_dir_args(hbase):
    return ["--data-dir", str(hbase.data_dir)] if hbase else []


@pytest.fixture(scope="session")
def jdbc_url(hbase):
    """The JDBC URL of the run's Thrift server, started once as a user starts it, stopped at the end."""
    started = subprocess.run(
        [SPARK_HBASE, "thriftserver", "start", *data_dir_args(hbase)], capture_output=True, text=True, timeout=600
    )
    assert started.returncode == 0, started.stderr
    try:
        yield started.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run([SPARK_HBASE, "thriftserver", "stop", *data_dir_args(hbase)], timeout=120)


def port_of(jdbc_url: str) -> int:
    return int(jdbc_url.rsplit(":", 1)[1].split("/", 1)[0])


def jdbc_session(port: int, *statements: str) -> list:
    """Runs the statements through PyHive in one JDBC session of their own, closed at the end; the rows of each."""
    from pyhive import hive
    from pyspark_hbase.daemons import HOST

    connection = hive.connect(host=HOST, port=port)
    try:
        cursor = connection.cursor()
        results = []
        for statement in statements:
            cursor.execute(statement)
            results.append(cursor.fetchall() if cursor.description else [])
        return results
    finally:
        connection.close()


@contextmanager
def session_on(spark, local_hbase):
    """The run's Spark session, pointed at another embedded HBase for a while, then back."""
    from pyspark_hbase.session import hbase_settings

    settings = hbase_settings(data_dir=local_hbase.data_dir)
    saved = {key: spark.conf.get(key, None) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        yield spark
    finally:
        for key, value in saved.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


_FIGURES = []


@pytest.fixture(scope="session")
def figure():
    """Records a figure worth reporting (a size, a time), which the end of the run prints."""
    return lambda name, value: _FIGURES.append((name, value))


def pytest_terminal_summary(terminalreporter):
    if _FIGURES:
        terminalreporter.section("figures measured")
        for name, value in _FIGURES:
            terminalreporter.write_line(f"{name}: {value}")


@pytest.fixture
def table_name():
    """A table name no other test uses."""
    return f"t_{uuid.uuid4().hex[:10]}"
