// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.client.Result
import org.apache.hadoop.hbase.filter.Filter
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.{Partition, SparkContext, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BindReferences, Expression, Predicate}
import org.apache.spark.sql.hbase.codec.{BadRowKey, RowCodec}
import org.apache.spark.sql.hbase.globalindex.{CoveredRow, CoveredRowDecoder}
import org.apache.spark.sql.hbase.execution.HBaseCalls.{cellFilter, getFor, rangeFilter, scanFor}
import org.apache.spark.sql.hbase.planner.{RegionScan, ScanRequest}
import org.apache.spark.sql.hbase.server.TopNSpec

/** The regions one partition reads, one after another: one region, or an aligned key range's regions. */
final case class HBaseRegionPartition(index: Int, scans: Seq[RegionScan]) extends Partition

/**
 * Reads its partitions' regions: their row ranges, with Gets when they are whole keys, decoding
 * the requested columns and keeping the rows that pass each region's residual predicate.
 */
class HBaseScanRDD(
    sc: SparkContext,
    request: ScanRequest,
    // Only the driver reads it: each task gets its own partition, not every region's scans.
    @transient private val regionScans: Seq[Seq[RegionScan]],
    metrics: ReadMetrics
) extends RDD[InternalRow](sc, Nil) {

  override protected def getPartitions: Array[Partition] =
    regionScans.zipWithIndex.map { case (s, i) => HBaseRegionPartition(i, s): Partition }.toArray

  override protected def getPreferredLocations(split: Partition): Seq[String] =
    split.asInstanceOf[HBaseRegionPartition].scans.flatMap(_.region.host).distinct

  override def compute(split: Partition, context: TaskContext): Iterator[InternalRow] = {
    val partition = split.asInstanceOf[HBaseRegionPartition]
    // A region is opened only once the one before it has been read to its end, and closed there.
    partition.scans.iterator.flatMap { scan =>
      RegionCloses.closedAtEnd(context)(HBaseScanRDD.readRegion(request, scan, partition.index, metrics, _))
    }
  }
}

/** The one reader of a region's part of a scan, for the scan's partitions, its reads on the driver and reads of changes. */
object HBaseScanRDD {

  /**
   * Reads one region's part of a scan: the rows of its ranges that pass its residual predicate
   * (in the region server as far as its server filter goes), with the columns `request.read`.
   * `onClose` receives what releases the HBase resources once the rows have been consumed.
   *
   * A region server without the server jar refuses its filter, also when the region moves there
   * in the middle of the read; the rest of the region is then read as planned without it.
   *
   * `fewRows` (a read on the driver) evaluates what is left of the WHERE clause interpreted:
   * generating its code would cost more than a few rows' evaluation.
   */
  def readRegion(
      request: ScanRequest,
      regionScan: RegionScan,
      partitionIndex: Int,
      metrics: ReadMetrics,
      onClose: (() => Unit) => Unit,
      fewRows: Boolean = false
  ): Iterator[InternalRow] = RegionReadFailure.translating(request.table.hbaseTable, regionScan.region) {
    // A region the join's keys (or an index) left no rows to read in.
    if (regionScan.readsNothing) Iterator.empty
    else if (regionScan.server.isEmpty) read(request, regionScan, partitionIndex, metrics, onClose, fewRows, _ => ())
    else new ServerJarFallback[InternalRow](
      request.table.hbaseTable,
      regionScan,
      "filter",
      returned => read(request, regionScan, partitionIndex, metrics, onClose, fewRows, returned),
      rest => read(request, rest.withoutServer, partitionIndex, metrics, onClose, fewRows, _ => ()),
      request.reversed
    )
  }

  private def read(
      request: ScanRequest,
      regionScan: RegionScan,
      partitionIndex: Int,
      metrics: ReadMetrics,
      onClose: (() => Unit) => Unit,
      fewRows: Boolean,
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
      if (regionScan.ranges.isEmpty) Iterator.empty
      else if (regionScan.byGets) {
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
    def predicate(condition: Option[Expression]): InternalRow => Boolean = condition match {
      case None => _ => true
      case Some(c) =>
        val p =
          if (fewRows) Predicate.createInterpreted(BindReferences.bindReference(c, request.read))
          else Predicate.create(c, request.read)
        p.initialize(partitionIndex)
        p.eval
    }
    def checked(r: Result, row: InternalRow): Iterator[InternalRow] =
      if (row != null) Iterator.single(row)
      else if (request.skipBadRowKeys) { metrics.badRowKeys += 1; Iterator.empty }
      else throw BadRowKey.error(table, r.getRow, codec.rowProblem(r))
    val residual = predicate(regionScan.residual)
    regionScan.covered match {
      case None =>
        results.flatMap { r =>
          metrics.rowsRead += 1
          returned(r)
          checked(r, decode(r))
        }.filter(residual)
      case Some(covered) =>
        // Index rows were checked by no region server: they meet what the server filter checks here.
        val whole = predicate(regionScan.withoutServer.residual)
        val decodeCovered = new CoveredRowDecoder(table, covered.index, request.columns)
        val rows = if (request.reversed) covered.rows.reverseIterator else covered.rows.iterator
        inKeyOrder(results, rows.map(c => (c, decodeCovered.result(c))), request.reversed).flatMap {
          case Left(r) =>
            metrics.rowsRead += 1
            returned(r)
            checked(r, decode(r)).filter(residual)
          case Right((c, r)) =>
            metrics.rowsRead += 1
            returned(r)
            checked(r, decodeCovered(c, r)).filter(whole)
        }
    }
  }

  /**
   * The rows of a region's reads and those its covering index answered for, in the order of their
   * keys (`descending` for a reversed read); a key in both (which the index's answer excludes)
   * comes once, from the read.
   */
  private def inKeyOrder(
      read: Iterator[Result],
      covered: Iterator[(CoveredRow, Result)],
      descending: Boolean
  ): Iterator[Either[Result, (CoveredRow, Result)]] = new Iterator[Either[Result, (CoveredRow, Result)]] {
    private val (a, b) = (read.buffered, covered.buffered)
    private def order(x: Array[Byte], y: Array[Byte]) = if (descending) Bytes.compareTo(y, x) else Bytes.compareTo(x, y)
    override def hasNext: Boolean = a.hasNext || b.hasNext
    override def next(): Either[Result, (CoveredRow, Result)] =
      if (!b.hasNext) Left(a.next())
      else if (!a.hasNext) Right(b.next())
      else {
        val c = order(a.head.getRow, b.head._1.dataKey)
        if (c < 0) Left(a.next())
        else if (c > 0) Right(b.next())
        else { b.next(); Left(a.next()) }
      }
  }
}
