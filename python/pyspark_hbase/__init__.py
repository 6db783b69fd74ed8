"""PySpark helpers for spark-hbase-sql (Spark SQL over HBase)."""

__version__ = "0.1.0"
