"""PySpark helpers for spark-hbase-sql (Spark SQL over HBase)."""

__version__ = "0.1.0"

from .session import EXTENSION_CLASS, HBaseSessionError, enable_hbase  # noqa: E402

__all__ = ["EXTENSION_CLASS", "HBaseSessionError", "enable_hbase", "__version__"]
