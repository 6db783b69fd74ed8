// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.CompareOperator
import org.apache.hadoop.hbase.client.{Get, Scan}
import org.apache.hadoop.hbase.filter.{
  BinaryComparator, Filter, FilterList, FirstKeyOnlyFilter, KeyOnlyFilter, MultiRowRangeFilter, QualifierFilter
}

import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.metadata.{HBaseColumn, HBaseTableDef}
import org.apache.spark.sql.hbase.codec.RowRange
import org.apache.spark.sql.hbase.planner.ScanRequest

/**
 * The HBase calls that reads of regions send, built from what the plan says: the Gets and Scans
 * of a table scan ([[HBaseScanRDD.readRegion]]), of an aggregate's regions (`HBaseAggregateRDD`),
 * of a read of changes (`ChangedRows`) and of a range index build, and the filters that keep
 * what comes back to the rows and cells wanted.
 */
object HBaseCalls {

  /** A Get of one row: the request's families and time ranges, through `filter`. */
  def getFor(request: ScanRequest, filter: Option[Filter], row: Array[Byte]): Get = {
    val get = new Get(row)
    request.table.rowFamilies.foreach(f => get.addFamily(Utf8.bytes(f)))
    request.asOf.foreach(millis => get.setTimeRange(0L, millis + 1))
    writtenSince(request)(get.setColumnFamilyTimeRange)
    filter.foreach(get.setFilter)
    get
  }

  /** One scan from the first range's start to the last range's stop, through `filters`. */
  def scanFor(request: ScanRequest, ranges: Seq[RowRange], filters: Seq[Filter]): Scan = {
    val limits = request.limits
    val scan =
      if (!request.reversed) new Scan().withStartRow(ranges.head.start).withStopRow(ranges.last.stop)
      // Downwards from the last range's stop, which it excludes, to the first one's start.
      else new Scan().withStartRow(ranges.last.stop, false).withStopRow(ranges.head.start, true).setReversed(true)
    limits.maxRows.filter(_ > 0).foreach(scan.setLimit)
    scan.setCaching(limits.maxRows.fold(limits.caching)(n => math.max(1, math.min(n, limits.caching))))
    request.table.rowFamilies.foreach(f => scan.addFamily(Utf8.bytes(f)))
    // Each cell's newest version written at or before that time.
    request.asOf.foreach(millis => scan.setTimeRange(0L, millis + 1))
    writtenSince(request)(scan.setColumnFamilyTimeRange)
    filters match {
      case Seq() =>
      case Seq(one) => scan.setFilter(one)
      case many => scan.setFilter(new FilterList(FilterList.Operator.MUST_PASS_ALL, many.asJava))
    }
    scan
  }

  /**
   * Every cell of `range` written in [since, until), without its value: each version, and the
   * delete markers too (a raw scan), as a read of changes looks through them. HBase leaves out
   * the store files whose cells all lie outside that time range.
   */
  def writesScan(request: ScanRequest, range: RowRange, since: Long, until: Long): Scan = {
    val scan = new Scan().withStartRow(range.start).withStopRow(range.stop)
      .setRaw(true).readAllVersions().setTimeRange(since, until).setCaching(request.limits.caching)
    request.table.rowFamilies.foreach(f => scan.addFamily(Utf8.bytes(f)))
    scan.setFilter(new KeyOnlyFilter())
    scan.setScanMetricsEnabled(true)
    scan
  }

  /** Each narrowed family's time range: from its time on, up to the as-of time (HBase's ranges exclude their end). */
  private def writtenSince(request: ScanRequest)(setRange: (Array[Byte], Long, Long) => Any): Unit = {
    val until = request.asOf.fold(Long.MaxValue)(_ + 1)
    request.writtenSince.foreach { case (family, since) =>
      setRange(Utf8.bytes(family), math.min(math.max(0L, since), until), until)
    }
  }

  /** Several ranges in one region, without the server jar: one scan that seeks from range to range. */
  def rangeFilter(ranges: Seq[RowRange]): Option[Filter] =
    if (ranges.size <= 1) None
    else Some(new MultiRowRangeFilter(new java.util.ArrayList[MultiRowRangeFilter.RowRange](
      ranges.map(r => new MultiRowRangeFilter.RowRange(r.start, true, r.stop, false)).asJava
    )))

  /**
   * A row exists when it has a cell in one of the table's families, so every family is read; but
   * only the first cell of a row (proof that it exists) and the needed columns' cells come back.
   * With no value column needed, the first cell's key alone does. A packed table's rows come
   * whole even then, as from the region servers: its decoder reads every packed cell of a row, so
   * that a malformed one or another tool's cell is reported, and a cell stripped of its value
   * would be malformed.
   */
  def cellFilter(table: HBaseTableDef, required: Seq[HBaseColumn]): Option[Filter] = {
    val neededCells = required.flatMap(_.readsCell).distinct
    val allCells = table.columns.flatMap(_.cell)
    if (table.isPacked) None
    else if (neededCells.isEmpty) Some(new FilterList(new FirstKeyOnlyFilter(), new KeyOnlyFilter()))
    else if (allCells.forall(neededCells.contains)) None
    else {
      val qualifiers = neededCells.map(_.qualifier).distinct.map { q =>
        new QualifierFilter(CompareOperator.EQUAL, new BinaryComparator(Utf8.bytes(q))): Filter
      }
      Some(new FilterList(FilterList.Operator.MUST_PASS_ONE, (new FirstKeyOnlyFilter() +: qualifiers).asJava))
    }
  }
}
