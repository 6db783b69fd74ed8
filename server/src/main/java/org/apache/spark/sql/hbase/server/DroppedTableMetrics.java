// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import org.apache.hadoop.hbase.CompatibilitySingletonFactory;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.MetricsRegionServerSourceFactory;
import org.apache.hadoop.hbase.regionserver.Region;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forgets a table's metrics in a region server once the last of its regions there has closed.
 *
 * <p>A region server keeps per-table metrics (flush, compaction and split histograms, about 130 KB
 * with what JMX and the interned metric names add) from a table's first flush on, and its chore
 * removes them only for tables it saw online on an earlier run, every 6 s. A table created and
 * dropped between two runs, as a user trying things or a test suite does, keeps them until the
 * region server restarts: about 0.3 MB of heap per table in the embedded HBase. When the table's
 * regions come back, or the chore still lists it, HBase makes them again or removes them itself.
 */
final class DroppedTableMetrics {
  private static final Logger LOG = LoggerFactory.getLogger(DroppedTableMetrics.class);

  private DroppedTableMetrics() {}

  /** Called after a region of the table closed on this server. */
  static void afterRegionClosed(RegionCoprocessorEnvironment env) {
    TableName table = env.getRegionInfo().getTable();
    try {
      for (Region region : env.getOnlineRegions().getRegions(table)) {
        if (!region.isClosed()) return;
      }
      CompatibilitySingletonFactory.getInstance(MetricsRegionServerSourceFactory.class)
          .getTableAggregate()
          .deleteTableSource(table.getNameAsString());
    } catch (Exception | LinkageError e) {
      // HBase's metrics classes are not a public API: if they change, metrics stay as HBase keeps
      // them.
      LOG.debug("Left the metrics of {} to HBase: {}", table, e.toString());
    }
  }
}
