// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import org.apache.spark.sql.{classic, Row, SparkSession}
import org.apache.spark.sql.catalyst.plans.QueryPlan
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.execution.write.{HBaseMutations, TableRowWriter}
import org.apache.spark.sql.hbase.rangeindex.WriteRecording
import org.apache.spark.sql.hbase.logical.HBaseRelation

/**
 * Writes the rows of `query`, already aligned with the table's columns, as batched mutations.
 * Writing a key again replaces that row, so re-running an INSERT is idempotent. A table with
 * range indexes is written in batches, each recorded for the indexes before it is sent.
 */
case class InsertIntoHBaseTableCommand(relation: HBaseRelation, query: LogicalPlan) extends LeafRunnableCommand {

  override def innerChildren: Seq[QueryPlan[_]] = Seq(query)

  override def run(session: SparkSession): Seq[Row] = {
    val table = relation.table
    val cluster = relation.cluster
    val rows = classic.Dataset.ofRows(session.asInstanceOf[classic.SparkSession], query).queryExecution.toRdd
    val recording = WriteRecording.of(session, cluster, table)
    HBaseMutations.sendPartitions(cluster, table, rows, TableRowWriter.operationTimeoutMillis(recording)) {
      (partition, mutator) =>
        val writer = new TableRowWriter(table, recording, mutator)
        partition.foreach(writer.write)
        writer.flush()
        writer.rows
    }
    Seq.empty
  }
}
