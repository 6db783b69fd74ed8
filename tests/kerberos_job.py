# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""A Spark application that test_kerberos.py runs with spark-submit as one user of a secured HBase.

It runs the steps of a JSON file in order and prints what each gave, rows or error, as one JSON
object; a failed step does not stop the next. The test knows the expected answers.

A step is {"name", "sql"} (its rows, and with "metrics": true the HBase scan metrics), or
{"name", "copy": [from table, to table]}, which copies a table with the DataFrame reader and writer.

Usage: spark-submit ... kerberos_job.py <steps.json>
"""

import json
import sys

from pyspark.sql import SparkSession
from pyspark_hbase.metrics import scan_metrics

spark = SparkSession.builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
seen = {}
for step in json.loads(open(sys.argv[1]).read()):
    try:
        if "copy" in step:
            source, target = step["copy"]
            spark.read.format("hbase").option("table", source).load().write.format("hbase").option(
                "table", target
            ).mode("append").save()
            seen[step["name"]] = {"rows": []}
        else:
            df = spark.sql(step["sql"])
            seen[step["name"]] = {"rows": [list(r) for r in df.collect()]}
            if step.get("metrics"):
                seen[step["name"]]["metrics"] = scan_metrics(df)
    except Exception as e:  # the test judges the error
        seen[step["name"]] = {"error": f"{type(e).__name__}: {e}"[:3000]}
# Where the work ran: the executors' ids ("driver" alone on a local master).
seen["executors"] = spark.sparkContext._jsc.sc().getExecutorIds().mkString(",")
print("RESULT " + json.dumps(seen), flush=True)
spark.stop()
