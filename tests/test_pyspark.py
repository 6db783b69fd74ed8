# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""PySpark through the facade: enable_hbase wires a session, and SQL reads and writes real HBase."""

import logging
import subprocess
import sys
import textwrap

import pytest
from pyspark_hbase import EXTENSION_CLASS, enable_hbase
from pyspark_hbase import session as hbase_session


def test_builder_gets_the_jar_the_extension_and_the_hbase_address(hbase):
    from pyspark.sql import SparkSession

    builder = enable_hbase(
        SparkSession.builder.config("spark.sql.extensions", "com.example.Other"),
        data_dir=hbase.data_dir if hbase else None,
    )
    options = builder._options
    assert options["spark.sql.extensions"] == f"com.example.Other,{EXTENSION_CLASS}"
    assert options["spark.jars"].endswith(".jar")
    if hbase:
        assert options["spark.hbase.zookeeper.property.clientPort"] == str(hbase.zk_port)


def test_a_builder_that_names_an_hbase_keeps_it_and_the_log_says_which(monkeypatch, caplog, tmp_path):
    from pyspark.sql import SparkSession

    monkeypatch.delenv("HBASE_CONF_DIR", raising=False)
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))  # no spark-defaults.conf there
    with caplog.at_level(logging.INFO, logger="pyspark_hbase"):
        builder = enable_hbase(SparkSession.builder.config("spark.hbase.zookeeper.quorum", "zk.prod.example"))
    options = builder._options
    assert options["spark.hbase.zookeeper.quorum"] == "zk.prod.example"
    assert "spark.hbase.zookeeper.property.clientPort" not in options, "the embedded HBase's port was added"
    assert options["spark.sql.extensions"] == EXTENSION_CLASS
    assert "HBase SQL uses the HBase at ZooKeeper zk.prod.example, as the session's settings say" in caplog.text


def test_spark_defaults_that_name_an_hbase_are_kept(monkeypatch, caplog, tmp_path):
    from pyspark.sql import SparkSession

    monkeypatch.delenv("HBASE_CONF_DIR", raising=False)
    (tmp_path / "spark-defaults.conf").write_text(
        "# the cluster's\nspark.hbase.conf.dir   /etc/hbase/conf\nspark.executor.memory 4g\n"
    )
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    with caplog.at_level(logging.INFO, logger="pyspark_hbase"):
        options = enable_hbase(SparkSession.builder)._options
    assert not any(k.startswith("spark.hbase.") for k in options), options
    assert "HBase SQL uses the HBase of /etc/hbase/conf/hbase-site.xml" in caplog.text


def test_no_hbase_named_and_no_embedded_one_running_says_how_to_name_one(monkeypatch, tmp_path):
    from pyspark.sql import SparkSession
    from pyspark_hbase import HBaseSessionError

    monkeypatch.delenv("HBASE_CONF_DIR", raising=False)
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    monkeypatch.setenv("SPARK_HBASE_LOCAL_DIR", str(tmp_path / "never-started"))
    with pytest.raises(HBaseSessionError) as error:
        enable_hbase(SparkSession.builder)
    message = str(error.value)
    assert "no HBase was named, and the embedded one is not running" in message
    for way in ("hbase_conf=", "HBASE_CONF_DIR", "spark.hbase.zookeeper.quorum", "spark-hbase local start"):
        assert way in message


def test_sql_round_trip_through_hbase(spark, table_name):
    spark.sql(f"""CREATE TABLE {table_name} (city STRING, day INT, temp DOUBLE, note STRING,
                  PRIMARY KEY (city, day)) MAPPED BY ({table_name}, COLS=[temp=w.t, note=w.n])""")
    spark.sql(
        f"INSERT INTO {table_name} VALUES ('Oslo', 2, -3.5, NULL), ('Lima', 1, 19.0, 'fog'), ('Oslo', 1, -1.0, 'snow')"
    )
    rows = [tuple(r) for r in spark.sql(f"SELECT * FROM {table_name}").collect()]
    assert rows == [("Lima", 1, 19.0, "fog"), ("Oslo", 1, -1.0, "snow"), ("Oslo", 2, -3.5, None)]
    cold = spark.sql(f"SELECT day FROM {table_name} WHERE city = 'Oslo' AND temp < -2").collect()
    assert [r.day for r in cold] == [2]
    listed = {(r.namespace, r.tableName) for r in spark.sql("SHOW TABLES IN hbase").collect()}
    assert ("hbase", table_name) in listed
    assert table_name not in {r.tableName for r in spark.sql("SHOW TABLES").collect()}, "Spark's own tables only"


