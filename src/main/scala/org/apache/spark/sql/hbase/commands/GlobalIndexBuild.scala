// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import org.apache.hadoop.hbase.client.{BufferedMutatorParams, Connection}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.hbase.codec.RowRange
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.facts.HBaseRegions
import org.apache.spark.sql.hbase.globalindex.{IndexSpecs, RawRows}
import org.apache.spark.sql.hbase.metadata.{GlobalIndexDef, HBaseTableDef}
import org.apache.spark.sql.hbase.server.{IndexRows, IndexSpec}

/**
 * Writes a global index's rows for the rows a table has: one Spark task per data region reads the
 * region's rows and writes the index row of each, VERIFIED, with its covered cells.
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
    val specBytes = IndexSpec.toBytes(java.util.List.of(IndexSpecs.of(table, index)), IndexSpec.FIRST_VERSION)
    val reads = IndexSpecs.readCells(table, index)
    session.sparkContext.setJobDescription(s"Global index ${index.name} of ${table.name}: writing its rows")
    try {
      session.sparkContext.parallelize(regions, math.max(1, regions.size)).mapPartitions { part =>
        val spec = IndexSpec.parseFrom(specBytes).get(0)
        val written = part.map { case (start, stop) =>
          HBaseConnections.withConnection(cluster) { connection =>
            writeRegion(connection, table, spec, reads, RowRange(start, stop), timestamp)
          }
        }.sum
        Iterator.single(written)
      }.collect().sum
    } finally session.sparkContext.setJobDescription(null)
  }

  private def writeRegion(
      connection: Connection,
      table: HBaseTableDef,
      spec: IndexSpec,
      reads: Seq[(Array[Byte], Array[Byte])],
      region: RowRange,
      timestamp: Long
  ): Long = {
    val mutator = connection.getBufferedMutator(
      new BufferedMutatorParams(org.apache.hadoop.hbase.TableName.valueOf(spec.indexTable()))
    )
    var written = 0L
    try {
      RawRows.foreach(connection, table.hbaseTable.hbase, region.start, region.stop, reads) { result =>
        val key = IndexRows.rowOf(spec, result.getRow, result.listCells())
        if (key != null) {
          mutator.mutate(IndexRows.verifiedPut(spec, key, result.listCells(), timestamp))
          written += 1
        }
      }
      mutator.flush()
    } finally mutator.close()
    written
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
