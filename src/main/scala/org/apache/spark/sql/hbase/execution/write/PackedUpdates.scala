// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.write

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.Table

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.codec.{BadRowKey, PackedRowUpdate}
import org.apache.spark.sql.hbase.connection.HBaseClusterConf

/**
 * Runs a [[PackedRowUpdate]] over the rows an UPDATE of a packed table changes: each task reads a
 * batch of rows, writes their merged packed cells conditionally in one call, and reads and merges
 * again the rows another writer changed in between, until every row is written or gone.
 */
object PackedUpdates {

  /** Rows read and written per round trip. */
  val BatchRows = 500

  /** How often one row may be found changed by others before the statement gives up on it. */
  val MaxAttempts = 64

  /** Returns how many rows were updated (rows deleted meanwhile are not). */
  def send(cluster: HBaseClusterConf, table: HBaseTableDef, rows: RDD[InternalRow], update: PackedRowUpdate): Long =
    HBaseMutations.eachPartition(cluster, table, rows) { (partition, connection) =>
      val htable = connection.getTable(TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name))
      try partition.map(_.copy()).grouped(BatchRows).map(batch => updateBatch(htable, table, update, batch)).sum
      finally htable.close()
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
