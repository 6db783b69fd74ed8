// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.hbase.{Cell, KeyValue, TableName}
import org.apache.hadoop.hbase.tool.BulkLoadHFiles
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.execution.metric.SQLMetrics
import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, StatementIdentity}
import org.apache.spark.sql.hbase.codec.RowCodec
import org.apache.spark.sql.hbase.rangeindex.RecordedWrites
import org.apache.spark.sql.hbase.server.{IndexTrust, PackedCell}

/**
 * Writes the sorted rows of one region's partition as one HFile per column family, under
 * `staging/<family>/`, the layout HBase's bulk loader takes. Of several rows with the same key
 * the last one wins; a NULL value becomes a delete marker, so loading a row replaces it whole,
 * as INSERT does. For a table with range indexes, the rows are `recorded`, and the files named
 * after the mark they are recorded under; with global indexes, the index cells the rows give are
 * written aside (`indexCells`), and the files named after the indexes they keep
 * (`server.IndexTrust`). The files, their bytes and the time writing them are counted in
 * `metrics`.
 */
final class RegionHFiles(
    conf: Configuration,
    staging: Path,
    codec: RowCodec,
    storage: Map[String, FamilyStorage],
    fileName: String,
    timestamp: Long,
    recorded: Option[RecordedWrites],
    indexCells: Option[IndexCells],
    metrics: LoadMetrics
) {
  private val named = indexCells.fold(fileName)(c => IndexTrust.fileName(fileName, c.load.tag))
  private val files =
    new StagedHFiles(conf, staging, storage, recorded.fold(named)(_.fileName(named)), timestamp, metrics)
  private val families = codec.families.map(Utf8.string)
  private val markerFamily = Utf8.string(codec.markerFamily)
  // Within a row, cells go in family then qualifier order.
  private val cellOrder: Array[Int] = codec.families.indices.sortWith { (a, b) =>
    val byFamily = Bytes.compareTo(codec.families(a), codec.families(b))
    if (byFamily != 0) byFamily < 0 else Bytes.compareTo(codec.qualifiers(a), codec.qualifiers(b)) < 0
  }.toArray
  private var rows = 0L

  /** Writes `sorted` (by key, then input order) and returns how many distinct rows it held. */
  def write(sorted: Iterator[(LoadKey, Array[Array[Byte]])]): Long = {
    val buffered = sorted.buffered
    while (buffered.hasNext) {
      var (key, values) = buffered.next()
      while (buffered.hasNext && Bytes.equals(buffered.head._1.rowKey, key.rowKey)) values = buffered.next()._2
      writeRow(key.rowKey, values)
    }
    rows
  }

  // Timed per row, not per call: the rows come from a lazy iterator that reads and sorts the input.
  private def writeRow(rowKey: Array[Byte], values: Array[Array[Byte]]): Unit =
    SQLMetrics.withTimingNs(metrics.writeTime) {
      // The values the row gets, for its index cells; gathered only where there are global indexes.
      val puts = indexCells.map(_ => Vector.newBuilder[Cell])
      def append(family: String, cell: KeyValue): Unit = {
        files.append(family, cell)
        if (cell.getTypeByte == KeyValue.Type.Put.getCode) puts.foreach(_ += cell)
      }
      if (codec.table.isPacked) {
        // One cell per family, each family in a file of its own: a packed cell replaces the row's values.
        codec.packedCells(values).foreach { case (family, cell) =>
          append(
            Utf8.string(family),
            new KeyValue(rowKey, family, PackedCell.QUALIFIER, timestamp, KeyValue.Type.Put, cell)
          )
        }
      } else {
        // HBase has no row without a cell: a row whose values are all NULL keeps an empty marker cell.
        if (values.forall(_ == null)) {
          append(
            markerFamily,
            new KeyValue(
              rowKey,
              codec.markerFamily,
              RowCodec.RowMarkerQualifier,
              timestamp,
              KeyValue.Type.Put,
              Array.emptyByteArray
            )
          )
        }
        cellOrder.foreach { i =>
          append(
            families(i),
            if (values(i) == null)
              new KeyValue(rowKey, codec.families(i), codec.qualifiers(i), timestamp, KeyValue.Type.DeleteColumn)
            else new KeyValue(rowKey, codec.families(i), codec.qualifiers(i), timestamp, KeyValue.Type.Put, values(i))
          )
        }
      }
      recorded.foreach(_.addCells(rowKey, values))
      for (cells <- indexCells; row <- puts) cells.add(rowKey, row.result())
      rows += 1
    }

  /** The mark the rows of the files are recorded under, once they are closed; None when there are none. */
  def markId: Option[String] = if (rows > 0) recorded.map(_.id) else None

  /** The file of index cells the rows give, once closed; None without global indexes or rows. */
  def indexCellsFile: Option[String] = if (rows > 0) indexCells.map(_.path) else None

  /** Closes the files and records their rows; returns them by family. */
  def close(): Map[String, Path] = {
    val closed = files.close()
    recorded.foreach(_.record())
    indexCells.foreach(_.close())
    closed
  }

  /** Removes what was written so far, after a failure. */
  def abort(): Unit = {
    files.abort()
    indexCells.foreach(_.abort())
  }
}

object RegionHFiles {

  /** [[bulkLoad]] for a statement, its time counted in `metrics.loadTime`. */
  def bulkLoad(
      cluster: HBaseClusterConf,
      table: TableName,
      files: Map[String, Seq[Path]],
      metrics: LoadMetrics
  ): Set[String] = SQLMetrics.withTimingNs(metrics.loadTime)(bulkLoad(cluster, table, files))

  /**
   * Hands HFiles to the region servers, as the statement's HBase user (HBase's bulk loader opens
   * a connection of its own, as the calling user); HBase splits a file again if its region has
   * split since. Returns the regions they went into, by start key in hex.
   */
  def bulkLoad(cluster: HBaseClusterConf, table: TableName, files: Map[String, Seq[Path]]): Set[String] = {
    val byFamily = new java.util.TreeMap[Array[Byte], java.util.List[Path]](Bytes.BYTES_COMPARATOR)
    files.foreach { case (family, paths) =>
      if (paths.nonEmpty)
        byFamily.put(Utf8.bytes(family), new java.util.ArrayList[Path](java.util.Arrays.asList(paths: _*)))
    }
    if (byFamily.isEmpty) Set.empty
    else StatementIdentity.actAs(cluster) {
      BulkLoadHFiles.create(cluster.toConfiguration).bulkLoad(table, byFamily).values.asScala.map(start =>
        Bytes.toHex(Bytes.getBytes(start))
      ).toSet
    }
  }
}
