"""PySpark helpers for spark-hbase-sql (Spark SQL over HBase)."""

from pathlib import Path as _Path

__version__ = (_Path(__file__).parent / "VERSION").read_text().strip()

from .metrics import METRIC_NAMES, scan_metrics  # noqa: E402
from .session import EXTENSION_CLASS, HBaseSessionError, enable_hbase  # noqa: E402

__all__ = ["EXTENSION_CLASS", "HBaseSessionError", "METRIC_NAMES", "enable_hbase", "scan_metrics", "__version__"]
