// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.execution.load.IndexBuild
import org.apache.spark.sql.hbase.facts.HBaseRegions
import org.apache.spark.sql.hbase.globalindex.{IndexSpecs, RawRows}
import org.apache.spark.sql.hbase.metadata.{GlobalIndexDef, HBaseTableDef}
import org.apache.spark.sql.hbase.server.IndexRows

/**
 * Writes a global index's rows for the rows a table has ([[IndexBuild]]): one Spark task per data
 * region reads the region's rows and gives each its index row, VERIFIED, with its covered cells;
 * they are sorted into HFiles per index region and bulk-loaded.
 *
 * Why this is exact while writes go on (docs/indexes.md, "Building"): the region servers maintain
 * the index before the build reads a row, so a write the build does not see is maintained by them
 * at a later timestamp than `timestamp`, which every row the build writes carries; their deletes
 * and newer versions win over the build's rows, and compactions stay off until the build ends.
 */
object GlobalIndexBuild {

  /** Rows read from the start of each data region to place the index's split points. */
  val SamplesPerRegion = 64

  /** Writes the index rows; returns how many. */
  def write(
      session: SparkSession,
      cluster: HBaseClusterConf,
      table: HBaseTableDef,
      index: GlobalIndexDef,
      timestamp: Long
  ): Long = {
    val regions = HBaseRegions.of(cluster, table.hbaseTable).map(r => (r.startKey, r.endKey))
    session.sparkContext.setJobDescription(s"Global index ${index.name} of ${table.name}: writing its rows")
    try IndexBuild.write(
        session.sparkContext,
        cluster,
        table.hbaseTable.hbase,
        IndexSpecs.of(table, index),
        IndexSpecs.readCells(table, index),
        regions,
        timestamp
      )
    finally session.sparkContext.setJobDescription(null)
  }

  /**
   * Split points for the index's HBase table, from the index rows of the first rows of each data
   * region: as many regions as the data table has, where the sample tells them apart. A region's
   * first rows stand for its values when values do not follow the key, and for its range of values
   * when they do.
   */
  def splitPoints(cluster: HBaseClusterConf, table: HBaseTableDef, index: GlobalIndexDef): Seq[Array[Byte]] = {
    val regions = HBaseRegions.of(cluster, table.hbaseTable)
    if (regions.size < 2) Nil
    else {
      val spec = IndexSpecs.of(table, index)
      val reads = IndexSpecs.readCells(table, index)
      val sample = Vector.newBuilder[Array[Byte]]
      HBaseConnections.withConnection(cluster) { connection =>
        regions.foreach { r =>
          RawRows.foreach(connection, table.hbaseTable.hbase, r.startKey, r.endKey, reads, Some(SamplesPerRegion)) {
            res => Option(IndexRows.rowOf(spec, res.getRow, res.listCells())).foreach(sample += _)
          }
        }
      }
      val sorted = sample.result().sortWith(Bytes.compareTo(_, _) < 0)
      val cuts = math.min(regions.size, sorted.size / 8) // a region per 8 sampled rows at least
      (1 until cuts).map(i => sorted(i * sorted.size / cuts)).distinctBy(Bytes.toStringBinary)
    }
  }
}
