// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.write

import java.io.IOException
import java.util.concurrent.{LinkedBlockingQueue, ThreadPoolExecutor, TimeUnit}

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration.Duration

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{Connection, Result, Table}

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.hbase.common.{Causes, HBaseSQLException}
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.codec.{BadRowKey, PackedRowUpdate}
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.server.PackedPatch

/**
 * Runs a [[PackedRowUpdate]] over the rows an UPDATE of a packed table changes, a batch of rows a
 * round trip. Each task first has the region servers merge the new values into the rows' packed
 * cells ([[PackedRowUpdate.patch]]). Rows whose region server or table has no merge, which refuses
 * the patch and changes nothing, and every row after them in the task, are read, merged here and
 * written conditionally in one call instead, and read and merged again where another writer
 * changed them in between, until every row is written or gone.
 */
object PackedUpdates {

  /** Rows read and written per round trip. */
  val BatchRows = 500

  /** How often one row may be found changed by others before the statement gives up on it. */
  val MaxAttempts = 64

  /** Calls a task has in flight at once with a batch's patches. */
  val PatchCalls = 8

  /** The threads that send them, shared by the tasks of an executor; idle ones end. */
  private lazy val Senders: ExecutionContext = ExecutionContext.fromExecutorService {
    val pool = new ThreadPoolExecutor(
      PatchCalls * 4,
      PatchCalls * 4,
      60,
      TimeUnit.SECONDS,
      new LinkedBlockingQueue[Runnable](),
      (task: Runnable) => {
        val thread = new Thread(task, "spark-hbase-sql-patches")
        thread.setDaemon(true)
        thread
      }
    )
    pool.allowCoreThreadTimeOut(true)
    pool
  }

  /**
   * Returns how many rows were updated (rows deleted meanwhile are not); adds to `merged` those
   * the region servers merged.
   */
  def send(
      cluster: HBaseClusterConf,
      table: HBaseTableDef,
      rows: RDD[InternalRow],
      update: PackedRowUpdate,
      mergeInRegionServers: Boolean,
      merged: SQLMetric
  ): Long =
    HBaseMutations.eachPartition(cluster, table, rows) { (partition, connection) =>
      val name = TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name)
      val htable = connection.getTable(name)
      var merging = mergeInRegionServers
      try partition.map(_.copy()).grouped(BatchRows).map { batch =>
          if (!merging) updateBatch(htable, table, update, batch)
          else {
            val (updated, refused) = mergeBatch(connection, name, table, update, batch)
            merged.add(batch.size - refused.size)
            if (refused.isEmpty) updated
            else {
              merging = false
              updated + updateBatch(htable, table, update, refused)
            }
          }
        }.sum
      finally htable.close()
    }

  /**
   * Sends the batch's patches; returns how many rows were updated, and the rows whose patches were
   * refused for want of the merge.
   */
  private def mergeBatch(
      connection: Connection,
      name: TableName,
      table: HBaseTableDef,
      update: PackedRowUpdate,
      batch: Seq[InternalRow]
  ): (Long, Seq[InternalRow]) = {
    val results = new Array[AnyRef](batch.size)
    // HBase applies each append alone, with a WAL sync of its own, but syncs the appends that arrive
    // at once together: the batch goes as several calls at a time, each on a table of its own.
    val parts = batch.indices.grouped(math.max(1, (batch.size + PatchCalls - 1) / PatchCalls)).toSeq
    val calls = parts.map { part =>
      Future {
        val partResults = new Array[AnyRef](part.size)
        val partTable = connection.getTable(name)
        val failure =
          try { partTable.batch(part.map(i => update.patch(batch(i))).asJava, partResults); None }
          catch { case e: IOException => Some(e) }
          finally partTable.close()
        part.indices.foreach(j => results(part(j)) = partResults(j))
        failure
      }(Senders)
    }
    val failure = calls.flatMap(call => Await.result(call, Duration.Inf)).headOption
    var updated = 0L
    val refused = Seq.newBuilder[InternalRow]
    results.zip(batch).foreach {
      case (result: Result, _) => if (!result.isEmpty) updated += 1
      case (refusal: Throwable, row) if String.valueOf(refusal.getMessage).contains(PackedPatch.FAMILY_PREFIX) =>
        refused += row
      case (error: Throwable, _) =>
        throw new HBaseSQLException(s"UPDATE of table '${table.name}': ${Causes.rootMessage(error)}", Some(error))
      case _ =>
        throw new HBaseSQLException(
          s"UPDATE of table '${table.name}': " + failure.map(Causes.rootMessage).getOrElse("HBase gave no result"),
          failure
        )
    }
    (updated, refused.result())
  }

  private def updateBatch(
      htable: Table,
      table: HBaseTableDef,
      update: PackedRowUpdate,
      batch: Seq[InternalRow]
  ): Long = {
    var pending = batch.map(row => (row, update.rowKey(row)))
    var updated = 0L
    var attempt = 1
    while (pending.nonEmpty) {
      if (attempt > MaxAttempts) {
        throw new HBaseSQLException(
          s"UPDATE of table '${table.name}': other writers changed row ${BadRowKey.show(pending.head._2)} " +
            s"$MaxAttempts times while this statement was merging its packed cells, so it stopped. Rows it " +
            "updated before stay updated; run the UPDATE again."
        )
      }
      val current = htable.get(pending.map { case (_, key) => update.read(key) }.asJava)
      val writes = pending.zip(current).flatMap { case ((row, key), result) =>
        update.write(row, result).map((row, key, _))
      }
      val results = if (writes.isEmpty) Nil else htable.checkAndMutate(writes.map(_._3).asJava).asScala.toSeq
      val (done, raced) = writes.zip(results).partition(_._2.isSuccess)
      updated += done.size
      pending = raced.map { case ((row, key, _), _) => (row, key) }
      if (pending.nonEmpty) Thread.sleep(math.min(50L, attempt.toLong) * (1 + scala.util.Random.nextInt(3)))
      attempt += 1
    }
    updated
  }
}
