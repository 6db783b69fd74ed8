# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The embedded HBase under benchmarks/work and a Spark session on it; HBase's Admin; flush and compaction."""

import os
import shutil
import time

from .common import WORK, log
from .platform import LocalHBase, enable_hbase


def empty_hbase(name, **settings):
    """An embedded HBase under benchmarks/work/<name>, stopped and emptied (not started)."""
    hbase = LocalHBase(WORK / name, **settings)
    hbase.stop()
    shutil.rmtree(hbase.data_dir, ignore_errors=True)
    return hbase


def spark_session(app_name, data_dir, settings=None, driver_memory="6g"):
    """A local[2] Spark session with our plugin, on the embedded HBase of `data_dir` (None: HBASE_CONF_DIR's)."""
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName(app_name)
        .config("spark.driver.memory", driver_memory)
        .config("spark.ui.enabled", "false")
    )
    for key, value in (settings or {}).items():
        builder = builder.config(key, value)
    spark = enable_hbase(builder, data_dir=data_dir).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def start_session(benchmark, settings, fresh_hbase=False):
    """The embedded HBase under benchmarks/work (None when HBASE_CONF_DIR names one) and a Spark session on it;
    BENCH_REGION_SERVERS (default 1) region servers serve it.
    With fresh_hbase, the benchmark has an HBase of its own, started empty: nothing that earlier runs left
    (tables, archived files, finished procedures) keeps its background chores busy."""
    hbase = None
    if not os.environ.get("HBASE_CONF_DIR"):
        if fresh_hbase:
            hbase = empty_hbase(f"hbase-{benchmark}")
        else:
            hbase = LocalHBase(WORK / "hbase")
        hbase.start(region_servers=int(os.environ.get("BENCH_REGION_SERVERS", "1")))
    spark = spark_session(f"spark-hbase-sql {benchmark} benchmark", hbase.data_dir if hbase else None, settings)
    return spark, hbase


def stop(spark, hbase):
    spark.stop()
    if hbase:
        hbase.stop()


def hbase_classes(spark):
    """(jvm, HBaseClusterConf of the session, HBaseConnections): the plugin's shared HBase connections."""
    jvm = spark._jvm
    connection = jvm.org.apache.spark.sql.hbase.connection
    return jvm, connection.HBaseClusterConf.fromSession(spark._jsparkSession), connection.HBaseConnections


def hbase_admin(spark):
    """An HBase Admin on the Spark driver's connection; the caller closes it."""
    _, cluster, connections = hbase_classes(spark)
    return connections.borrow(cluster).getAdmin()


def table_name(spark, name):
    return spark._jvm.org.apache.hadoop.hbase.TableName.valueOf(name)


def compact(spark, name):
    """Flushes and major-compacts a freshly loaded table, so that no background work skews the timings."""
    _, cluster, connections = hbase_classes(spark)
    admin = connections.borrow(cluster).getAdmin()
    try:
        table = table_name(spark, name)
        admin.flush(table)
        admin.majorCompact(table)
        time.sleep(2)
        while str(admin.getCompactionState(table).toString()) != "NONE":
            time.sleep(1)
        log(f"{name}: flushed and compacted")
    finally:
        admin.close()
        connections.release(cluster)


def with_settings(spark, settings, call):
    """call() with these session settings, unset after."""
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        return call()
    finally:
        for key in settings:
            spark.conf.unset(key)
