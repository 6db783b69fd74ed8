package org.apache.spark.sql.hbase.commands

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{classic, Row, SparkSession}
import org.apache.spark.sql.catalyst.plans.QueryPlan
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.codec.RowCodec
import org.apache.spark.sql.hbase.execution.HBaseMutations
import org.apache.spark.sql.hbase.index.WriteRecording
import org.apache.spark.sql.hbase.planning.HBaseRelation

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
    val codec = new RowCodec(table)
    val rows = classic.Dataset.ofRows(session.asInstanceOf[classic.SparkSession], query).queryExecution.toRdd
    WriteRecording.of(session, cluster, table) match {
      case None => HBaseMutations.send(cluster, table, rows)(codec.toMutations)
      case Some(recording) =>
        // A batch must land within its mark's lease.
        val leaseBound = math.min(Int.MaxValue, recording.leaseMillis / 2).toInt
        HBaseMutations.sendPartitions(cluster, table, rows, Some(leaseBound)) { (partition, mutator) =>
          val recorded = recording.writer(table)
          // Rows are encoded as they come: the iterator reuses its row object.
          val encoded = partition.map { row =>
            val mutations = codec.toMutations(row)
            recorded.add(row, mutations.head.getRow)
            mutations
          }
          // The mark covers a batch before any of it can be sent; the mutator sends it when it likes.
          encoded.grouped(InsertIntoHBaseTableCommand.RecordedBatchRows).map { batch =>
            recorded.record()
            mutator.mutate(batch.flatten.map(recorded.covered).asJava)
            batch.size.toLong
          }.sum
        }
    }
    Seq.empty
  }
}

object InsertIntoHBaseTableCommand {
  val RecordedBatchRows = 5000
}
