// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import org.apache.spark.sql.{classic, Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.catalyst.plans.QueryPlan
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.hbase.metadata.{HBaseColumn, HBaseTableDef}
import org.apache.spark.sql.hbase.codec.{PackedRowUpdate, RowCodec}
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.SparkContext
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.hbase.execution.{ReadsHBaseRows, ScanMetrics}
import org.apache.spark.sql.hbase.execution.write.{HBaseMutations, PackedUpdates}
import org.apache.spark.sql.types.LongType
import org.apache.spark.sql.hbase.common.DescribedInExplain

/**
 * UPDATE an HBase table: `newValues` (for each row the statement updates, its key columns in key
 * order, then the new values of `columns`, already of their types) is read as any query is, and
 * only the cells of `columns` are written (a NULL deletes its cell); in a packed table, the packed
 * cells of their families are merged and rewritten (see [[PackedRowUpdate]]), by the region
 * servers when `mergeInRegionServers` and the table has their merge (a region's rows in one call
 * when `regionBatches` and the table has the endpoint). Returns how many rows were updated.
 */
case class UpdateHBaseTableCommand(
    table: HBaseTableDef,
    cluster: HBaseClusterConf,
    columns: Seq[HBaseColumn],
    newValues: LogicalPlan,
    mergeInRegionServers: Boolean,
    regionBatches: Boolean
) extends ReadsHBaseRows
    with DescribedInExplain[LogicalPlan] {

  override def simpleString(maxFields: Int): String =
    s"$nodeName ${table.described} set ${columns.map(_.name).mkString(", ")}" +
      (if (mergeInRegionServers) ", packed cells merged by the region servers" else "") +
      (if (regionBatches) ", a region's rows a call" else "")

  override val output: Seq[Attribute] = Seq(AttributeReference("num_affected_rows", LongType, nullable = false)())

  override def innerChildren: Seq[QueryPlan[_]] = Seq(newValues)

  /** With the scan's, how many rows of a packed table the region servers merged. */
  override lazy val metrics: Map[String, SQLMetric] = ScanMetrics.forCommand() +
    (UpdateHBaseTableCommand.RowsMerged ->
      SQLMetrics.createMetric(SparkContext.getOrCreate(), "rows merged in region servers")) +
    (UpdateHBaseTableCommand.RowsMergedByRegion ->
      SQLMetrics.createMetric(SparkContext.getOrCreate(), "of them, a region's rows in one call"))

  override def run(session: SparkSession): Seq[Row] = {
    val query = classic.Dataset.ofRows(session.asInstanceOf[classic.SparkSession], newValues)
    val rows = query.queryExecution.toRdd
    val codec = new RowCodec(table)
    val updated =
      if (table.isPacked) {
        val merged = (metrics(UpdateHBaseTableCommand.RowsMerged), metrics(UpdateHBaseTableCommand.RowsMergedByRegion))
        val inRegionBatches = mergeInRegionServers && regionBatches && HBaseConnections.withConnection(cluster) {
          connection =>
            val admin = connection.getAdmin
            try PackedUpdates.hasRegionBatches(admin, table)
            finally admin.close()
        }
        val update = new PackedRowUpdate(codec, columns)
        PackedUpdates.send(cluster, table, rows, update, mergeInRegionServers, inRegionBatches, merged)
      } else HBaseMutations.send(cluster, table, rows)(codec.updater(columns))
    recordScanMetrics(query)
    Seq(Row(updated))
  }
}

object UpdateHBaseTableCommand {
  val RowsMerged = "rowsMergedInRegionServers"
  val RowsMergedByRegion = "rowsMergedByRegion"
}
