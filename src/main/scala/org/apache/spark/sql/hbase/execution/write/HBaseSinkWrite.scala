// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.write

import org.apache.hadoop.hbase.client.{BufferedMutator, Connection}

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.metric.{CustomMetric, CustomSumMetric, CustomTaskMetric}
import org.apache.spark.sql.connector.write.{DataWriter, PhysicalWriteInfo, Write, WriteBuilder, WriterCommitMessage}
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, SupportsTruncate}
import org.apache.spark.sql.connector.write.streaming.{StreamingDataWriterFactory, StreamingWrite}
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, TableDefinitionStores}
import org.apache.spark.sql.hbase.connection.{HBaseAccessDenied, HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.rangeindex.WriteRecording
import org.apache.spark.sql.internal.connector.SupportsStreamingUpdateAsAppend
import org.apache.spark.sql.types.StructType

/**
 * A streaming query's writes into an HBase table, batch by batch, through the INSERT write path
 * ([[TableRowWriter]]: the table's codec, range-index recording). It is idempotent by batch: the
 * last batch committed is recorded in HBase ([[SinkCommits]]) after all of the batch's rows are in
 * the table, and a batch at or below it is skipped. A batch replayed after a failure in its middle
 * is written again whole; rows are upserts by key, so the table ends as if it ran once.
 * Both `writeStream.format("hbase")` ([[HBaseStreamingSink]]) and `toTable("hbase.t")` write through it.
 */
final class HBaseSinkWrite(
    table: HBaseTableDef,
    cluster: HBaseClusterConf,
    metaTable: String,
    recording: Option[WriteRecording],
    alignment: SinkAlignment,
    queryId: String
) extends StreamingWrite {
  private val commits = new SinkCommits(cluster, metaTable)
  @volatile private var committed: Option[(Array[Byte], Long)] = None

  /** Reads the commit record; whether batch `batchId` is to be written (false: it is committed already). */
  def begin(batchId: Long): Boolean = {
    committed = commits.last(queryId, table.name)
    SinkBatches.writes(queryId, table.name, committed.map(_._2), batchId)
  }

  /** The writers of a batch, which skip one already committed. */
  def factory(): HBaseSinkWriterFactory =
    HBaseSinkWriterFactory(table, cluster, recording, alignment, queryId, committed.map(_._2))

  override def createStreamingWriterFactory(info: PhysicalWriteInfo): StreamingDataWriterFactory = {
    committed = commits.last(queryId, table.name)
    factory()
  }

  /** Every task of the batch has sent its rows and flushed: the batch is in HBase. */
  override def commit(batchId: Long, messages: Array[WriterCommitMessage]): Unit =
    if (SinkBatches.writes(queryId, table.name, committed.map(_._2), batchId)) {
      commits.record(queryId, table.name, committed.map(_._1), batchId)
      committed = commits.last(queryId, table.name)
    }

  // Rows already sent stay: the batch is replayed and written again whole.
  override def abort(batchId: Long, messages: Array[WriterCommitMessage]): Unit = ()

  override def useCommitCoordinator(): Boolean = false
}

object HBaseSinkWrite {
  def apply(
      session: SparkSession,
      table: HBaseTableDef,
      cluster: HBaseClusterConf,
      queryId: String,
      schema: StructType
  ): HBaseSinkWrite = {
    val alignment =
      try SinkAlignment(session, table, cluster, schema)
      catch {
        case e: org.apache.spark.sql.AnalysisException =>
          throw new HBaseSQLException(s"Streaming into HBase table '${table.name}': ${e.getMessage}", Some(e))
      }
    new HBaseSinkWrite(
      table,
      cluster,
      TableDefinitionStores.metaTable(session),
      WriteRecording.of(session, cluster, table),
      alignment,
      queryId
    )
  }

  def completeModeRefused(table: String): HBaseSQLException = new HBaseSQLException(
    s"Streaming into HBase table '$table': output mode 'complete' is not supported (it would replace the whole " +
      "table each batch); use 'append' or 'update', which both write each row of a batch by its key"
  )
}

/** Whether a batch is written, and the gap a checkpoint and its commit record must not have. */
object SinkBatches {
  def writes(queryId: String, table: String, committed: Option[Long], batchId: Long): Boolean = committed match {
    case Some(last) if batchId <= last => false
    case Some(last) if batchId == last + 1 => true
    case None if batchId == 0 => true
    case _ =>
      val recorded = committed.fold("no batch of this query")(last => s"batches up to $last")
      throw new HBaseSQLException(
        s"Streaming query $queryId into HBase table '$table': the checkpoint asks for batch $batchId, but HBase has " +
          s"$recorded committed into the table, so batches in between never reached it. The checkpoint does not " +
          "belong to this table (or HBase cluster), or the table's commit record was removed; start the query " +
          "with a new checkpoint location"
      )
  }
}

/** A batch's writers: each task's rows, lined up with the table, written unless the batch is committed. */
final case class HBaseSinkWriterFactory(
    table: HBaseTableDef,
    cluster: HBaseClusterConf,
    recording: Option[WriteRecording],
    alignment: SinkAlignment,
    queryId: String,
    committed: Option[Long]
) extends StreamingDataWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long, epochId: Long): DataWriter[InternalRow] =
    if (SinkBatches.writes(queryId, table.name, committed, epochId)) new HBaseSinkDataWriter(this, epochId)
    else SkippedBatchWriter
}

