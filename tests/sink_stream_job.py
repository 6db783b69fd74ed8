"""A streaming pipeline that test_streaming_sink.py runs with spark-submit and kills (SIGKILL) in the
middle of its batches: JSON files -> a transformation -> the HBase sink, with a checkpoint, one
file per batch, until the input is all written (trigger availableNow), then it exits.

Usage: spark-submit ... sink_stream_job.py <input dir> <checkpoint dir> <table> <format|toTable>
"""

import sys

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
writer = stream.writeStream.option("checkpointLocation", checkpoint).outputMode("update").trigger(availableNow=True)
query = writer.format("hbase").option("table", table).start() if route == "format" else writer.toTable(f"hbase.{table}")
print("STARTED", flush=True)
query.awaitTermination()
print("DONE", flush=True)
