package org.apache.spark.sql.hbase.index

import java.util.UUID

import org.apache.hadoop.hbase.client.Mutation
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.catalog.HBaseTableDef
import org.apache.spark.sql.hbase.planning.RowRange
import org.apache.spark.sql.hbase.server.WriteMark

/**
 * What one writing task tells the range indexes of a table about the rows it writes, so that
 * they stay usable: before each batch goes to HBase, [[record]] writes the task's own mark over
 * every row it has written so far, with their statistics, and [[covered]] tags the batch's
 * mutations so that the write-marking coprocessor leaves them alone. The planner widens the
 * chunks under such a mark by its statistics instead of distrusting them.
 *
 * @param table the table as the writer resolved it: only its indexes' columns are recorded
 */
final class RecordedWrites(store: RangeIndexStore, table: HBaseTableDef, leaseMillis: Long) {
  private val id = s"w-${UUID.randomUUID()}"
  private val columns = table.indexes.flatMap(_.columns).distinct.map(table.column)
  private val positions = columns.map(table.columns.indexOf).toArray
  private val types = columns.map(_.dataType).toArray
  private val builders = columns.map(c => new ColumnStatsBuilder(c.dataType)).toArray
  private var lowest: Array[Byte] = _
  private var highest: Array[Byte] = _
  private var rows = 0L

  /** Counts in a row (in table column order) about to be written under `key`. */
  def add(row: InternalRow, key: Array[Byte]): Unit = {
    var i = 0
    while (i < positions.length) { builders(i).add(row.get(positions(i), types(i))); i += 1 }
    if (lowest == null || Bytes.compareTo(key, lowest) < 0) lowest = key
    if (highest == null || Bytes.compareTo(key, highest) > 0) highest = key
    rows += 1
  }

  /** Writes the mark over every row counted in so far; the rows may be written once it returns. */
  def record(): Unit = if (rows > 0) {
    val range = RowRange(lowest, Bytes.add(highest, Array[Byte](0)))
    store.writeMark(table, id, new WriteMark(range.start, range.stop, leaseMillis),
      ChunkStats(range, rows, columns.map(_.name).zip(builders.map(_.result)).toMap))
  }

  def covered(mutation: Mutation): Mutation = {
    mutation.setAttribute(WriteMark.COVERED_ATTRIBUTE, RecordedWrites.Covered)
    mutation
  }
}

object RecordedWrites {
  private val Covered = Array[Byte](1)
}
