package org.apache.spark.sql.hbase.execution

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{Get, Scan}
import org.apache.hadoop.hbase.filter.{Filter, FilterList, FirstKeyOnlyFilter, KeyOnlyFilter, MultiRowRangeFilter}

import org.apache.spark.{Partition, SparkContext, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.hbase.catalog.{HBaseColumn, HBaseTableDef}
import org.apache.spark.sql.hbase.codec.{RowCodec, Utf8}
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.planning.RowRange

final case class HBaseRegionPartition(index: Int, region: RegionInfo, ranges: Seq[RowRange]) extends Partition

/** Reads the given row ranges of one HBase region per partition, decoding only the requested columns. */
class HBaseScanRDD(
    sc: SparkContext,
    table: HBaseTableDef,
    cluster: HBaseClusterConf,
    required: Seq[HBaseColumn],
    regions: Seq[(RegionInfo, Seq[RowRange])],
    scannerCaching: Int,
    numGets: SQLMetric)
  extends RDD[InternalRow](sc, Nil) {

  override protected def getPartitions: Array[Partition] =
    regions.zipWithIndex.map { case ((r, ranges), i) => HBaseRegionPartition(i, r, ranges): Partition }.toArray

  override protected def getPreferredLocations(split: Partition): Seq[String] =
    split.asInstanceOf[HBaseRegionPartition].region.host.toSeq

  override def compute(split: Partition, context: TaskContext): Iterator[InternalRow] = {
    val partition = split.asInstanceOf[HBaseRegionPartition]
    val decode = new RowCodec(table).decoder(required)
    val connection = HBaseConnections.borrow(cluster)
    val htable = connection.getTable(TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name))
    if (partition.ranges.forall(HBaseScanRDD.isSingleRow)) {
      // Whole keys: batched Gets instead of a scan.
      context.addTaskCompletionListener[Unit] { _ => htable.close(); HBaseConnections.release(cluster) }
      partition.ranges.grouped(scannerCaching).flatMap { batch =>
        numGets += batch.size
        htable.get(batch.map(r => HBaseScanRDD.getFor(table, required, r.start)).asJava).iterator.filterNot(_.isEmpty)
      }.map(decode)
    } else {
      val scanner = htable.getScanner(HBaseScanRDD.scanFor(table, required, partition.ranges, scannerCaching))
      context.addTaskCompletionListener[Unit] { _ =>
        scanner.close(); htable.close(); HBaseConnections.release(cluster)
      }
      scanner.iterator().asScala.map(decode)
    }
  }
}

object HBaseScanRDD {
  /** A range holding one row key only: [k, k + 0x00). */
  def isSingleRow(r: RowRange): Boolean =
    r.stop.length == r.start.length + 1 && r.stop.last == 0 &&
      java.util.Arrays.equals(r.start, 0, r.start.length, r.stop, 0, r.start.length)

  def getFor(table: HBaseTableDef, required: Seq[HBaseColumn], row: Array[Byte]): Get = {
    val get = new Get(row)
    table.families.foreach(f => get.addFamily(Utf8.bytes(f)))
    if (required.forall(_.isKey)) get.setFilter(new FilterList(new FirstKeyOnlyFilter(), new KeyOnlyFilter()))
    get
  }

  /**
   * A row exists when it has a cell in one of the table's families, so the scan always reads
   * those families; when no value column is needed only the first cell's key is fetched.
   */
  def scanFor(table: HBaseTableDef, required: Seq[HBaseColumn], ranges: Seq[RowRange], caching: Int): Scan = {
    val scan = new Scan().withStartRow(ranges.head.start).withStopRow(ranges.last.stop).setCaching(caching)
    table.families.foreach(f => scan.addFamily(Utf8.bytes(f)))
    val filters = new java.util.ArrayList[Filter]()
    // Several ranges in one region: one scan that seeks from range to range.
    if (ranges.size > 1) {
      filters.add(new MultiRowRangeFilter(new java.util.ArrayList[MultiRowRangeFilter.RowRange](
        ranges.map(r => new MultiRowRangeFilter.RowRange(r.start, true, r.stop, false)).asJava)))
    }
    if (required.forall(_.isKey)) {
      filters.add(new FirstKeyOnlyFilter())
      filters.add(new KeyOnlyFilter())
    }
    if (!filters.isEmpty) scan.setFilter(new FilterList(FilterList.Operator.MUST_PASS_ALL, filters))
    scan
  }
}
