# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Spark Connect: `spark-hbase connect` runs Spark's Connect server with the plugin, and a thin
pyspark client (no JVM of its own) creates, writes, loads, reads and drops HBase tables."""

import subprocess
import sys
import time
from pathlib import Path

import pytest
from pyspark_hbase import HBaseSessionError, enable_hbase, scan_metrics
from pyspark_hbase.connect import ConnectServer

SPARK_HBASE = str(Path(sys.executable).parent / "spark-hbase")


def _spark_hbase(*args, timeout=600):
    return subprocess.run([SPARK_HBASE, *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def connect_url(hbase):
    data_dir = ["--data-dir", str(hbase.data_dir)] if hbase else []
    started = _spark_hbase("connect", "start", *data_dir)
    assert started.returncode == 0, started.stderr
    try:
        yield started.stdout.strip().splitlines()[-1]
    finally:
        _spark_hbase("connect", "stop", *data_dir, timeout=120)


@pytest.fixture(scope="module")
def remote(connect_url):
    # The Connect session's own builder: SparkSession.builder.remote() refuses to make one in a
    # process that already runs a classic session, as this test run does for other modules.
    from pyspark.sql.connect.session import SparkSession as RemoteSparkSession

    session = RemoteSparkSession.builder.remote(connect_url).getOrCreate()
    try:
        yield session
    finally:
        session.stop()


def test_start_prints_a_loopback_url_and_status_and_a_second_start_agree(connect_url, hbase):
    assert connect_url.startswith("sc://127.0.0.1:")
    data_dir = ["--data-dir", str(hbase.data_dir)] if hbase else []
    status = _spark_hbase("connect", "status", *data_dir)
    assert status.returncode == 0 and status.stdout.strip() == connect_url
    again = _spark_hbase("connect", "start", *data_dir)
    assert again.stdout.strip() == connect_url, "a second start reuses the running server"


def test_the_client_is_a_connect_session_without_a_jvm(remote):
    assert type(remote).__module__ == "pyspark.sql.connect.session"


def test_spark_s_own_tables_are_kept_in_memory_with_files_the_next_start_removes(remote, hbase):
    """No Hive metastore is configured here; as on the Thrift server, the warehouse is the server's own and emptied
    at each start, so that a Spark table's files do not outlive its catalog entry and refuse one of its name."""
    (implementation,) = remote.sql("SET spark.sql.catalogImplementation").collect()
    assert implementation.value == "in-memory"
    server = ConnectServer(hbase.data_dir if hbase else None)
    assert remote.conf.get("spark.sql.warehouse.dir").endswith(str(server.dir / "in-memory-warehouse"))


def test_sql_statements_with_key_predicates_load_data_and_drop(remote, table_name, tmp_path):
    remote.sql(
        f"CREATE TABLE {table_name} (k INT, s STRING, v DOUBLE, PRIMARY KEY (k, s)) "
        f"MAPPED BY ({table_name}, COLS=[v=f.v]) SPLIT ON ((50))"
    )
    remote.sql(f"INSERT INTO {table_name} VALUES (1, 'a', 1.5), (2, 'b', 2.5), (60, 'a', 60.5)")
    (tmp_path / "rows.csv").write_text("".join(f"{k},c,{k}.25\n" for k in range(70, 80)))
    loaded = remote.sql(f"LOAD DATA LOCAL INPATH '{tmp_path}' INTO TABLE {table_name}").collect()
    assert [tuple(r) for r in loaded] == [(10, 0)]

    keyed = remote.sql(f"SELECT k, v FROM {table_name} WHERE k IN (2, 75)")
    assert sorted(tuple(r) for r in keyed.collect()) == [(2, 2.5), (75, 75.25)]
    metrics = scan_metrics(keyed)
    assert metrics["rowsScanned"] == 2 and metrics["regionsScanned"] == 2, metrics
    skip = remote.sql(f"SELECT k FROM {table_name} WHERE s = 'a'")
    assert sorted(r.k for r in skip.collect()) == [1, 60]
    assert scan_metrics(skip)["rowsRead"] == 2
    assert remote.sql(f"SELECT count(*), sum(v) FROM {table_name}").first()[0] == 13
    plan = remote.sql(f"EXPLAIN SELECT * FROM {table_name} WHERE k = 2 AND s = 'b'").first()[0]
    assert "regions 1 of 2, 1 key ranges (=2, =b), 1 Gets" in plan, plan

    remote.sql(f"DROP TABLE {table_name}")
    assert [r for r in remote.sql(f"SHOW TABLES IN hbase LIKE '{table_name}'").collect()] == []


