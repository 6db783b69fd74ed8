package org.apache.spark.sql.hbase.execution

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.Scan
import org.apache.hadoop.hbase.filter.{FilterList, FirstKeyOnlyFilter, KeyOnlyFilter}

import org.apache.spark.{Partition, SparkContext, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.catalog.{HBaseColumn, HBaseTableDef}
import org.apache.spark.sql.hbase.codec.{RowCodec, Utf8}
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}

final case class HBaseRegionPartition(index: Int, region: RegionInfo) extends Partition

/** Reads one HBase region per partition, decoding only the requested columns. */
class HBaseScanRDD(
    sc: SparkContext,
    table: HBaseTableDef,
    cluster: HBaseClusterConf,
    required: Seq[HBaseColumn],
    regions: Seq[RegionInfo],
    scannerCaching: Int)
  extends RDD[InternalRow](sc, Nil) {

  override protected def getPartitions: Array[Partition] =
    regions.zipWithIndex.map { case (r, i) => HBaseRegionPartition(i, r): Partition }.toArray

  override protected def getPreferredLocations(split: Partition): Seq[String] =
    split.asInstanceOf[HBaseRegionPartition].region.host.toSeq

  override def compute(split: Partition, context: TaskContext): Iterator[InternalRow] = {
    val region = split.asInstanceOf[HBaseRegionPartition].region
    val decode = new RowCodec(table).decoder(required)
    val connection = HBaseConnections.borrow(cluster)
    val htable = connection.getTable(TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name))
    val scanner = htable.getScanner(HBaseScanRDD.scanFor(table, required, region, scannerCaching))
    context.addTaskCompletionListener[Unit] { _ =>
      scanner.close(); htable.close(); HBaseConnections.release(cluster)
    }
    scanner.iterator().asScala.map(decode)
  }
}

object HBaseScanRDD {
  /**
   * A row exists when it has a cell in one of the table's families, so the scan always reads
   * those families; when no value column is needed only the first cell's key is fetched.
   */
  def scanFor(table: HBaseTableDef, required: Seq[HBaseColumn], region: RegionInfo, caching: Int): Scan = {
    val scan = new Scan().withStartRow(region.startKey).withStopRow(region.endKey).setCaching(caching)
    table.families.foreach(f => scan.addFamily(Utf8.bytes(f)))
    if (required.forall(_.isKey)) {
      scan.setFilter(new FilterList(FilterList.Operator.MUST_PASS_ALL, new FirstKeyOnlyFilter(), new KeyOnlyFilter()))
    }
    scan
  }
}
