"""The quickstart demo: a table mapped onto HBase, a few rows, and queries answered from HBase."""

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

    builder = SparkSession.builder.master("local[2]").appName("spark-hbase-sql demo")
    builder = builder.config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
    spark = enable_hbase(builder, data_dir=data_dir).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        for statement in DEMO_STATEMENTS:
            spark.sql(statement)
        for query in DEMO_QUERIES:
            print(f"\nspark-sql> {' '.join(query.split())}")
            spark.sql(query).show(truncate=False)
    finally:
        spark.stop()
