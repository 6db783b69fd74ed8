# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""A Spark application that test_cluster.py runs with spark-submit on a `local-cluster` master.

Its executors are JVMs of their own that get the plugin only through --jars, as on a real
cluster. It writes and reads HBase tables every way we support and prints one JSON object of
what it saw; the test computes the expected answers itself and compares.

Usage: spark-submit ... cluster_job.py <table prefix> <csv file> <csv file for PARALLEL>
"""

import json
import sys
import urllib.request

from pyspark.sql import SparkSession
from pyspark_hbase.metrics import scan_metrics

prefix, csv_file, parallel_csv_file = sys.argv[1:4]
spark = SparkSession.builder.getOrCreate()
spark.sparkContext.setLogLevel("WARN")
sql = spark.sql
seen = {"application": spark.sparkContext.applicationId}

readings = f"{prefix}_readings"
sql(f"""CREATE TABLE {readings} (k INT, s STRING, v BIGINT, w DOUBLE, PRIMARY KEY (k, s))
        MAPPED BY ({readings}, COLS=[v=f.v, w=f.w]) SPLIT ON ((100), (200), (300), (400), (500))""")
sql(f"INSERT INTO {readings} SELECT CAST(id % 600 AS INT), CONCAT('s', id DIV 600), id, id / 8.0 FROM range(6000)")


def rows(query):
    df = sql(query)
    return [list(r) for r in df.collect()], scan_metrics(df)


seen["key_range"], seen["key_range_metrics"] = rows(
    f"SELECT count(*), sum(v) FROM {readings} WHERE k BETWEEN 150 AND 349"
)
seen["skip_scan"], seen["skip_scan_metrics"] = rows(
    f"SELECT k, s, v FROM {readings} WHERE k IN (5, 250, 555) AND s = 's3' ORDER BY k"
)
grouped = f"SELECT s, count(*), sum(v), min(w), max(k) FROM {readings} GROUP BY s ORDER BY s"
seen["aggregate"], seen["aggregate_metrics"] = rows(grouped)
seen["aggregate_explain"] = sql(f"EXPLAIN {grouped}").collect()[0][0]

# Where each region's partition would rather run, read from the scan's RDD, and where its region is:
# a task per region (by default a read this small shares out its regions among fewer tasks).
spark.conf.set("spark.sql.hbase.scan.taskMaxBytes", "0")
plan = sql(f"SELECT * FROM {readings}")._jdf.queryExecution().executedPlan()
spark.conf.unset("spark.sql.hbase.scan.taskMaxBytes")
scan = plan.collectLeaves().apply(0)
rdd = scan.execute()
# As the scheduler sees them: through the narrow dependencies down to the scan's own RDD.
seen["preferred_locations"] = [
    spark.sparkContext._jsc.sc().getPreferredLocs(rdd, i).mkString(",") for i in range(len(rdd.partitions()))
]

loaded = f"{prefix}_loaded"
sql(f"""CREATE TABLE {loaded} (id INT, name STRING, score DOUBLE, PRIMARY KEY (id))
        MAPPED BY ({loaded}, COLS=[name=f.n, score=f.s]) SPLIT ON ((250), (500), (750))""")
seen["load"] = [list(r) for r in sql(f"LOAD DATA LOCAL INPATH '{csv_file}' INTO TABLE {loaded}").collect()]
seen["load_parallel"] = [
    list(r) for r in sql(f"LOAD DATA PARALLEL LOCAL INPATH '{parallel_csv_file}' INTO TABLE {loaded}").collect()
]
seen["loaded"] = [list(r) for r in sql(f"SELECT count(*), sum(id), sum(score), max(name) FROM {loaded}").collect()]

written = f"{prefix}_written"
sql(f"""CREATE TABLE {written} (id INT, name STRING, score DOUBLE, PRIMARY KEY (id))
        MAPPED BY ({written}, COLS=[name=f.n, score=f.s]) SPLIT ON ((250), (500), (750))""")
source = spark.read.format("hbase").option("table", loaded).load()
source.where("id < 500").write.format("hbase").option("table", written).mode("append").save()
source.where("id >= 500").write.format("hbase").option("table", written).option("bulkload", "true").mode(
    "append"
).save()
seen["written"] = [
    list(r)
    for r in spark.read.format("hbase")
    .option("table", written)
    .load()
    .selectExpr("count(*)", "sum(id)", "sum(score)", "max(name)")
    .collect()
]

# How the scan's tasks ran, from the application's own REST API.
ui = spark.sparkContext.uiWebUrl
app = spark.sparkContext.applicationId
stages = json.load(urllib.request.urlopen(f"{ui}/api/v1/applications/{app}/stages?status=complete"))
tasks = [
    task
    for stage in stages
    for task in json.load(
        urllib.request.urlopen(
            f"{ui}/api/v1/applications/{app}/stages/{stage['stageId']}/{stage['attemptId']}/taskList?length=1000"
        )
    )
]
seen["task_localities"] = sorted({t["taskLocality"] for t in tasks})
seen["task_executors"] = sorted({t["executorId"] for t in tasks})

print("RESULT " + json.dumps(seen), flush=True)
spark.stop()
