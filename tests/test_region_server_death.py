# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The only region server of an embedded HBase dies while a statement reads: the statement fails
in bounded time, naming HBase, and never hangs in the HBase client's retries.

A region server that dies of OutOfMemoryError exits (-XX:+ExitOnOutOfMemoryError), as SIGKILL
makes it; with one region server, the master and ZooKeeper in that JVM go with it.
"""

import os
import signal
import threading
import time

import pytest
from conftest import session_on
from pyspark_hbase.local import LocalHBase

# docs/development.md, "Its memory": a region server that dies fails a statement within a minute.
BOUND_SECONDS = 60


@pytest.fixture
def lone_hbase(tmp_path):
    if os.environ.get("HBASE_CONF_DIR"):
        pytest.skip("needs an embedded HBase of its own, to kill it")
    local = LocalHBase(tmp_path / "hbase")
    local.start()
    try:
        yield local
    finally:
        local.stop()


@pytest.fixture
def pointed_at(spark, lone_hbase):
    with session_on(spark, lone_hbase) as session:
        yield session


def test_the_only_region_server_killed_during_a_read_fails_the_statement_in_bounded_time_naming_hbase(
    pointed_at, lone_hbase, table_name
):
    spark = pointed_at
    spark.sql(f"CREATE TABLE {table_name} (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY ({table_name}, COLS=[v=f.v])")
    spark.sql(f"INSERT INTO {table_name} SELECT CAST(id AS INT), concat('v', id) FROM range(20000)")
    killed_at = []

    def kill():
        killed_at.append(time.monotonic())
        os.kill(lone_hbase.pid, signal.SIGKILL)

    # Small batches and a pause every 100 rows keep the scanner open when the kill lands.
    spark.conf.set("spark.sql.hbase.scanner.fetchsize", "100")
    slow = f"SELECT count(*) FROM {table_name} WHERE reflect('java.lang.Thread', 'sleep', CAST(IF(k % 100 = 0, 40, 0) AS BIGINT)) IS NOT NULL"
    timer = threading.Timer(2.0, kill)
    try:
        timer.start()
        with pytest.raises(Exception) as failed:
            spark.sql(slow).collect()
    finally:
        timer.cancel()
        spark.conf.unset("spark.sql.hbase.scanner.fetchsize")
    assert killed_at, "the statement ended before the kill"
    took = time.monotonic() - killed_at[0]
    assert took < BOUND_SECONDS, f"failed {took:.0f} s after the kill"
    message = str(failed.value)
    assert (
        f"HBase table {table_name}: reading region" in message and "from region server 127.0.0.1:" in message
    ) or "HBase could not be reached at ZooKeeper 127.0.0.1:" in message, message[:3000]
