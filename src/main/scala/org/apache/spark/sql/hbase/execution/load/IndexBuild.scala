// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.{KeyValueUtil, TableName}

import org.apache.spark.{SparkContext, TaskContext}
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.execution.{RegionCloses, RegionScanners}
import org.apache.spark.sql.hbase.globalindex.RawRows
import org.apache.spark.sql.hbase.server.{IndexRows, IndexSpec}

/**
 * A global index's rows for the rows its table has, as HFiles: a Spark task per data region reads
 * the region's rows (closed at their end or the task's, as a scan's) and gives each its index row, VERIFIED, with its covered cells, at the build's
 * timestamp (worked out by the server jar's own `IndexRows`, as the region servers do); the cells
 * are sorted into a set of HFiles per index region ([[IndexHFiles]]), which HBase's bulk loader
 * moves into the index table. Files rather than puts: the region servers write no WAL and no
 * memstore for them, and have nothing to flush or compact after.
 */
object IndexBuild {
  val StagingPrefix = "spark-hbase-index-build-"

  /**
   * Writes and loads the rows of index `spec` for the rows of `table` in `regions` (start and end
   * keys), reading the cells `reads` names; returns how many index rows were loaded.
   */
  def write(
      sc: SparkContext,
      cluster: HBaseClusterConf,
      table: TableName,
      spec: IndexSpec,
      reads: Seq[(Array[Byte], Array[Byte])],
      regions: Seq[(Array[Byte], Array[Byte])],
      timestamp: Long
  ): Long = {
    val load = IndexedLoad.of(cluster, Seq(spec)).get
    val target = IndexedLoad.target(0, before = true)
    val conf = cluster.toConfiguration
    val staging = BulkLoad.newStaging(conf, StagingPrefix)
    BulkLoad.emptyStaging(conf, staging)
    try {
      val specBytes = load.specs
      val dataTable = table.getNameAsString // TableName is not serializable
      val cells = sc.parallelize(regions, math.max(1, regions.size)).mapPartitions { part =>
        val task = TaskContext.get()
        val spec = IndexSpec.parseFrom(specBytes).get(0)
        part.flatMap { case (start, stop) =>
          val rows = RegionCloses.closedAtEnd(task) { onClose =>
            val scan = RawRows.scan(start, stop, reads, limit = None)
            RegionScanners.openOn(cluster, TableName.valueOf(dataTable), scan, onClose).iterator().asScala
          }
          rows.flatMap { result =>
            val read = result.listCells()
            val key = IndexRows.rowOf(spec, result.getRow, read)
            if (key == null) Iterator.empty
            else IndexRows.verifiedPut(spec, key, read, timestamp).getFamilyCellMap.values.asScala.iterator
              .flatMap(_.asScala)
              .map(cell => (IndexCell(target, KeyValueUtil.copyToNewByteArray(cell)), 0.toByte))
          }
        }
      }
      val metrics = LoadMetrics.unshown(sc)
      val written = IndexHFiles.sorted(cells, cluster, load, staging, timestamp, metrics)
      IndexHFiles.load(cluster, metrics, load, written, before = true)
      written.map(_.rows).sum
    } finally staging.getFileSystem(conf).delete(staging, true)
  }
}
