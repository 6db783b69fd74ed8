package org.apache.spark.sql.hbase.execution

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.{CompareOperator, TableName}
import org.apache.hadoop.hbase.client.{Get, Result, Scan}
import org.apache.hadoop.hbase.filter.{BinaryComparator, Filter, FilterList, FirstKeyOnlyFilter, KeyOnlyFilter, MultiRowRangeFilter, QualifierFilter}

import org.apache.spark.{Partition, SparkContext, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Predicate}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.hbase.catalog.{HBaseColumn, HBaseTableDef}
import org.apache.spark.sql.hbase.codec.{RowCodec, Utf8}
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.planning.{RegionScan, RowRange}

final case class HBaseRegionPartition(index: Int, scan: RegionScan) extends Partition

/** How much one region's scanner fetches per round trip, and at most in all. */
final case class ScanLimits(caching: Int, maxRows: Option[Int])

/**
 * Reads one region per partition: its row ranges, with Gets when they are whole keys, decoding
 * the requested columns and keeping the rows that pass the region's residual predicate.
 */
class HBaseScanRDD(
    sc: SparkContext,
    table: HBaseTableDef,
    cluster: HBaseClusterConf,
    output: Seq[Attribute],
    required: Seq[HBaseColumn],
    scans: Seq[RegionScan],
    limits: ScanLimits,
    rowsRead: SQLMetric,
    gets: SQLMetric)
  extends RDD[InternalRow](sc, Nil) {

  override protected def getPartitions: Array[Partition] =
    scans.zipWithIndex.map { case (s, i) => HBaseRegionPartition(i, s): Partition }.toArray

  override protected def getPreferredLocations(split: Partition): Seq[String] =
    split.asInstanceOf[HBaseRegionPartition].scan.region.host.toSeq

  override def compute(split: Partition, context: TaskContext): Iterator[InternalRow] = {
    val partition = split.asInstanceOf[HBaseRegionPartition]
    HBaseScanRDD.readRegion(table, cluster, output, required, partition.scan, partition.index, limits, rowsRead, gets,
      close => context.addTaskCompletionListener[Unit](_ => close()))
  }
}

object HBaseScanRDD {
  /**
   * Reads one region's part of a scan: the rows of its ranges that pass its residual predicate,
   * with the columns `required` (as `output`). `onClose` receives what releases the HBase
   * resources once the rows have been consumed.
   */
  def readRegion(
      table: HBaseTableDef,
      cluster: HBaseClusterConf,
      output: Seq[Attribute],
      required: Seq[HBaseColumn],
      regionScan: RegionScan,
      partitionIndex: Int,
      limits: ScanLimits,
      rowsRead: SQLMetric,
      gets: SQLMetric,
      onClose: (() => Unit) => Unit): Iterator[InternalRow] = {
    val decode = new RowCodec(table).decoder(required)
    val connection = HBaseConnections.borrow(cluster)
    val htable = connection.getTable(TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name))
    val results: Iterator[Result] =
      if (regionScan.byGets) {
        onClose(() => { htable.close(); HBaseConnections.release(cluster) })
        regionScan.ranges.grouped(limits.caching).flatMap { batch =>
          gets += batch.size
          htable.get(batch.map(r => getFor(table, required, r.start)).asJava).iterator.filterNot(_.isEmpty)
        }
      } else {
        val scanner = htable.getScanner(scanFor(table, required, regionScan.ranges, limits))
        onClose(() => { scanner.close(); htable.close(); HBaseConnections.release(cluster) })
        scanner.iterator().asScala
      }
    val rows = results.map { r => rowsRead += 1; decode(r) }
    regionScan.residual match {
      case None => rows
      case Some(condition) =>
        val predicate = Predicate.create(condition, output)
        predicate.initialize(partitionIndex)
        rows.filter(predicate.eval)
    }
  }

  def getFor(table: HBaseTableDef, required: Seq[HBaseColumn], row: Array[Byte]): Get = {
    val get = new Get(row)
    table.families.foreach(f => get.addFamily(Utf8.bytes(f)))
    cellFilter(table, required).foreach(get.setFilter)
    get
  }

  def scanFor(table: HBaseTableDef, required: Seq[HBaseColumn], ranges: Seq[RowRange], limits: ScanLimits): Scan = {
    val scan = new Scan().withStartRow(ranges.head.start).withStopRow(ranges.last.stop)
    limits.maxRows.filter(_ > 0).foreach(scan.setLimit)
    scan.setCaching(limits.maxRows.fold(limits.caching)(n => math.max(1, math.min(n, limits.caching))))
    table.families.foreach(f => scan.addFamily(Utf8.bytes(f)))
    val filters = new java.util.ArrayList[Filter]()
    // Several ranges in one region: one scan that seeks from range to range.
    if (ranges.size > 1) {
      filters.add(new MultiRowRangeFilter(new java.util.ArrayList[MultiRowRangeFilter.RowRange](
        ranges.map(r => new MultiRowRangeFilter.RowRange(r.start, true, r.stop, false)).asJava)))
    }
    cellFilter(table, required).foreach(filters.add)
    if (filters.size == 1) scan.setFilter(filters.get(0))
    else if (!filters.isEmpty) scan.setFilter(new FilterList(FilterList.Operator.MUST_PASS_ALL, filters))
    scan
  }

  /**
   * A row exists when it has a cell in one of the table's families, so every family is read; but
   * only the first cell of a row (proof that it exists) and the needed columns' cells come back.
   * With no value column needed, the first cell's key alone does.
   */
  private def cellFilter(table: HBaseTableDef, required: Seq[HBaseColumn]): Option[Filter] = {
    val neededCells = required.flatMap(_.cell).distinct
    val allCells = table.columns.flatMap(_.cell)
    if (neededCells.isEmpty) Some(new FilterList(new FirstKeyOnlyFilter(), new KeyOnlyFilter()))
    else if (allCells.forall(neededCells.contains)) None
    else {
      val qualifiers = neededCells.map(_.qualifier).distinct.map { q =>
        new QualifierFilter(CompareOperator.EQUAL, new BinaryComparator(Utf8.bytes(q))): Filter
      }
      Some(new FilterList(FilterList.Operator.MUST_PASS_ONE, (new FirstKeyOnlyFilter() +: qualifiers).asJava))
    }
  }
}