final case class SinkWrote(rows: Long) extends WriterCommitMessage

/** One task's rows of a batch, sent as the INSERT write path sends them. */
final class HBaseSinkDataWriter(factory: HBaseSinkWriterFactory, batchId: Long) extends DataWriter[InternalRow] {
  import factory._

  private val aligned = alignment.projection()
  private val connection: Connection = HBaseConnections.borrow(cluster)
  private val mutator: BufferedMutator =
    try HBaseMutations.mutator(connection, table, TableRowWriter.operationTimeoutMillis(recording))
    catch { case e: Throwable => HBaseConnections.release(cluster); throw e }
  private val writer = new TableRowWriter(table, recording, mutator)

  override def write(row: InternalRow): Unit = named(writer.write(aligned(row)))

  override def commit(): WriterCommitMessage = {
    named(writer.flush())
    SinkWrote(writer.rows)
  }

  override def abort(): Unit = ()

  override def close(): Unit =
    try named(mutator.close())
    finally HBaseConnections.release(cluster)

  override def currentMetricsValues(): Array[CustomTaskMetric] = Array(RowsWrittenMetric.value(writer.rows))

  /**
   * A bad row's error (a NULL key, a value HBase refuses) names the batch too; HBase's denial of
   * the writes is said as such here, in the task: the failed batch of writes around it holds rows,
   * which cannot travel to the driver.
   */
  private def named[T](body: => T): T =
    try body
    catch {
      case e: HBaseSQLException => throw new HBaseSQLException(
          s"Streaming batch $batchId into HBase table '${table.name}': ${e.getMessage}",
          Some(e)
        )
      case e: Exception if HBaseAccessDenied.message(e).isDefined =>
        HBaseAccessDenied.translate(Some(s"to streaming batch $batchId into HBase table '${table.name}'"))(e)
    }
}

/** The writer of a batch committed already: its rows are in the table. */
object SkippedBatchWriter extends DataWriter[InternalRow] {
  override def write(row: InternalRow): Unit = ()
  override def commit(): WriterCommitMessage = SinkWrote(0)
  override def abort(): Unit = ()
  override def close(): Unit = ()
}

/** Rows a batch wrote into HBase, summed over its tasks: the SQL tab's metric of the write. */
class RowsWrittenMetric extends CustomSumMetric {
  override def name(): String = RowsWrittenMetric.Name
  override def description(): String = "rows written to HBase"
}

object RowsWrittenMetric {
  val Name = "hbaseRowsWritten"

  def value(rows: Long): CustomTaskMetric = new CustomTaskMetric {
    override def name(): String = Name
    override def value(): Long = rows
  }
}

/** `toTable("hbase.t")`: Spark asks the catalog's table for a write each batch. */
final class HBaseSinkWriteBuilder(table: HBaseTableDef, cluster: HBaseClusterConf, info: LogicalWriteInfo)
    extends WriteBuilder with SupportsTruncate with SupportsStreamingUpdateAsAppend {

  // Spark truncates for complete mode only.
  override def truncate(): WriteBuilder = throw HBaseSinkWrite.completeModeRefused(table.name)

  override def build(): Write = new Write {
    override def description(): String = s"HBase table ${table.name}"
    override def supportedCustomMetrics(): Array[CustomMetric] = Array(new RowsWrittenMetric)
    override def toStreaming: StreamingWrite =
      HBaseSinkWrite(SparkSession.active, table, cluster, info.queryId(), info.schema())
  }
}
