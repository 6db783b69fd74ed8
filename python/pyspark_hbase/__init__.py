# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""PySpark helpers for spark-hbase-sql (Spark SQL over HBase)."""

from pyspark_hbase._paths import __version__
from pyspark_hbase.metrics import METRIC_NAMES, scan_metrics
from pyspark_hbase.session import EXTENSION_CLASS, HBaseSessionError, enable_hbase

__all__ = ["EXTENSION_CLASS", "HBaseSessionError", "METRIC_NAMES", "enable_hbase", "scan_metrics", "__version__"]