def test_dataframe_reader_table_and_writer(remote, table_name):
    remote.sql(
        f"CREATE TABLE {table_name} (k BIGINT, v STRING, PRIMARY KEY (k)) MAPPED BY ({table_name}, COLS=[v=f.v])"
    )
    remote.range(0, 20).selectExpr("id AS k", "CAST(id * id AS STRING) AS v").write.format("hbase").option(
        "table", table_name
    ).mode("append").save()
    read = remote.read.format("hbase").option("table", table_name).load()
    assert read.filter("k = 12").first().v == "144"
    assert remote.table(table_name).count() == 20
    assert remote.table(f"hbase.{table_name}").filter("k >= 15").count() == 5


def test_scan_metrics_before_any_action_are_zero(remote, table_name):
    remote.sql(f"CREATE TABLE {table_name} (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ({table_name}, COLS=[v=f.v])")
    assert set(scan_metrics(remote.sql(f"SELECT * FROM {table_name}")).values()) == {0}


def test_enable_hbase_on_a_remote_builder_says_to_start_a_connect_server(remote):
    from pyspark.sql import SparkSession

    for target in (SparkSession.builder.remote("sc://127.0.0.1:1"), remote):
        with pytest.raises(HBaseSessionError, match="spark-hbase connect start"):
            enable_hbase(target)


def test_a_stream_of_changes_started_from_the_thin_client(remote, table_name, tmp_path):
    remote.sql(f"CREATE TABLE {table_name} (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ({table_name}, COLS=[v=f.v])")
    remote.conf.set("spark.sql.hbase.changes.lagMillis", "300")
    name = f"changes_{table_name}"
    query = (
        remote.readStream.format("hbase")
        .option("table", table_name)
        .load()
        .writeStream.format("memory")
        .queryName(name)
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(processingTime="200 milliseconds")
        .start()
    )
    try:
        remote.sql(f"INSERT INTO {table_name} VALUES (1, 10), (2, 20)")
        remote.sql(f"DELETE FROM {table_name} WHERE k = 2")
        expected = {1: (10, "upsert"), 2: (None, "delete")}
        deadline = time.time() + 30
        while True:
            rows = remote.table(name).collect()
            latest = {r.k: (r.v, r._change_type) for r in sorted(rows, key=lambda r: r._commit_timestamp)}
            if latest == expected or time.time() > deadline:
                break
            time.sleep(0.2)
        assert latest == expected, rows
        assert query.isActive
    finally:
        query.stop()
        remote.conf.unset("spark.sql.hbase.changes.lagMillis")


def test_a_streaming_query_from_the_thin_client_writes_into_an_hbase_table(remote, table_name, tmp_path):
    remote.sql(
        f"CREATE TABLE {table_name} (id INT, label STRING, PRIMARY KEY (id)) "
        f"MAPPED BY ({table_name}, COLS=[label=f.label])"
    )
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    source.mkdir()
    (source / "a.json").write_text("".join(f'{{"id": {i}, "name": "a{i}"}}\n' for i in range(10)))

    def run(write):
        stream = (
            remote.readStream.schema("id INT, name STRING").json(str(source)).selectExpr("id", "upper(name) AS label")
        )
        query = write(stream.writeStream.option("checkpointLocation", str(checkpoint)).trigger(availableNow=True))
        query.awaitTermination(120)
        return query.lastProgress

    first = run(lambda w: w.format("hbase").option("table", table_name).start())
    assert first["sink"]["metrics"]["numOutputRows"] == "10"
    (source / "b.json").write_text('{"id": 3, "name": "b3"}\n{"id": 42, "name": "b42"}\n')
    second = run(lambda w: w.toTable(f"hbase.{table_name}"))
    assert second["sink"]["numOutputRows"] == 2
    rows = {r.id: r.label for r in remote.table(table_name).collect()}
    assert rows == {**{i: f"A{i}" for i in range(10)}, 3: "B3", 42: "B42"}
