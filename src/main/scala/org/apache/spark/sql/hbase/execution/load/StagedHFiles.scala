// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import scala.collection.mutable

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.hbase.Cell
import org.apache.hadoop.hbase.io.hfile.CacheConfig
import org.apache.hadoop.hbase.regionserver.{HStoreFile, StoreFileWriter}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.execution.metric.SQLMetrics

/**
 * One HFile per column family, `staging/<family>/<fileName>`, the layout HBase's bulk loader
 * takes, each stored as its family says (`storage`); cells are appended in HBase's order. The
 * files, their bytes and the time writing them are counted in `metrics`.
 */
final class StagedHFiles(
    conf: Configuration,
    staging: Path,
    storage: Map[String, FamilyStorage],
    fileName: String,
    timestamp: Long,
    metrics: LoadMetrics
) {
  HFileWriterMetrics.install()
  private val fs: FileSystem = staging.getFileSystem(conf)
  private val writers = mutable.LinkedHashMap.empty[String, StoreFileWriter]

  def append(family: String, cell: Cell): Unit = writer(family).append(cell)

  private def writer(family: String): StoreFileWriter = writers.getOrElseUpdate(
    family, {
      val familyStorage =
        storage.getOrElse(family, throw new IllegalStateException(s"no column family '$family' in the table"))
      new StoreFileWriter.Builder(conf, CacheConfig.DISABLED, fs)
        .withFilePath(new Path(new Path(staging, family), fileName))
        .withFileContext(familyStorage.context(conf))
        .withBloomType(familyStorage.bloomType)
        .build()
    }
  )

  /**
   * Closes the files, marked as bulk-loaded; returns them by family. HBase checks that the user
   * who loads may read and write the files and moves them away, and that user may not be the one
   * who wrote them (the Thrift server loads as its session's user), so they are open to all: they
   * are only ever staged here.
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
