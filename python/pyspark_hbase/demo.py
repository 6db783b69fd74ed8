"""The quickstart demo: a table mapped onto HBase, a few rows, and queries answered from HBase."""

import os

from . import _paths
from .local import LocalHBase
from .session import enable_hbase

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
    "SHOW TABLES",
    "SELECT * FROM demo_orders",
    "SELECT region, count(*) AS orders, sum(amount) AS total FROM demo_orders "
    "WHERE amount IS NOT NULL GROUP BY region ORDER BY region",
]


def run_demo(data_dir=None) -> None:
    from pyspark.sql import SparkSession

    # Loopback like the embedded HBase, and Spark's INFO chatter in a log file, not on screen.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = SparkSession.builder.master("local[2]").appName("spark-hbase-sql demo")
    builder = builder.config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
    log_config = _paths.conf_dir() / "log4j2.properties" if _paths.repo_root() else None
    if log_config and log_config.is_file():
        log_file = LocalHBase(data_dir).data_dir / "spark" / "demo.log"
        builder = builder.config("spark.driver.extraJavaOptions",
                                 f"-Dlog4j2.configurationFile={log_config} -Dspark.hbase.log.file={log_file}")
    spark = enable_hbase(builder, data_dir=data_dir).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        for statement in DEMO_STATEMENTS:
            spark.sql(statement)
        for query in DEMO_QUERIES:
            print(f"\nsql> {' '.join(query.split())}")
            spark.sql(query).show(truncate=False)
    finally:
        spark.stop()
