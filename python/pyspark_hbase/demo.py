# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The quickstart demo: a table mapped onto HBase, a few rows, and queries answered from HBase."""

import os

from pyspark_hbase import _paths
from pyspark_hbase.local import LocalHBase
from pyspark_hbase.metrics import scan_metrics
from pyspark_hbase.session import enable_hbase

DEMO_STATEMENTS = [
    "DROP TABLE IF EXISTS demo_orders",
    """CREATE TABLE demo_orders (
         region STRING, order_id BIGINT, customer STRING, amount DOUBLE,
         PRIMARY KEY (region, order_id))
       MAPPED BY (demo_orders, COLS=[customer=o.customer, amount=o.amount])""",
    """INSERT INTO demo_orders VALUES
         ('emea', 1, 'Acme', 120.5), ('emea', 2, 'Globex', 80.0),
         ('apac', 7, 'Initech', 42.0), ('amer', 3, 'Umbrella', 300.25),
         ('amer', 9, 'Hooli', NULL)""",
]

DEMO_QUERIES = [
    "SHOW TABLES IN hbase",
    "SELECT * FROM demo_orders",
    "SELECT region, count(*) AS orders, sum(amount) AS total FROM demo_orders "
    "WHERE amount IS NOT NULL GROUP BY region ORDER BY region",
]


LOOKUP = "SELECT order_id, customer, amount FROM demo_orders WHERE region = 'emea' AND order_id IN (1, 2)"


def run_demo(data_dir=None) -> None:
    # pyspark.sql only when the demo runs: the CLI imports this module for every command.
    from pyspark.sql import SparkSession

    # Loopback like the embedded HBase, and Spark's INFO chatter in a log file, not on screen.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = SparkSession.builder.master("local[2]").appName("spark-hbase-sql demo")
    builder = builder.config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
    log_config = _paths.conf_dir() / "log4j2.properties" if _paths.repo_root() else None
    if log_config and log_config.is_file():
        log_file = LocalHBase(data_dir).data_dir / "spark" / "demo.log"
        builder = builder.config(
            "spark.driver.extraJavaOptions",
            f"-Dlog4j2.configurationFile={log_config} -Dspark.hbase.log.file={log_file}",
        )
    spark = enable_hbase(builder, data_dir=data_dir).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        for statement in DEMO_STATEMENTS:
            spark.sql(statement)
        for query in DEMO_QUERIES:
            print(f"\nsql> {' '.join(query.split())}")
            spark.sql(query).show(truncate=False)
        # A lookup by key: HBase reads two rows with Gets, and the scan says so.
        print(f"\nsql> {LOOKUP}")
        lookup = spark.sql(LOOKUP)
        rows = lookup.collect()
        spark.createDataFrame(rows, lookup.schema).show(truncate=False)
        scan = lookup._jdf.queryExecution().executedPlan().toString().strip().splitlines()[-1].strip()
        print(f"plan: {scan}")
        print(f"scan metrics: {scan_metrics(lookup)}")
    finally:
        spark.stop()
