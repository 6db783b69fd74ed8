// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.rangeindex

import java.util.UUID

import org.apache.hadoop.hbase.client.Mutation
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.codec.{RowCodec, RowRange}
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.server.WriteMark

/**
 * What one writer tells the range indexes of a table about the rows it writes, so that they stay
 * usable: before its rows go to HBase, [[record]] writes the writer's own mark over every row it
 * has written so far, with their statistics. Mutations are tagged by [[covered]] and HFiles named
 * by [[fileName]], so that the write-marking coprocessor leaves them alone. The planner widens the
 * chunks under such a mark by its statistics instead of distrusting them.
 *
 * @param table the table as the writer resolved it: only its indexes' columns are recorded
 */
final class RecordedWrites(store: RangeIndexStore, table: HBaseTableDef, leaseMillis: Long) {
  val id = s"w-${UUID.randomUUID()}"
  private val columns = table.indexes.flatMap(_.columns).distinct.map(table.column)
  private val positions = columns.map(table.columns.indexOf).toArray
  private val types = columns.map(_.dataType).toArray
  private val builders = columns.map(c => new ColumnStatsBuilder(c.dataType)).toArray
  private lazy val codec = new RowCodec(table)
  private lazy val cellPositions = columns.map(codec.cellIndex).toArray
  private var lowest: Array[Byte] = _
  private var highest: Array[Byte] = _
  private var rows = 0L

  /** Counts in a row (in table column order) about to be written under `key`. */
  def add(row: InternalRow, key: Array[Byte]): Unit = {
    var i = 0
    while (i < positions.length) { builders(i).add(row.get(positions(i), types(i))); i += 1 }
    counted(key)
  }

  /** Counts in a row about to be written under `key`, given as its encoded cells ([[RowCodec.cellValues]]). */
  def addCells(key: Array[Byte], cells: Array[Array[Byte]]): Unit = {
    var i = 0
    while (i < cellPositions.length) {
      val cell = cells(cellPositions(i))
      builders(i).add(if (cell == null) null else codec.decodeCell(cellPositions(i), cell))
      i += 1
    }
    counted(key)
  }

  private def counted(key: Array[Byte]): Unit = {
    if (lowest == null || Bytes.compareTo(key, lowest) < 0) lowest = key
    if (highest == null || Bytes.compareTo(key, highest) > 0) highest = key
    rows += 1
  }

  /** Writes the mark over every row counted in so far; the rows may be written once it returns. */
  def record(): Unit = if (rows > 0) {
    val range = RowRange(lowest, Bytes.add(highest, Array[Byte](0)))
    store.writeMark(
      table,
      id,
      new WriteMark(range.start, range.stop, leaseMillis),
      ChunkStats(range, rows, columns.map(_.name).zip(builders.map(_.result)).toMap)
    )
  }

  def covered(mutation: Mutation): Mutation = {
    mutation.setAttribute(WriteMark.COVERED_ATTRIBUTE, RecordedWrites.Covered)
    mutation
  }

  /** The name of an HFile holding rows counted in here. */
  def fileName(prefix: String): String = WriteMark.fileName(prefix, id)
}

object RecordedWrites {
  private val Covered = Array[Byte](1)
}

/** Where a writer's marks go and how long their leases are; a writer of a table without indexes has none. */
final case class WriteRecording(cluster: HBaseClusterConf, indexTable: String, leaseMillis: Long) {
  def store: RangeIndexStore = RangeIndexStore.of(cluster, indexTable)

  def writer(table: HBaseTableDef): RecordedWrites = new RecordedWrites(store, table, leaseMillis)
}

object WriteRecording {
  def of(session: SparkSession, cluster: HBaseClusterConf, table: HBaseTableDef): Option[WriteRecording] =
    if (table.indexes.isEmpty) None
    else Some(WriteRecording(
      cluster,
      session.sessionState.conf.getConf(HBaseSQLConf.IndexTable),
      session.sessionState.conf.getConf(HBaseSQLConf.IndexMarkLease)
    ))
}
