// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.write

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.{SparkException, TaskContext}
import org.apache.spark.sql.{classic, DataFrame}
import org.apache.spark.sql.connector.read.streaming.ReportsSinkMetrics
import org.apache.spark.sql.execution.streaming.Sink
import org.apache.spark.sql.execution.streaming.runtime.StreamExecution
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, UserTokens}
import org.apache.spark.sql.hbase.facts.HBaseTableSizes

/**
 * `writeStream.format("hbase").option("table", "t")`: each batch's rows written by [[HBaseSinkWrite]],
 * as `toTable("hbase.t")` writes them. A batch committed already (a replay after a restart) is
 * skipped without being computed. The rows each batch wrote are reported in the query's progress,
 * as `sink.metrics.numOutputRows` (Spark leaves `sink.numOutputRows` at -1 for such sinks), and in
 * the SQL tab, by the batch's write ([[SinkBatchWriteCommand]]) under the batch's own query.
 */
final class HBaseStreamingSink(table: HBaseTableDef, cluster: HBaseClusterConf) extends Sink with ReportsSinkMetrics {
  @volatile private var lastBatchRows = 0L

  override def addBatch(batchId: Long, data: DataFrame): Unit = {
    val session = data.sparkSession
    val queryId = session.sparkContext.getLocalProperty(StreamExecution.QUERY_ID_KEY)
    // A stream outlives a delegation token of its user: each batch's tasks get one with life left.
    val write = HBaseSinkWrite(session, table, UserTokens.renewed(cluster), queryId, data.schema)
    lastBatchRows = 0L
    if (write.begin(batchId)) {
      val factory = write.factory()
      // The batch's own execution, as Spark's foreachBatch sink takes it: a streaming Dataset is not run by actions.
      val rows = data.queryExecution.toRdd
      var sent = 0L
      def send(): Long = {
        val messages =
          try rows.mapPartitionsWithIndex { (partition, batch) =>
              val writer = factory.createWriter(partition, TaskContext.get().taskAttemptId(), batchId)
              try {
                batch.foreach(writer.write)
                Iterator.single(writer.commit())
              } finally writer.close()
            }.collect()
          catch {
            case e: SparkException =>
              throw HBaseSQLException.causeOf(e).map(c => new HBaseSQLException(c.getMessage, Some(e))).getOrElse(e)
          } finally HBaseTableSizes.forget(cluster, table.hbaseTable)
        write.commit(batchId, messages)
        sent = messages.collect { case SinkWrote(n) => n }.sum
        sent
      }
      val command = SinkBatchWriteCommand(table.name, batchId)(session.sparkContext, () => send())
      classic.Dataset.ofRows(session.asInstanceOf[classic.SparkSession], command)
      lastBatchRows = sent
    }
  }

  override def metrics(): util.Map[String, String] = Map("numOutputRows" -> lastBatchRows.toString).asJava

  override def toString: String = s"HBaseStreamingSink[${table.name}]"
}
