// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.write

import java.io.IOException
import java.util.concurrent.{LinkedBlockingQueue, ThreadPoolExecutor, TimeUnit}

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration.Duration
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{Admin, Connection, Result, Table}
import org.apache.hadoop.hbase.protobuf.ProtobufUtil
import org.apache.hadoop.hbase.protobuf.generated.ClientProtos.MutationProto.MutationType
import org.apache.hadoop.hbase.protobuf.generated.MultiRowMutationProtos.{MultiRowMutationService, MutateRowsRequest}

import org.apache.spark.internal.Logging
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
 * cells: where the table carries HBase's [[RegionBatchEndpoint]], a region's rows in one call
 * ([[PackedRowUpdate.regionPatch]]), several calls at once, else row by row
 * ([[PackedRowUpdate.patch]]). Rows whose region server or table has no merge, which refuses the
 * patch and changes nothing, and every row after them in the task, are read, merged here and
 * written conditionally in one call instead, and read and merged again where another writer
 * changed them in between, until every row is written or gone.
 */
object PackedUpdates extends Logging {

  /**
   * HBase's own endpoint that applies a call's mutations of rows of one region as one atomic batch
   * (org.apache.hadoop.hbase.coprocessor.MultiRowMutationEndpoint, in every region server): under
   * each row's exclusive lock, with one WAL sync for the batch, where appends sent one by one take a
   * sync each. CREATE TABLE gives packed tables it with the merge.
   */
  val RegionBatchEndpoint = "org.apache.hadoop.hbase.coprocessor.MultiRowMutationEndpoint"

  /** Whether HBase table `table` carries [[RegionBatchEndpoint]], read from its descriptor. */
  def hasRegionBatches(admin: Admin, table: HBaseTableDef): Boolean =
    admin.getDescriptor(TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name)).hasCoprocessor(
      RegionBatchEndpoint
    )

  /** Rows read and written per round trip. */
  val BatchRows = 500

  /** How often one row may be found changed by others before the statement gives up on it. */
  val MaxAttempts = 64

  /** Calls a task has in flight at once with patches: a batch's row by row, or a region's rows. */
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
   * Returns how many rows were updated (rows deleted meanwhile are not, except those of a region's
   * call: see [[mergeByRegion]]); adds to `merged` those the region servers merged, and of them
   * those merged a region's rows in one call. With `regionBatches`, the table carries
   * [[RegionBatchEndpoint]].
   */
  def send(
      cluster: HBaseClusterConf,
      table: HBaseTableDef,
      rows: RDD[InternalRow],
      update: PackedRowUpdate,
      mergeInRegionServers: Boolean,
      regionBatches: Boolean,
      merged: (SQLMetric, SQLMetric)
  ): Long =
    HBaseMutations.eachPartition(cluster, table, rows) { (partition, connection) =>
      val name = TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name)
      val htable = connection.getTable(name)
      var merging = mergeInRegionServers
      // Rows a region server merges no more, or that could not go by region, go in batches, row by row.
      def oneByOne(rows: Seq[InternalRow]): Long = rows.grouped(BatchRows).map { batch =>
        if (!merging) updateBatch(htable, table, update, batch)
        else {
          val (updated, refused) = mergeBatch(connection, name, table, update, batch)
          merged._1.add(batch.size - refused.size)
          if (refused.isEmpty) updated
          else {
            merging = false
            updated + updateBatch(htable, table, update, refused)
          }
        }
      }.sum
      try {
        if (merging && regionBatches) {
          // By region, each BatchRows rows go as soon as they are read, up to PatchCalls calls in flight: the
          // statement reads its next rows while the region servers merge the ones before.
          val inFlight = scala.collection.mutable.Queue.empty[(Int, Future[Seq[InternalRow]])]
          var updated = 0L
          def awaitOldest(): Unit = {
            val (sent, call) = inFlight.dequeue()
            val notInRegions = Await.result(call, Duration.Inf)
            merged._1.add(sent - notInRegions.size)
            merged._2.add(sent - notInRegions.size)
            updated += sent - notInRegions.size + oneByOne(notInRegions)
          }
          partition.map(_.copy()).grouped(BatchRows).foreach { rows =>
            if (!merging) updated += oneByOne(rows) // a region server refused the merge: no more region calls
            else mergeByRegion(connection, name, table, update, rows).foreach { call =>
              while (inFlight.size >= PatchCalls) awaitOldest()
              inFlight.enqueue(call)
            }
          }
          while (inFlight.nonEmpty) awaitOldest()
          updated
        } else partition.map(_.copy()).grouped(BatchRows).map(oneByOne).sum
      } finally htable.close()
    }

  /**
   * Starts sending the rows' patches through [[RegionBatchEndpoint]] as Puts ([[PackedRowUpdate.regionPatch]]),
   * a call per region's rows: the region server reads a call's rows with one scanner, where an Append per row has
   * it open a scanner per row. Returns each call's number of rows, and its rows to be sent row by row once it ends:
   * those of a call that failed, on a region split or moved since the rows were grouped, or on a region server
   * without the merge (or with an older one, which merges Appends only), which refuses the patch family. A call is
   * atomic, so those rows are as they were (a call that failed only on its way back was applied, and a patch sets
   * values, so applying it again changes nothing). A region's answer does not say which rows it found gone, deleted
   * since the statement read them: it writes nothing for those, and they are counted as updated, as an UPDATE that
   * ran just before the DELETE would have counted them.
   */
  private def mergeByRegion(
      connection: Connection,
      name: TableName,
      table: HBaseTableDef,
      update: PackedRowUpdate,
      rows: Seq[InternalRow]
  ): Seq[(Int, Future[Seq[InternalRow]])] = {
    val keyed = rows.map(row => (row, update.rowKey(row)))
    val located = scala.util.Try {
      val locator = connection.getRegionLocator(name)
      try keyed.groupBy { case (_, key) => locator.getRegionLocation(key).getRegion.getEncodedName }.values.toSeq
      finally locator.close()
    }
    // Where the regions cannot be told, the row by row path sends them, and reports what fails.
    located.fold(
      _ => Seq(rows.size -> Future.successful(rows)),
      _.map { call =>
        call.size -> Future {
          // Two patches of one row in one call: the region server refuses them.
          val distinct = call.map(r => java.nio.ByteBuffer.wrap(r._2)).distinct.size == call.size
          if (!distinct) call.map(_._1)
          else {
            val regionTable = connection.getTable(name)
            try {
              val request = MutateRowsRequest.newBuilder()
              call.foreach { case (row, _) =>
                request.addMutationRequest(ProtobufUtil.toMutation(MutationType.PUT, update.regionPatch(row)))
              }
              MultiRowMutationService.newBlockingStub(regionTable.coprocessorService(call.head._2))
                .mutateRows(null, request.build())
              Nil
            } catch {
              case NonFatal(e) =>
                logDebug(s"UPDATE of table '${table.name}': a region's call failed, its rows go one by one", e)
                call.map(_._1)
            } finally regionTable.close()
          }
        }(Senders)
      }
    )
  }

  /**
   * Sends the batch's patches row by row; returns how many rows were updated, and the rows whose
   * patches were refused for want of the merge.
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
