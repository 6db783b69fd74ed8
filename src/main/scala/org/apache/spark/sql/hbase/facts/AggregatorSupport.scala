// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.facts

import org.apache.hadoop.hbase.client.{Scan, Table}
import org.apache.hadoop.hbase.filter.{FilterList, FirstKeyOnlyFilter, KeyOnlyFilter}

import org.apache.spark.internal.Logging
import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, HBaseTableName}
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.planner.RegionInfo
import org.apache.spark.sql.hbase.server.{
  AggregateBatch, AggregateFunction, AggregateSpec, KeyLayout, Operand, ServerVersions
}

/**
 * Whether a table's region servers run the aggregation coprocessor, and in which wire version,
 * probed once per table (again after `spark.sql.hbase.partition.expiration`) through the regions a
 * plan reads on servers not known to lack the server jar: a region server without it (a partial
 * deployment) would speak for none, and a probe of the table's first row once took the pushdown
 * away from the whole table when that row's region was on such a server. The probe asks for the
 * server's [[ServerVersions]], which a coprocessor of wire version 2 or later answers, and carries a
 * version 1 count capped at one group, which an older coprocessor answers with a batch from the
 * region's first row; without the coprocessor, the row itself comes back. Regions without a row,
 * and an empty region with an older coprocessor, prove nothing, so that answer is not kept.
 */
object AggregatorSupport extends Logging {

  /** The newest wire version both this client and the table's coprocessor read, or None. */
  def version(
      cluster: HBaseClusterConf,
      table: HBaseTableDef,
      through: Seq[RegionInfo],
      maxAgeSeconds: Long
  ): Option[Int] = version(cluster, table.hbaseTable, KeyCodec.forTable(table).sliceLayout, through, maxAgeSeconds)

  /**
   * [[version]] of any HBase table, a global index's too, whose row keys `layout` cuts: a region
   * server aggregates a table's rows only where the table names the coprocessor.
   */
  def version(
      cluster: HBaseClusterConf,
      hbaseTable: HBaseTableName,
      layout: KeyLayout,
      through: Seq[RegionInfo],
      maxAgeSeconds: Long
  ): Option[Int] = {
    val fact = FactsCache.AggregatorVersion(cluster, hbaseTable)
    FactsCache.cached(fact, maxAgeSeconds * 1000).getOrElse {
      probe(cluster, hbaseTable, layout, through) match {
        case Some(answer) =>
          if (answer.isEmpty) logWarning(
            s"HBase table $hbaseTable: region servers do not run the spark-hbase-sql aggregation " +
              "coprocessor of a wire version this client reads; aggregates are computed in Spark. " +
              "See 'Deploying the server jar' in docs/deployment.md."
          )
          FactsCache.put(fact, answer)
          answer
        case None => None
      }
    }
  }

  /**
   * At most this many regions are probed for one plan. An empty answer is not kept, so a table
   * whose regions are mostly empty is probed again by its next plan: a bound on each keeps that
   * cheap, and spreading them over the table finds its rows wherever they are.
   */
  val MaxProbedRegions = 16

  /**
   * Some(the wire version to aggregate in, or None without a coprocessor of a shared version), from
   * the first of the [[probed]] regions of `through` that holds a row, or None when none of them does.
   */
  def probe(
      cluster: HBaseClusterConf,
      hbaseTable: HBaseTableName,
      layout: KeyLayout,
      through: Seq[RegionInfo]
  ): Option[Option[Int]] =
    if (through.isEmpty) None
    else HBaseConnections.withConnection(cluster) { connection =>
      val htable = connection.getTable(hbaseTable.hbase)
      try probed(through).iterator.map(region => probeRegion(htable, layout, region)).collectFirst { case Some(a) => a }
      finally htable.close()
    }

  /** `through`, or [[MaxProbedRegions]] of them evenly spaced from the first to the last, in key order. */
  def probed(through: Seq[RegionInfo]): Seq[RegionInfo] =
    if (through.size <= MaxProbedRegions) through
    else (0 until MaxProbedRegions).map(i => through(i * (through.size - 1) / (MaxProbedRegions - 1)))

  private def probeRegion(htable: Table, layout: KeyLayout, region: RegionInfo): Option[Option[Int]] = {
    val scan = new Scan()
      .withStartRow(region.startKey)
      .withStopRow(region.endKey)
      .setCaching(1)
      .setLimit(1)
      .setFilter(new FilterList(new FirstKeyOnlyFilter(), new KeyOnlyFilter()))
    ServerVersions.askIn(scan)
    new AggregateSpec(
      layout,
      Array.empty[Operand],
      null,
      Array.empty[Int],
      Array(AggregateFunction.countRows()),
      1,
      100,
      0,
      1
    ).attachTo(scan)
    val scanner = htable.getScanner(scan)
    try Option(scanner.next()).map { result =>
        Option(ServerVersions.from(result)) match {
          case Some(versions) => Some(versions.newestShared()).filter(_ > 0)
          case None => if (AggregateBatch.isBatch(result)) Some(1) else None
        }
      }
    finally scanner.close()
  }
}
