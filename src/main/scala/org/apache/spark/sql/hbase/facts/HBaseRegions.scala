// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.facts

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.metadata.HBaseTableName
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.planner.RegionInfo

object HBaseRegions {

  /**
   * The table's regions as last looked up, if that was less than `maxAgeSeconds` ago. Stale
   * regions cost only balance and locality, never rows: a scan range that spans a region boundary
   * the cache does not know about is still read whole by the HBase client. A lookup that found a
   * region without a server (in transition, as just after CREATE TABLE) is not kept, so that
   * locality is not lost for the whole time.
   */
  def cached(cluster: HBaseClusterConf, table: HBaseTableName, maxAgeSeconds: Long): Seq[RegionInfo] =
    FactsCache.get(
      FactsCache.Regions(cluster, table),
      maxAgeSeconds * 1000,
      (_: Seq[RegionInfo]).forall(_.host.isDefined)
    )(
      of(cluster, table)
    )

  /** The table's regions in key order, looked up now. */
  def of(cluster: HBaseClusterConf, table: HBaseTableName): Seq[RegionInfo] =
    HBaseConnections.withConnection(cluster) { connection =>
      val locator = connection.getRegionLocator(TableName.valueOf(table.namespace, table.name))
      try {
        locator.getAllRegionLocations.asScala.toSeq
          // A region in transition has no server yet: it is read wherever it lands.
          .map(l =>
            RegionInfo(
              l.getRegion.getStartKey,
              l.getRegion.getEndKey,
              Option(l.getServerName).map(_.getHostname),
              Option(l.getServerName).map(_.getPort),
              Option(l.getServerName).map(_.getStartCode)
            )
          )
          .sortWith((a, b) => Bytes.compareTo(a.startKey, b.startKey) < 0)
      } finally locator.close()
    }
}
