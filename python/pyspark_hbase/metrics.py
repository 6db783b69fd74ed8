"""The HBase scan metrics of a DataFrame, as the Spark UI's SQL tab shows them."""

METRIC_NAMES = ("regionsTotal", "regionsScanned", "keyRanges", "rowsRead", "gets")


def scan_metrics(df):
    """Return {name: count} for regionsTotal, regionsScanned, keyRanges, rowsRead and gets.

    The counts are summed over every HBase scan in ``df``'s plan, as of the last action run on
    ``df`` itself (``collect()``, ``toPandas()``, ``foreach()``, a write). Before any action they
    are all 0. ``df.count()`` and ``df.show()`` run a derived DataFrame, not ``df``, so they do not
    count here. Works with adaptive query execution on.
    """
    jvm = df.sparkSession._jvm
    values = jvm.org.apache.spark.sql.hbase.execution.ScanMetrics.asJava(df._jdf)
    return {name: int(values.get(name)) for name in METRIC_NAMES}
