# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The changes of a table (issue 37) from pyspark: a stream of them, fed by our writes and by a plain HBase
client's Puts and Deletes through py4j, and the batch forms (option changesSince, hbase_changes)."""

import time

import pytest

LAG = "300"


class PlainHBase:
    """HBase's own client, through py4j, on the plugin's shared connection: writes no plugin code makes."""

    def __init__(self, spark, table):
        jvm = spark._jvm
        self.jvm = jvm
        self.cluster = jvm.org.apache.spark.sql.hbase.connection.HBaseClusterConf.fromSession(spark._jsparkSession)
        self.connections = jvm.org.apache.spark.sql.hbase.connection.HBaseConnections
        connection = self.connections.borrow(self.cluster)
        self.table = connection.getTable(jvm.org.apache.hadoop.hbase.TableName.valueOf(table))

    def put(self, key: str, value: str):
        put = self.jvm.org.apache.hadoop.hbase.client.Put(key.encode())
        self.table.put(put.addColumn(b"f", b"v", value.encode()))

    def delete(self, key: str):
        self.table.delete(self.jvm.org.apache.hadoop.hbase.client.Delete(key.encode()))

    def close(self):
        self.table.close()
        self.connections.release(self.cluster)


@pytest.fixture
def string_table(spark, table_name):
    spark.sql(
        f"CREATE TABLE {table_name} (k STRING, v STRING, PRIMARY KEY (k)) "
        f"MAPPED BY ({table_name}, COLS=[v=f.v]) IN StringFormat"
    )
    return table_name


def _wait_for(check, seconds=30):
    deadline = time.time() + seconds
    while True:
        try:
            return check()
        except AssertionError:
            if time.time() > deadline:
                raise
            time.sleep(0.2)


def test_a_stream_delivers_our_writes_and_a_plain_clients_once_each_with_deletes(spark, string_table, tmp_path):
    spark.conf.set("spark.sql.hbase.changes.lagMillis", LAG)
    name = f"changes_{string_table}"
    query = (
        spark.readStream.format("hbase")
        .option("table", string_table)
        .load()
        .writeStream.format("memory")
        .queryName(name)
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(processingTime="200 milliseconds")
        .start()
    )
    plain = PlainHBase(spark, string_table)
    try:
        spark.sql(f"INSERT INTO {string_table} VALUES ('a', 'ours'), ('b', 'ours'), ('c', 'ours')")
        plain.put("p", "plain")
        plain.put("q", "plain")
        # Written twice before a batch can read them: delivered once, with the latest value.
        spark.sql(f"UPDATE {string_table} SET v = 'first' WHERE k = 'b'")
        spark.sql(f"UPDATE {string_table} SET v = 'second' WHERE k = 'b'")
        plain.delete("q")
        spark.sql(f"DELETE FROM {string_table} WHERE k = 'c'")

        def delivered():
            rows = spark.table(name).select("k", "v", "_change_type", "_commit_timestamp").collect()
            latest = {}
            for r in sorted(rows, key=lambda r: r._commit_timestamp):
                latest[r.k] = (r.v, r._change_type)
            assert latest == {
                "a": ("ours", "upsert"),
                "b": ("second", "upsert"),
                "c": (None, "delete"),
                "p": ("plain", "upsert"),
                "q": (None, "delete"),
            }, rows
            return rows

        rows = _wait_for(delivered)
        # No row's write is delivered twice: each delivery of a row has its own latest write time.
        assert len({(r.k, r._commit_timestamp) for r in rows}) == len(rows)
        assert [r.v for r in rows if r.k == "b" and r._change_type == "upsert"][-1] == "second"
    finally:
        query.stop()
        plain.close()
        spark.conf.unset("spark.sql.hbase.changes.lagMillis")


def test_batch_reads_of_changes_by_option_and_by_table_function(spark, string_table):
    spark.sql(f"INSERT INTO {string_table} VALUES ('a', '1')")
    time.sleep(0.05)
    since = spark.sql("SELECT unix_millis(current_timestamp())").first()[0]
    time.sleep(0.05)
    spark.sql(f"INSERT INTO {string_table} VALUES ('b', '2')")
    spark.conf.set("spark.sql.hbase.changes.lagMillis", "0")
    try:
        by_option = spark.read.format("hbase").option("table", string_table).option("changesSince", str(since)).load()
        assert [(r.k, r.v, r._change_type) for r in by_option.collect()] == [("b", "2", "upsert")]
        by_function = spark.sql(f"SELECT k, v FROM hbase_changes('{string_table}', timestamp_millis({since}))")
        assert [tuple(r) for r in by_function.collect()] == [("b", "2")]
    finally:
        spark.conf.unset("spark.sql.hbase.changes.lagMillis")


def test_bad_options_say_what_is_wrong(spark, string_table):
    with pytest.raises(Exception, match="HBase table 'no_such_table' does not exist"):
        spark.readStream.format("hbase").option("table", "no_such_table").load()
    with pytest.raises(Exception, match="option startingTimestamp 2999-01-01.* is in the future"):
        spark.readStream.format("hbase").option("table", string_table).option(
            "startingTimestamp", "2999-01-01 00:00:00"
        ).load()
