// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.write

import org.apache.spark.SparkContext
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.execution.SQLExecution
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

/**
 * One batch's write by `writeStream.format("hbase")`, run as a command of its own so that the SQL
 * tab shows it, with the rows it wrote, within the batch's query. `send` writes the batch and
 * returns how many rows it wrote.
 */
final case class SinkBatchWriteCommand(table: String, batchId: Long)(sparkContext: SparkContext, send: () => Long)
    extends LeafRunnableCommand {

  override lazy val metrics: Map[String, SQLMetric] =
    Map(SinkBatchWriteCommand.RowsWritten -> SQLMetrics.createMetric(sparkContext, "rows written to HBase"))

  override def run(session: SparkSession): Seq[Row] = {
    val written = metrics(SinkBatchWriteCommand.RowsWritten)
    written.set(send())
    SQLMetrics.postDriverMetricUpdates(
      sparkContext,
      sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY),
      Seq(written)
    )
    Seq.empty
  }

  override protected def otherCopyArgs: Seq[AnyRef] = Seq(sparkContext, send)

  override def nodeName: String = "WriteToHBase"
}

object SinkBatchWriteCommand {
  val RowsWritten = "rowsWritten"
}
