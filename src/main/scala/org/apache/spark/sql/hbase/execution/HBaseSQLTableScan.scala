package org.apache.spark.sql.hbase.execution

import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeProjection}
import org.apache.spark.sql.execution.LeafExecNode
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.hbase.HBaseSQLConf
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.planning.{HBaseRelation, KeyRanges, ScanRanges}

/**
 * Scans an HBase table with one Spark partition per region that the key ranges touch, in region
 * order; each partition reads only its region's part of the ranges.
 */
case class HBaseSQLTableScan(output: Seq[Attribute], relation: HBaseRelation) extends LeafExecNode {

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numRegions" -> SQLMetrics.createMetric(sparkContext, "number of regions scanned"),
    "numRegionsPruned" -> SQLMetrics.createMetric(sparkContext, "number of regions pruned"),
    "numGets" -> SQLMetrics.createMetric(sparkContext, "number of rows read with Gets"))

  @transient lazy val scanRanges: ScanRanges = ScanRanges(relation.keyRanges, KeyCodec.forTable(relation.table))

  override protected def doExecute(): RDD[InternalRow] = {
    val regions = HBaseRegions.cached(relation.cluster, relation.table.hbaseTable, conf.getConf(HBaseSQLConf.PartitionExpiration))
    val partitions = regions.map(r => (r, scanRanges.clip(r.startKey, r.endKey))).filter(_._2.nonEmpty)
    longMetric("numRegions") += partitions.size
    longMetric("numRegionsPruned") += regions.size - partitions.size
    val caching = conf.getConf(HBaseSQLConf.ScannerFetchSize)
    val rows = new HBaseScanRDD(sparkContext, relation.table, relation.cluster, output.map(relation.columnOf), partitions,
      caching, longMetric("numGets"))
    val numOutputRows = longMetric("numOutputRows")
    val schema = this.schema
    rows.mapPartitionsWithIndexInternal { (index, iter) =>
      val toUnsafe = UnsafeProjection.create(schema)
      toUnsafe.initialize(index)
      iter.map { row => numOutputRows += 1; toUnsafe(row) }
    }
  }

  override def simpleString(maxFields: Int): String = {
    val ranges = relation.keyRanges match {
      case KeyRanges.FullScan => "full scan"
      case KeyRanges.Ranges(rs) =>
        val shown = scanRanges.ranges.take(3).map(r => s"[${Bytes.toStringBinary(r.start)}, ${Bytes.toStringBinary(r.stop)})")
        s"${rs.size} key ranges ${rs.take(3).mkString(", ")}${if (rs.size > 3) ", ..." else ""}; " +
          s"rows ${shown.mkString(", ")}${if (scanRanges.ranges.size > 3) ", ..." else ""}"
    }
    s"HBaseSQLTableScan ${relation.table.name} [${relation.table.hbaseTable}] " +
      s"columns [${output.map(_.name).mkString(", ")}] $ranges"
  }
}