def test_dataframe_api_reads_an_hbase_table(spark, table_name):
    spark.sql(f"CREATE TABLE {table_name} (k BIGINT, v STRING, PRIMARY KEY (k)) MAPPED BY ({table_name}, COLS=[v=f.v])")
    spark.range(0, 100).selectExpr("id AS k", "CAST(id * id AS STRING) AS v").write.insertInto(table_name)
    df = spark.table(table_name)
    assert df.count() == 100
    assert df.filter("k = 12").first().v == "144"


def test_drop_table_keeps_the_hbase_data(spark, table_name):
    ddl = f"CREATE TABLE {table_name} (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ({table_name}_raw, COLS=[v=f.v])"
    spark.sql(ddl)
    spark.sql(f"INSERT INTO {table_name} VALUES (1, 10), (2, 20)")
    spark.sql(f"DROP TABLE {table_name}")
    assert table_name not in {r.tableName for r in spark.sql("SHOW TABLES IN hbase").collect()}
    spark.sql(ddl)
    assert [tuple(r) for r in spark.sql(f"SELECT * FROM {table_name}").collect()] == [(1, 10), (2, 20)]


def test_bad_ddl_gives_an_analysis_error_naming_the_column(spark, table_name):
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException) as error:
        spark.sql(
            f"CREATE TABLE {table_name} (k INT, v INT, w INT, PRIMARY KEY (k)) MAPPED BY ({table_name}, COLS=[v=f.v])"
        )
    assert "column 'w'" in str(error.value)
    assert table_name not in {r.tableName for r in spark.sql("SHOW TABLES IN hbase").collect()}


def test_enable_hbase_on_a_running_session_with_the_extension_points_it_at_hbase(spark, hbase):
    assert enable_hbase(spark, data_dir=hbase.data_dir if hbase else None) is spark


