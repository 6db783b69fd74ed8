# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The HBase scan metrics of a DataFrame, as the Spark UI's SQL tab shows them."""

METRIC_NAMES = (
    "regionsTotal",
    "regionsScanned",
    "keyRanges",
    "chunksSkipped",
    "rowsRead",
    "rowsScanned",
    "gets",
    "badRowKeys",
    "memoryFlushes",
    "indexRowsRead",
    "untrustedRegions",
    "rowsInIndexOrder",
    "indexRowsAggregated",
)


def scan_metrics(df):
    """Return {name: count} for regionsTotal, regionsScanned, keyRanges, chunksSkipped, rowsRead, rowsScanned, gets,
    badRowKeys, memoryFlushes, indexRowsRead, untrustedRegions, rowsInIndexOrder and indexRowsAggregated.

    ``rowsRead`` counts what HBase returned to Spark: rows, or partial groups where the region
    servers aggregated; ``rowsScanned`` counts the rows the region servers looked at;
    ``badRowKeys`` the rows left out because their keys are not keys of the table
    (``spark.sql.hbase.read.badRowKeys=skip``); ``memoryFlushes`` the batches of partial groups
    that region servers sent early because the query's cap (``spark.sql.hbase.coprocessor.maxGroupBytes``)
    or their own memory budget for aggregations was reached; ``indexRowsRead`` the global index rows
    a scan read to find its rows, ``untrustedRegions`` the data regions it read whole because a
    bulk load left the index behind there, ``rowsInIndexOrder`` the rows an ORDER BY ... LIMIT
    read in a global index's order (0 when the index could not answer), and ``indexRowsAggregated``
    the global index rows whose data rows the index's region servers aggregated in their place (0
    when they did not).

    The counts are summed over every HBase scan in ``df``'s plan, as of the last action run on
    ``df`` itself (``collect()``, ``toPandas()``, ``foreach()``, a write). Before any action they
    are all 0. ``df.count()`` and ``df.show()`` run a derived DataFrame, not ``df``, so they do not
    count here. Works with adaptive query execution on, and through Spark Connect, where the
    server sends each executed plan's metrics to the client.
    """
    if type(df).__module__.startswith("pyspark.sql.connect"):
        return _connect_scan_metrics(df)
    jvm = df.sparkSession._jvm
    values = jvm.org.apache.spark.sql.hbase.execution.ScanMetrics.asJava(df._jdf)
    return {name: int(values.get(name)) for name in METRIC_NAMES}


def _connect_scan_metrics(df):
    counts = dict.fromkeys(METRIC_NAMES, 0)
    info = df.executionInfo  # None before the first action
    if info is None or info.metrics is None:
        return counts
    try:
        _, nodes = info.metrics.extract_graph()
    except AssertionError:  # no plan metrics were sent
        return counts
    for node in nodes.values():
        if node.name.startswith("HBase"):  # HBaseTableScan, HBaseAggregateScan
            for metric in node.metrics:
                if metric.name in counts:
                    counts[metric.name] += int(metric.value)
    return counts
