// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.write

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.client.{BufferedMutator, Mutation}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.codec.RowCodec
import org.apache.spark.sql.hbase.rangeindex.WriteRecording

/**
 * One task's writer of rows of `table` (in table column order) as mutations, by the table's
 * codec, through `mutator`. A table with range indexes is written in batches of
 * [[TableRowWriter.RecordedBatchRows]] rows, each recorded for the indexes before any of it is sent,
 * so the indexes stay trusted. INSERT and the streaming sink both write through it.
 */
final class TableRowWriter(table: HBaseTableDef, recording: Option[WriteRecording], mutator: BufferedMutator) {
  private val codec = new RowCodec(table)
  private val recorded = recording.map(_.writer(table))
  private val pending = ArrayBuffer.empty[Seq[Mutation]]
  private var written = 0L

  /** Rows handed to [[write]] so far. */
  def rows: Long = written

  /** Encodes the row as it comes (an iterator may reuse its row object) and sends it, or keeps it for its batch's mark. */
  def write(row: InternalRow): Unit = {
    val mutations = codec.toMutations(row)
    recorded match {
      case None => mutator.mutate(mutations.asJava)
      case Some(r) =>
        r.add(row, mutations.head.getRow)
        pending += mutations
        if (pending.size >= TableRowWriter.RecordedBatchRows) sendPending()
    }
    written += 1
  }

  /** Sends what is kept and waits until HBase has every row. */
  def flush(): Unit = {
    sendPending()
    mutator.flush()
  }

  // The mark covers a batch before any of it can be sent; the mutator sends it when it likes.
  private def sendPending(): Unit = recorded.foreach { r =>
    if (pending.nonEmpty) {
      r.record()
      mutator.mutate(pending.iterator.flatten.map(r.covered).toSeq.asJava)
      pending.clear()
    }
  }
}

object TableRowWriter {
  val RecordedBatchRows = 5000

  /** A recorded batch must land within its mark's lease. */
  def operationTimeoutMillis(recording: Option[WriteRecording]): Option[Int] =
    recording.map(r => math.min(Int.MaxValue, r.leaseMillis / 2).toInt)
}
