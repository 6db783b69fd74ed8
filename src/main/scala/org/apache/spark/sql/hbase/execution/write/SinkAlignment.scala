// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.write

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, Expression, UnsafeProjection}
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.logical.{HBaseRelation, InsertColumns}
import org.apache.spark.sql.types.StructType

/**
 * How a stream's rows become rows of the table: its columns by name, cast as INSERT INTO t (cols)
 * casts them ([[InsertColumns]]), the table's other columns NULL. Kept as the bound expressions
 * of each projection, which each task applies in turn.
 */
final case class SinkAlignment(layers: Seq[Seq[Expression]]) {
  def projection(): InternalRow => InternalRow = {
    val projections = layers.map(UnsafeProjection.create)
    row => projections.foldLeft(row)((r, p) => p(r))
  }
}

object SinkAlignment {
  def apply(
      session: SparkSession,
      table: HBaseTableDef,
      cluster: HBaseClusterConf,
      schema: StructType
  ): SinkAlignment = {
    val input = DataTypeUtils.toAttributes(schema)
    val aligned =
      InsertColumns.align(
        HBaseRelation(table, cluster),
        LocalRelation(input),
        input.map(_.name),
        session.sessionState.conf
      )
    // The analyzer settles what the casts need to run (their time zone).
    SinkAlignment(layers(session.sessionState.analyzer.execute(aligned), input))
  }

  private def layers(plan: LogicalPlan, input: Seq[Attribute]): Seq[Seq[Expression]] = plan match {
    case Project(list, child) => layers(child, input) :+ BindReferences.bindReferences(list, child.output)
    case LocalRelation(output, _, _, _) if output == input => Nil
    case other => throw new IllegalStateException(s"The sink's column alignment gave a plan it cannot run: $other")
  }
}
