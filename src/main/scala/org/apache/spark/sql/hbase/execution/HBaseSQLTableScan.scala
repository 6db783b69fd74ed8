package org.apache.spark.sql.hbase.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeProjection}
import org.apache.spark.sql.execution.LeafExecNode
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.hbase.HBaseSQLConf
import org.apache.spark.sql.hbase.planning.HBaseRelation

/** Scans an HBase table with one Spark partition per region, in region order. */
case class HBaseSQLTableScan(output: Seq[Attribute], relation: HBaseRelation) extends LeafExecNode {

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numRegions" -> SQLMetrics.createMetric(sparkContext, "number of regions scanned"))

  override protected def doExecute(): RDD[InternalRow] = {
    val regions = HBaseRegions.of(relation.cluster, relation.table.hbaseTable)
    longMetric("numRegions") += regions.size
    val caching = conf.getConf(HBaseSQLConf.ScannerFetchSize)
    val rows = new HBaseScanRDD(sparkContext, relation.table, relation.cluster, output.map(relation.columnOf), regions, caching)
    val numOutputRows = longMetric("numOutputRows")
    val schema = this.schema
    rows.mapPartitionsWithIndexInternal { (index, iter) =>
      val toUnsafe = UnsafeProjection.create(schema)
      toUnsafe.initialize(index)
      iter.map { row => numOutputRows += 1; toUnsafe(row) }
    }
  }

  override def simpleString(maxFields: Int): String =
    s"HBaseSQLTableScan ${relation.table.name} [${relation.table.hbaseTable}] " +
      s"columns [${output.map(_.name).mkString(", ")}]"
}
