package org.apache.spark.sql.hbase.planning

import org.apache.spark.sql.catalyst.analysis.MultiInstanceRelation
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.catalyst.plans.logical.{LeafNode, LogicalPlan, Statistics}
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.hbase.catalog.{HBaseColumn, HBaseTableDef}
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.connection.HBaseClusterConf

/**
 * A SQL table mapped onto HBase, as it appears in a logical plan. `limit` caps the rows any
 * region must return, recorded by [[HBaseLimitPushdown]] for the planner. `sizeInBytes` is what
 * HBase said the table holds when it was resolved, for Spark's optimizer (unknown: very large).
 */
case class HBaseRelation(
    table: HBaseTableDef,
    cluster: HBaseClusterConf,
    output: Seq[AttributeReference],
    limit: Option[Int] = None,
    sizeInBytes: Option[BigInt] = None)
  extends LeafNode with MultiInstanceRelation {

  /** The key attributes in row key order. */
  def keyAttributes: Seq[AttributeReference] = table.keys.map(k => output(table.columns.indexOf(k)))

  /** The leading key attributes the codec lets the planner prune by. */
  def prunableKeys: Seq[AttributeReference] = keyAttributes.take(KeyCodec.forTable(table).prunableKeyColumns)

  override def newInstance(): LogicalPlan = copy(output = output.map(_.newInstance()))

  override def computeStats(): Statistics = Statistics(sizeInBytes = sizeInBytes.getOrElse(conf.defaultSizeInBytes))

  def columnOf(attribute: Attribute): HBaseColumn = table.columns(output.indexWhere(_.exprId == attribute.exprId))

  override def simpleString(maxFields: Int): String =
    s"HBaseRelation ${table.name} [${table.hbaseTable}] key (${table.keyColumns.mkString(", ")})" +
      limit.fold("")(n => s" limit $n")
}

object HBaseRelation {
  def apply(table: HBaseTableDef, cluster: HBaseClusterConf): HBaseRelation =
    HBaseRelation(table, cluster, DataTypeUtils.toAttributes(table.schema))
}
