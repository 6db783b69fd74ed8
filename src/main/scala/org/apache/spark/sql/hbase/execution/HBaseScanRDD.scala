// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.CompareOperator
import org.apache.hadoop.hbase.client.{Get, Result, Scan}
import org.apache.hadoop.hbase.filter.{
  BinaryComparator, Filter, FilterList, FirstKeyOnlyFilter, KeyOnlyFilter, MultiRowRangeFilter, QualifierFilter
}

import org.apache.spark.{Partition, SparkContext, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Predicate
import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.metadata.{HBaseColumn, HBaseTableDef}
import org.apache.spark.sql.hbase.codec.{BadRowKey, RowCodec, RowRange}
import org.apache.spark.sql.hbase.planner.{RegionScan, ScanRequest}
import org.apache.spark.sql.hbase.server.TopNSpec

/** The regions one partition reads, one after another: one region, or an aligned key range's regions. */
final case class HBaseRegionPartition(index: Int, scans: Seq[RegionScan]) extends Partition

/**
 * Reads its partitions' regions: their row ranges, with Gets when they are whole keys, decoding
 * the requested columns and keeping the rows that pass each region's residual predicate.
 */
class HBaseScanRDD(sc: SparkContext, request: ScanRequest, partitions: Seq[Seq[RegionScan]], metrics: ReadMetrics)
    extends RDD[InternalRow](sc, Nil) {

  override protected def getPartitions: Array[Partition] =
    partitions.zipWithIndex.map { case (s, i) => HBaseRegionPartition(i, s): Partition }.toArray

  override protected def getPreferredLocations(split: Partition): Seq[String] =
    split.asInstanceOf[HBaseRegionPartition].scans.flatMap(_.region.host).distinct

  override def compute(split: Partition, context: TaskContext): Iterator[InternalRow] = {
    val partition = split.asInstanceOf[HBaseRegionPartition]
    // A region is opened only once the one before it has been read to its end.
    partition.scans.iterator.flatMap { scan =>
      HBaseScanRDD.readRegion(
        request,
        scan,
        partition.index,
        metrics,
        close => context.addTaskCompletionListener[Unit](_ => close())
      )
    }
  }
}

object HBaseScanRDD {

  /**
   * Reads one region's part of a scan: the rows of its ranges that pass its residual predicate
   * (in the region server as far as its server filter goes), with the columns `request.read`.
   * `onClose` receives what releases the HBase resources once the rows have been consumed.
   *
   * A region server without the server jar refuses its filter, also when the region moves there
   * in the middle of the read; the rest of the region is then read as planned without it.
   */
  def readRegion(
      request: ScanRequest,
      regionScan: RegionScan,
      partitionIndex: Int,
      metrics: ReadMetrics,
      onClose: (() => Unit) => Unit
  ): Iterator[InternalRow] = RegionReadFailure.translating(request.table.hbaseTable, regionScan.region) {
    // A region the join's keys left no rows to read in.
    if (regionScan.ranges.isEmpty) Iterator.empty
    else if (regionScan.server.isEmpty) read(request, regionScan, partitionIndex, metrics, onClose, _ => ())
    else new ServerJarFallback[InternalRow](
      request.table.hbaseTable,
      regionScan,
      "filter",
      returned => read(request, regionScan, partitionIndex, metrics, onClose, returned),
      rest => read(request, rest.withoutServer, partitionIndex, metrics, onClose, _ => ()),
      request.reversed
    )
  }

  private def read(
      request: ScanRequest,
      regionScan: RegionScan,
      partitionIndex: Int,
      metrics: ReadMetrics,
      onClose: (() => Unit) => Unit,
      returned: Result => Unit
  ): Iterator[InternalRow] = {
    val table = request.table
    val codec = new RowCodec(table)
    val decode = codec.decoder(request.columns, checkKeys = true)
    val filter: Option[Filter] = regionScan.server match {
      case Some(server) => Some(server.filter)
      case None => cellFilter(table, request.columns)
    }
    val results: Iterator[Result] =
      if (regionScan.byGets) {
        val htable = RegionScanners.table(request, onClose)
        val keys = if (request.reversed) regionScan.ranges.reverse else regionScan.ranges
        keys.grouped(request.limits.caching).flatMap { batch =>
          metrics.gets += batch.size
          metrics.rowsScanned += batch.size
          htable.get(batch.map(r => getFor(request, filter, r.start)).asJava).iterator.filterNot(_.isEmpty)
        }
      } else {
        val scan = scanFor(
          request,
          regionScan.ranges,
          if (regionScan.server.isDefined && !regionScan.narrowed) filter.toSeq
          else rangeFilter(regionScan.ranges).toSeq ++ filter
        )
        scan.setScanMetricsEnabled(true)
        // Only through the server jar: a read without it (or after its refusal) returns every row.
        if (regionScan.server.isDefined) request.topN.foreach(t => scan.setAttribute(TopNSpec.ATTRIBUTE, t.spec.bytes))
        val scanner = RegionScanners.open(
          request,
          scan,
          onClose,
          closed => Option(closed.getScanMetrics).foreach(m => metrics.rowsScanned += m.countOfRowsScanned.get())
        )
        scanner.iterator().asScala
      }
    val rows = results.flatMap { r =>
      metrics.rowsRead += 1
      returned(r)
      val row = decode(r)
      if (row != null) Iterator.single(row)
      else if (request.skipBadRowKeys) { metrics.badRowKeys += 1; Iterator.empty }
      else throw BadRowKey.error(table, r.getRow, codec.rowProblem(r))
    }
    regionScan.residual match {
      case None => rows
      case Some(condition) =>
        val predicate = Predicate.create(condition, request.read)
        predicate.initialize(partitionIndex)
        rows.filter(predicate.eval)
    }
  }

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
