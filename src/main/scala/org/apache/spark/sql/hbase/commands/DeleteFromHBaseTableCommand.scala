// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import org.apache.spark.sql.{classic, Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.catalyst.plans.QueryPlan
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.codec.RowCodec
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.execution.ReadsHBaseRows
import org.apache.spark.sql.hbase.execution.write.HBaseMutations
import org.apache.spark.sql.types.LongType
import org.apache.spark.sql.hbase.common.DescribedInExplain

/**
 * DELETE FROM an HBase table: `matchingKeys` (the key columns, in key order, of the rows the
 * statement deletes) is read as any query is (key ranges, skip scan, the residual in the region
 * servers), and each of its rows is deleted whole, in every family the table maps. Returns how
 * many rows were deleted.
 */
case class DeleteFromHBaseTableCommand(table: HBaseTableDef, cluster: HBaseClusterConf, matchingKeys: LogicalPlan)
    extends ReadsHBaseRows
    with DescribedInExplain[LogicalPlan] {

  override def simpleString(maxFields: Int): String = s"$nodeName ${table.described}"

  override val output: Seq[Attribute] = Seq(AttributeReference("num_affected_rows", LongType, nullable = false)())

  override def innerChildren: Seq[QueryPlan[_]] = Seq(matchingKeys)

  override def run(session: SparkSession): Seq[Row] = {
    val query = classic.Dataset.ofRows(session.asInstanceOf[classic.SparkSession], matchingKeys)
    val codec = new RowCodec(table)
    val deleted = HBaseMutations.send(cluster, table, query.queryExecution.toRdd)(row =>
      Seq(codec.deleteRow(codec.rowKeyOfKeys(row)))
    )
    recordScanMetrics(query)
    Seq(Row(deleted))
  }
}