def test_enable_hbase_on_a_session_started_without_it_says_how_to_fix_it(hbase):
    # A separate Python process: one process holds one SparkContext.
    script = textwrap.dedent(f"""
        from pyspark.sql import SparkSession
        from pyspark_hbase import enable_hbase, HBaseSessionError
        spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
        try:
            enable_hbase(spark, data_dir={str(hbase.data_dir) if hbase else None!r})
        except HBaseSessionError as e:
            print("ERROR:", e)
        spark.stop()
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert "ERROR: this Spark session was started without the HBase SQL extension" in out.stdout, out.stderr
    assert "enable_hbase(SparkSession.builder)" in out.stdout


def test_submit_args_are_spark_submit_flags(hbase):
    args = hbase_session.submit_args(data_dir=hbase.data_dir if hbase else None)
    assert args[0] == "--jars" and args[1].endswith(".jar")
    assert f"spark.sql.extensions={EXTENSION_CLASS}" in args


def test_dataframe_reader_and_writer_use_format_hbase(spark, table_name):
    spark.sql(
        f"CREATE TABLE {table_name} (id BIGINT, tag STRING, PRIMARY KEY (id)) "
        f"MAPPED BY ({table_name}, COLS=[tag=t.tag])"
    )
    frame = spark.range(0, 50).selectExpr("id", "concat('tag-', id) AS tag")
    frame.write.format("hbase").option("table", table_name).mode("append").save()
    frame.write.format("hbase").option("table", table_name).mode("append").save()  # upsert: idempotent
    read = spark.read.format("hbase").option("table", table_name).load()
    assert read.count() == 50
    assert read.filter("id = 42").first().tag == "tag-42"


def test_a_dataframe_merges_into_an_hbase_table_with_merge_into(spark, table_name):
    from pyspark.sql.functions import expr

    spark.sql(
        f"CREATE TABLE {table_name} (id BIGINT, tag STRING, PRIMARY KEY (id)) "
        f"MAPPED BY ({table_name}, COLS=[tag=t.tag])"
    )
    spark.range(0, 4).selectExpr("id", "concat('old-', id) AS tag").write.insertInto(table_name)
    changes = spark.createDataFrame([(1, "new-1"), (3, None), (7, "new-7")], "id BIGINT, tag STRING").alias("c")
    (
        changes.mergeInto(table_name, expr(f"{table_name}.id = c.id"))
        .whenMatched(expr("c.tag IS NULL"))
        .delete()
        .whenMatched()
        .updateAll()
        .whenNotMatched()
        .insertAll()
        .merge()
    )
    rows = [(r.id, r.tag) for r in spark.table(table_name).orderBy("id").collect()]
    assert rows == [(0, "old-0"), (1, "new-1"), (2, "old-2"), (7, "new-7")]


def test_scan_metrics_of_a_dataframe_with_aqe_on(spark, table_name):
    from pyspark_hbase import scan_metrics

    assert spark.conf.get("spark.sql.adaptive.enabled") == "true"
    spark.sql(
        f"CREATE TABLE {table_name} (k INT, v INT, PRIMARY KEY (k)) "
        f"MAPPED BY ({table_name}, COLS=[v=f.v]) SPLIT ON ((100), (200))"
    )
    spark.sql(f"INSERT INTO {table_name} SELECT CAST(id AS INT), CAST(id % 3 AS INT) FROM range(0, 300)")

    lookup = spark.sql(f"SELECT * FROM {table_name} WHERE k IN (7, 8, 250)")
    assert scan_metrics(lookup) == {
        "regionsTotal": 0,
        "regionsScanned": 0,
        "keyRanges": 0,
        "chunksSkipped": 0,
        "rowsRead": 0,
        "rowsScanned": 0,
        "gets": 0,
        "badRowKeys": 0,
        "memoryFlushes": 0,
        "indexRowsRead": 0,
        "untrustedRegions": 0,
        "rowsInIndexOrder": 0,
        "indexRowsAggregated": 0,
    }
    assert [r.k for r in lookup.collect()] == [7, 8, 250]
    assert scan_metrics(lookup) == {
        "regionsTotal": 3,
        "regionsScanned": 2,
        "keyRanges": 3,
        "chunksSkipped": 0,
        "rowsRead": 3,
        "rowsScanned": 3,
        "gets": 3,
        "badRowKeys": 0,
        "memoryFlushes": 0,
        "indexRowsRead": 0,
        "untrustedRegions": 0,
        "rowsInIndexOrder": 0,
        "indexRowsAggregated": 0,
    }

    # A shuffle puts the scan inside an adaptive query stage; the region server sends one row per group.
    grouped = spark.sql(f"SELECT v, count(*) AS n FROM {table_name} WHERE k >= 150 AND k < 160 GROUP BY v")
    assert sum(r.n for r in grouped.collect()) == 10
    assert scan_metrics(grouped) == {
        "regionsTotal": 3,
        "regionsScanned": 1,
        "keyRanges": 1,
        "chunksSkipped": 0,
        "rowsRead": 3,
        "rowsScanned": 10,
        "gets": 0,
        "badRowKeys": 0,
        "memoryFlushes": 0,
        "indexRowsRead": 0,
        "untrustedRegions": 0,
        "rowsInIndexOrder": 0,
        "indexRowsAggregated": 0,
    }


def test_region_servers_seek_by_a_later_key_column_and_check_values(spark, table_name):
    from pyspark_hbase import scan_metrics

    spark.sql(
        f"CREATE TABLE {table_name} (a INT, b INT, v STRING, PRIMARY KEY (a, b)) "
        f"MAPPED BY ({table_name}, COLS=[v=f.v]) SPLIT ON ((30), (60))"
    )
    spark.sql(
        f"INSERT INTO {table_name} SELECT CAST(id DIV 10 AS INT), CAST(id % 10 AS INT), "
        f"IF(id % 7 = 0, NULL, concat('v', id)) FROM range(0, 1000)"
    )
    query = f"SELECT a, b, v FROM {table_name} WHERE b IN (3, 4) AND v LIKE 'v%3'"
    expected = sorted(
        (i // 10, i % 10, f"v{i}") for i in range(1000) if i % 10 in (3, 4) and i % 7 != 0 and str(i).endswith("3")
    )

    with_server_jar = spark.sql(query)
    assert "skip scan (*, {3, 4})" in with_server_jar._jdf.queryExecution().executedPlan().toString()
    assert sorted(tuple(r) for r in with_server_jar.collect()) == expected
    assert scan_metrics(with_server_jar)["rowsRead"] == len(expected)

    spark.conf.set("spark.sql.hbase.customfilter", "false")
    try:
        in_spark = spark.sql(query)
        assert sorted(tuple(r) for r in in_spark.collect()) == expected
        assert scan_metrics(in_spark)["rowsRead"] == 1000
    finally:
        spark.conf.unset("spark.sql.hbase.customfilter")
