// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.logical

import org.apache.spark.sql.catalyst.analysis.MultiInstanceRelation
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeMap, AttributeReference}
import org.apache.spark.sql.catalyst.plans.logical.{ColumnStat, LeafNode, LogicalPlan, Statistics}
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.hbase.metadata.{HBaseColumn, HBaseTableDef}
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.common.DescribedInExplain
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.rangeindex.TableStatistics
import org.apache.spark.sql.types.{BooleanType, DateType, NumericType, TimestampNTZType, TimestampType}

/**
 * A SQL table mapped onto HBase, as it appears in a logical plan. `limit` caps the rows any
 * region must return, recorded by [[HBaseLimitPushdown]] for the planner. `sizeInBytes` is what
 * HBase said the table holds when it was resolved, and `statistics` what its range indexes knew,
 * for Spark's optimizer (unknown size: very large). `asOf` (epoch milliseconds) reads the table
 * as it was then: each cell's newest version written at or before that time. `topN` is an
 * ORDER BY ... LIMIT straight over the table, recorded by [[HBaseTopNPushdown]] for the planner.
 * `indexHint` is what the query's hints say about its global indexes.
 */
case class HBaseRelation(
    table: HBaseTableDef,
    cluster: HBaseClusterConf,
    output: Seq[AttributeReference],
    limit: Option[Int] = None,
    sizeInBytes: Option[BigInt] = None,
    statistics: Option[TableStatistics] = None,
    asOf: Option[Long] = None,
    topN: Option[TopNRequest] = None,
    indexHint: IndexHint = IndexHint.Free
) extends LeafNode
    with MultiInstanceRelation
    with DescribedInExplain[LogicalPlan] {

  /** The key attributes in row key order. */
  def keyAttributes: Seq[AttributeReference] = table.keys.map(k => output(table.columns.indexOf(k)))

  /** The leading key attributes the codec lets the planner prune by. */
  def prunableKeys: Seq[AttributeReference] = keyAttributes.take(KeyCodec.forTable(table).prunableKeyColumns)

  override def newInstance(): LogicalPlan = copy(output = output.map(_.newInstance()))

  override def computeStats(): Statistics = Statistics(
    sizeInBytes = sizeInBytes.getOrElse(conf.defaultSizeInBytes),
    rowCount = statistics.map(_.rowCount),
    attributeStats = AttributeMap(statistics.toSeq.flatMap { s =>
      output.zip(table.columns).flatMap { case (attribute, column) =>
        s.columns.get(column.name).map { c =>
          // Spark's estimates read min and max of numbers, dates and times only.
          val bounded = c.exact &&
            (column.dataType match {
              case _: NumericType | BooleanType | DateType | TimestampType | TimestampNTZType => true
              case _ => false
            })
          attribute -> ColumnStat(
            min = c.min.filter(_ => bounded),
            max = c.max.filter(_ => bounded),
            nullCount = Some(BigInt(c.nullCount))
          )
        }
      }
    })
  )

  def columnOf(attribute: Attribute): HBaseColumn = table.columns(output.indexWhere(_.exprId == attribute.exprId))

  override def simpleString(maxFields: Int): String =
    s"HBaseRelation ${table.described} key (${table.keyColumns.mkString(", ")})" +
      asOf.fold("")(millis => s" as of ${HBaseRelation.describeAsOf(millis)}") + limit.fold("")(n => s" limit $n") +
      topN.fold("")(t => s", $t")
}

object HBaseRelation {

  /** An as-of time as EXPLAIN shows it: UTC, to the millisecond, and the epoch milliseconds HBase compares. */
  def describeAsOf(millis: Long): String = s"${java.time.Instant.ofEpochMilli(millis)} ($millis ms)"

  def apply(table: HBaseTableDef, cluster: HBaseClusterConf): HBaseRelation =
    HBaseRelation(table, cluster, DataTypeUtils.toAttributes(table.schema))
}
