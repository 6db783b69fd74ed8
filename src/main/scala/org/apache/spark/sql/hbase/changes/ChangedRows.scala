// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.changes

import java.nio.ByteBuffer

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.client.ResultScanner

import org.apache.spark.{Partition, SparkContext, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.hbase.codec.{BadRowKey, KeyBounds, RowCodec, RowRange}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.hbase.facts.HBaseRegions
import org.apache.spark.sql.hbase.planner.{RegionInfo, RegionScan}
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.sql.hbase.execution.{HBaseCalls, HBaseScanRDD, ReadMetrics, RegionReadFailure, RegionScanners}

/**
 * Reads a [[ChangeRead]], a region a partition: which rows have a write in its span (a raw
 * time-range scan of keys, which sees delete markers), then those rows' current values through
 * the region reader's Gets. A changed row that no longer exists is a delete.
 */
class ChangesRDD(
    sc: SparkContext,
    read: ChangeRead,
    regionsMaxAgeSeconds: Long,
    metrics: ReadMetrics,
    blockBytesScanned: SQLMetric
) extends RDD[InternalRow](sc, Nil) {

  // Looked up when the read runs, not when it is planned: EXPLAIN does no I/O.
  override protected def getPartitions: Array[Partition] =
    HBaseRegions.cached(read.cluster, read.table.hbaseTable, regionsMaxAgeSeconds).zipWithIndex.map {
      case (region, i) => ChangesPartition(i, region): Partition
    }.toArray

  override protected def getPreferredLocations(split: Partition): Seq[String] =
    split.asInstanceOf[ChangesPartition].region.host.toSeq

  override def compute(split: Partition, context: TaskContext): Iterator[InternalRow] = {
    val partition = split.asInstanceOf[ChangesPartition]
    ChangedRows.ofRegion(
      read,
      partition.region,
      partition.index,
      metrics,
      blockBytesScanned,
      close => context.addTaskCompletionListener[Unit](_ => close())
    )
  }
}

final case class ChangesPartition(index: Int, region: RegionInfo) extends Partition

object ChangedRows {

  /** The rows of `range` with a write placed in the read's span, in key order, each with the time of its latest one. */
  def changedKeys(
      read: ChangeRead,
      range: RowRange,
      metrics: ReadMetrics,
      blockBytesScanned: SQLMetric,
      onClose: (() => Unit) => Unit
  ): Iterator[(Array[Byte], Long)] = if (!read.from.precedes(read.to)) Iterator.empty
  else {
    val request = read.request
    val scan = HBaseCalls.writesScan(request, range, read.from.millis, read.to.timeRangeEnd)
    val scanner = RegionScanners.open(
      request,
      scan,
      onClose,
      closed => measured(closed, metrics, blockBytesScanned)
    )
    scanner.iterator().asScala.flatMap { result =>
      val row = result.getRow
      val times = result.rawCells().iterator.map(_.getTimestamp).filter(ts => inSpan(read, ts, row))
      if (times.isEmpty) None else Some(row -> times.max)
    }
  }

  /** HBase's count of rows looked at, and of store file block bytes read (none from a file the time range skips). */
  private def measured(scanner: ResultScanner, metrics: ReadMetrics, blockBytesScanned: SQLMetric): Unit =
    Option(scanner.getScanMetrics).foreach { m =>
      metrics.rowsScanned += m.countOfRowsScanned.get()
      blockBytesScanned += m.countOfBlockBytesScanned.get()
    }

  private def inSpan(read: ChangeRead, ts: Long, row: Array[Byte]) =
    read.from.before(ts, row) && read.to.notBefore(ts, row)

  /**
   * The place of each row's first write after the read's `from` and before its `to`, in key order:
   * a read from `from` up to a row's place includes that row.
   */
  def firstPlaces(
      read: ChangeRead,
      metrics: ReadMetrics,
      blockBytesScanned: SQLMetric,
      onClose: (() => Unit) => Unit
  ): Iterator[ChangePosition] = {
    val request = read.request
    val scan =
      HBaseCalls.writesScan(request, RowRange(Array.empty, Array.empty), read.from.millis, read.to.timeRangeEnd)
    val scanner = RegionScanners.open(request, scan, onClose, measured(_, metrics, blockBytesScanned))
    scanner.iterator().asScala.flatMap { result =>
      val row = result.getRow
      val times = result.rawCells().iterator.map(_.getTimestamp).filter(ts => inSpan(read, ts, row))
      if (times.isEmpty) None else Some(ChangePosition(times.min, Some(row)))
    }
  }

  /** One region's changed rows: current values (upserts), or keys alone (deletes). */
  def ofRegion(
      read: ChangeRead,
      region: RegionInfo,
      partitionIndex: Int,
      metrics: ReadMetrics,
      blockBytesScanned: SQLMetric,
      onClose: (() => Unit) => Unit
  ): Iterator[InternalRow] = RegionReadFailure.translating(read.table.hbaseTable, region) {
    val table = read.table
    val request = read.request
    val codec = new RowCodec(table)
    val width = table.columns.size
    val keyPositions = table.keys.map(table.columns.indexOf(_)).toArray
    val types = table.columns.map(_.dataType).toArray
    val upsert = UTF8String.fromString(ChangeRead.Upsert)
    val delete = UTF8String.fromString(ChangeRead.Delete)
    def change(values: Array[Any], kind: UTF8String, millis: Long): InternalRow = {
      values(width) = kind
      values(width + 1) = millis * 1000L
      new GenericInternalRow(values)
    }
    // A row that is not one of the table's (another tool's) fails the read, or is skipped, as in any read.
    val keys = changedKeys(read, RowRange(region.startKey, region.endKey), metrics, blockBytesScanned, onClose).filter {
      case (key, _) =>
        codec.keyValues(key) != null || {
          if (read.skipBadRowKeys) { metrics.badRowKeys += 1; false }
          else throw BadRowKey.error(table, key, codec.keyProblem(key))
        }
    }
    keys.grouped(request.limits.caching).flatMap { group =>
      val byGets = RegionScan(region, group.map { case (key, _) => RowRange(key, KeyBounds.successor(key)) }, None)
      val current = mutable.HashMap.empty[ByteBuffer, InternalRow]
      HBaseScanRDD.readRegion(request, byGets, partitionIndex, metrics, onClose).foreach { row =>
        current(ByteBuffer.wrap(codec.rowKey(row))) = row.copy()
      }
      group.iterator.map { case (key, millis) =>
        val values = new Array[Any](width + 2)
        current.get(ByteBuffer.wrap(key)) match {
          case Some(row) =>
            for (i <- 0 until width) values(i) = row.get(i, types(i))
            change(values, upsert, millis)
          case None =>
            codec.keyValues(key).zip(keyPositions).foreach { case (v, i) => values(i) = v }
            change(values, delete, millis)
        }
      }
    }
  }
}
