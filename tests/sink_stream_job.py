# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""A streaming pipeline that test_streaming_sink.py runs with spark-submit and kills (SIGKILL) in the
middle of its batches: JSON files -> a transformation -> the HBase sink, with a checkpoint, one
file per batch, until the input is all written (trigger availableNow), then it exits.

Usage: spark-submit ... sink_stream_job.py <input dir> <checkpoint dir> <table> <format|toTable> [<HBase data dir>]
With the embedded HBase's data dir, the job also splits the table's regions once batch 1 is done
(while the next batch runs) and prints how many regions there were before and after; its batches
then start 2 seconds apart, so that batches still come after the split, and it runs until killed.
"""

import sys
import threading
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

input_dir, checkpoint, table, route = sys.argv[1:5]
spark = SparkSession.builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")

stream = (
    spark.readStream.schema("id INT, v INT, name STRING")
    .option("maxFilesPerTrigger", 1)
    .json(input_dir)
    .where(F.col("v") % 10 != 3)
    .select(F.col("id"), (F.col("v") * 2 + 1).alias("val"), F.upper("name").alias("label"))
)
splitting = len(sys.argv) > 5
writer = stream.writeStream.option("checkpointLocation", checkpoint).outputMode("update")
writer = writer.trigger(processingTime="2 seconds") if splitting else writer.trigger(availableNow=True)
query = writer.format("hbase").option("table", table).start() if route == "format" else writer.toTable(f"hbase.{table}")
print("STARTED", flush=True)


def split_regions(data_dir):
    from pyspark_hbase.local import LocalHBase

    while query.isActive and (query.lastProgress is None or query.lastProgress["batchId"] < 1):
        time.sleep(0.1)
    jvm = spark._jvm
    conf = jvm.org.apache.hadoop.hbase.HBaseConfiguration.create()
    for key, value in LocalHBase(data_dir).client_conf().items():
        conf.set(key, value)
    connection = jvm.org.apache.hadoop.hbase.client.ConnectionFactory.createConnection(conf)
    admin = connection.getAdmin()
    name = jvm.org.apache.hadoop.hbase.TableName.valueOf(table)
    before = admin.getRegions(name).size()
    admin.flush(name)
    admin.split(name)
    deadline = time.monotonic() + 60
    while admin.getRegions(name).size() == before and time.monotonic() < deadline:
        time.sleep(0.2)
    print(f"SPLIT {before} -> {admin.getRegions(name).size()}", flush=True)
    connection.close()


if splitting:
    threading.Thread(target=split_regions, args=(sys.argv[5],), daemon=True).start()
query.awaitTermination()
print("DONE", flush=True)
