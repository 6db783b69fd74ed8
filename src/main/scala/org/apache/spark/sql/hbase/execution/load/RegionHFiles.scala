// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.hbase.{KeyValue, TableName}
import org.apache.hadoop.hbase.io.hfile.CacheConfig
import org.apache.hadoop.hbase.regionserver.{HStoreFile, StoreFileWriter}
import org.apache.hadoop.hbase.tool.BulkLoadHFiles
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.execution.metric.SQLMetrics
import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.codec.RowCodec
import org.apache.spark.sql.hbase.rangeindex.RecordedWrites
import org.apache.spark.sql.hbase.server.PackedCell

/**
 * Writes the sorted rows of one region's partition as one HFile per column family, under
 * `staging/<family>/`, the layout HBase's bulk loader takes. Of several rows with the same key
 * the last one wins; a NULL value becomes a delete marker, so loading a row replaces it whole,
 * as INSERT does. For a table with range indexes, the rows are `recorded`, and the files named
 * after the mark they are recorded under. The files, their bytes and the time writing them are
 * counted in `metrics`.
 */
final class RegionHFiles(
    conf: Configuration,
    staging: Path,
    codec: RowCodec,
    storage: Map[String, FamilyStorage],
    fileName: String,
    timestamp: Long,
    recorded: Option[RecordedWrites],
    metrics: LoadMetrics
) {
  HFileWriterMetrics.install()
  private val fs: FileSystem = staging.getFileSystem(conf)
  private val writers = mutable.LinkedHashMap.empty[String, StoreFileWriter]
  private val families = codec.families.map(Utf8.string)
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
      if (codec.table.isPacked) {
        // One cell per family, each family in a file of its own: a packed cell replaces the row's values.
        codec.packedCells(values).foreach { case (family, cell) =>
          writer(Utf8.string(family)).append(
            new KeyValue(rowKey, family, PackedCell.QUALIFIER, timestamp, KeyValue.Type.Put, cell)
          )
        }
      } else writeCells(rowKey, values)
      recorded.foreach(_.addCells(rowKey, values))
      rows += 1
    }

  private def writeCells(rowKey: Array[Byte], values: Array[Array[Byte]]): Unit = {
    // HBase has no row without a cell: a row whose values are all NULL keeps an empty marker cell.
    if (values.forall(_ == null)) {
      writer(Utf8.string(codec.markerFamily)).append(new KeyValue(
        rowKey,
        codec.markerFamily,
        RowCodec.RowMarkerQualifier,
        timestamp,
        KeyValue.Type.Put,
        Array.emptyByteArray
      ))
    }
    cellOrder.foreach { i =>
      val cell =
        if (values(i) == null)
          new KeyValue(rowKey, codec.families(i), codec.qualifiers(i), timestamp, KeyValue.Type.DeleteColumn)
        else new KeyValue(rowKey, codec.families(i), codec.qualifiers(i), timestamp, KeyValue.Type.Put, values(i))
      writer(families(i)).append(cell)
    }
  }

  private def writer(family: String): StoreFileWriter = writers.getOrElseUpdate(
    family, {
      val familyStorage =
        storage.getOrElse(family, throw new IllegalStateException(s"no column family '$family' in the table"))
      new StoreFileWriter.Builder(conf, CacheConfig.DISABLED, fs)
        .withFilePath(new Path(new Path(staging, family), recorded.fold(fileName)(_.fileName(fileName))))
        .withFileContext(familyStorage.context(conf))
        .withBloomType(familyStorage.bloomType)
        .build()
    }
  )

  /** The mark the rows of the files are recorded under, once they are closed; None when there are none. */
  def markId: Option[String] = if (rows > 0) recorded.map(_.id) else None

  /**
   * Closes the files, marked as bulk-loaded, and records their rows; returns them by family. HBase
   * checks that the user who loads may read and write the files and moves them away, and that user
   * may not be the one who wrote them (the Thrift server loads as its session's user), so they are
   * open to all: they are only ever staged here.
   */
  def close(): Map[String, Path] = {
    val files = writers.map { case (family, w) =>
      SQLMetrics.withTimingNs(metrics.writeTime) {
        w.appendFileInfo(HStoreFile.BULKLOAD_TIME_KEY, Bytes.toBytes(timestamp))
        w.appendFileInfo(HStoreFile.MAJOR_COMPACTION_KEY, Bytes.toBytes(false))
        w.appendTrackedTimestampsToMetadata()
        w.close()
      }
      fs.setPermission(w.getPath, new FsPermission("666"))
      fs.setPermission(w.getPath.getParent, new FsPermission("777"))
      metrics.hfilesWritten += 1
      metrics.bytesWritten += fs.getFileStatus(w.getPath).getLen
      family -> w.getPath
    }.toMap
    writers.clear()
    recorded.foreach(_.record())
    files
  }

  /** Removes what was written so far, after a failure. */
  def abort(): Unit = {
    writers.values.foreach(w =>
      try w.close()
      catch { case _: Exception => }
    )
    writers.values.foreach(w => fs.delete(w.getPath, false))
    writers.clear()
  }
}

object RegionHFiles {

  /**
   * Hands HFiles to the region servers; HBase splits a file again if its region has split since.
   * Returns the regions they went into, by start key in hex.
   */
  def bulkLoad(conf: Configuration, table: TableName, files: Map[String, Seq[Path]]): Set[String] = {
    val byFamily = new java.util.TreeMap[Array[Byte], java.util.List[Path]](Bytes.BYTES_COMPARATOR)
    files.foreach { case (family, paths) =>
      if (paths.nonEmpty)
        byFamily.put(Utf8.bytes(family), new java.util.ArrayList[Path](java.util.Arrays.asList(paths: _*)))
    }
    if (byFamily.isEmpty) Set.empty
    else BulkLoadHFiles.create(conf).bulkLoad(table, byFamily).values.asScala.map(start =>
      Bytes.toHex(Bytes.getBytes(start))
    ).toSet
  }
}
