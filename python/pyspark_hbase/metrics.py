"""The HBase scan metrics of a DataFrame, as the Spark UI's SQL tab shows them."""

METRIC_NAMES = ("regionsTotal", "regionsScanned", "keyRanges", "chunksSkipped", "rowsRead", "rowsScanned", "gets")


def scan_metrics(df):
    """Return {name: count} for regionsTotal, regionsScanned, keyRanges, chunksSkipped, rowsRead, rowsScanned and gets.

    ``rowsRead`` counts what HBase returned to Spark: rows, or partial groups where the region
    servers aggregated; ``rowsScanned`` counts the rows the region servers looked at.

    The counts are summed over every HBase scan in ``df``'s plan, as of the last action run on
    ``df`` itself (``collect()``, ``toPandas()``, ``foreach()``, a write). Before any action they
    are all 0. ``df.count()`` and ``df.show()`` run a derived DataFrame, not ``df``, so they do not
    count here. Works with adaptive query execution on.
    """
    jvm = df.sparkSession._jvm
    values = jvm.org.apache.spark.sql.hbase.execution.ScanMetrics.asJava(df._jdf)
    return {name: int(values.get(name)) for name in METRIC_NAMES}
