// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.globalindex

import scala.collection.immutable.ArraySeq

import org.apache.hadoop.hbase.{Cell, CellBuilderFactory, CellBuilderType, CellUtil}
import org.apache.hadoop.hbase.client.Result

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.codec.RowCodec
import org.apache.spark.sql.hbase.metadata.{GlobalIndexDef, HBaseColumn, HBaseTableDef}
import org.apache.spark.sql.hbase.server.ColumnOrder

/**
 * A VERIFIED index row that stands for its data row: its key, and its covered cells' values in
 * the order of [[IndexSpecs.coveredCellsInRowOrder]] (null where the data row has none).
 */
final case class CoveredRow(indexKey: Array[Byte], dataKey: Array[Byte], cells: Seq[Array[Byte]])

object CoveredRow {

  /**
   * The covered row of `indexRow`, an index row read with its `covered` cells (in row order,
   * [[IndexSpecs.coveredCellsInRowOrder]]): one pass over its cells, which come in that order.
   */
  def of(indexRow: Result, dataKey: Array[Byte], covered: Seq[(Array[Byte], Array[Byte])]): CoveredRow = {
    val values = new Array[Array[Byte]](covered.length)
    val cells = indexRow.rawCells()
    var (c, k) = (0, 0)
    while (k < values.length && cells != null && c < cells.length) {
      val order = ColumnOrder.compare(covered(k)._1, covered(k)._2, cells(c))
      if (order == 0) { values(k) = CellUtil.cloneValue(cells(c)); k += 1; c += 1 }
      else if (order < 0) k += 1
      else c += 1
    }
    CoveredRow(indexRow.getRow, dataKey, ArraySeq.unsafeWrapArray(values))
  }
}

/** The rows of one region that a covering index answers for, instead of the data table. */
final case class CoveredRows(index: GlobalIndexDef, rows: Seq[CoveredRow]) {
  def isEmpty: Boolean = rows.isEmpty
}

/**
 * Decodes covered rows into `required` columns of `table`, as a read of the data row would: the
 * covered cells under their own family and qualifier, decoded by the table's codec; the key
 * columns from the data row key; the indexed columns from the index key. Every required column
 * must be one of these (the planner makes sure, [[IndexSpecs]]).
 */
final class CoveredRowDecoder(table: HBaseTableDef, index: GlobalIndexDef, required: Seq[HBaseColumn]) {
  private val codec = new RowCodec(table)
  private val decode = codec.decoder(required, checkKeys = true)
  private val coveredCells = IndexSpecs.coveredCellsInRowOrder(table, index).toArray
  private val indexedColumns = index.columns.map(table.column)
  private val layout = new IndexKeyLayout(indexedColumns.map(_.dataType))
  // (position in `required`, position among the indexed columns) of each indexed value column.
  private val fromIndexKey = required.zipWithIndex.flatMap { case (c, i) =>
    Some(indexedColumns.indexOf(c)).filter(_ >= 0 && !table.keys.contains(c)).map(i -> _)
  }.toArray

  /**
   * The data row as a `Result` of its covered cells, which the table's codec decodes, keyed by the
   * data row key; they come in the order a `Result` keeps, so nothing is sorted.
   */
  def result(row: CoveredRow): Result = {
    val cells = new java.util.ArrayList[Cell]()
    var i = 0
    while (i < coveredCells.length) {
      val value = row.cells(i)
      if (value != null) {
        cells.add(CellBuilderFactory.create(CellBuilderType.SHALLOW_COPY).setRow(row.dataKey)
          .setFamily(coveredCells(i)._1).setQualifier(coveredCells(i)._2).setTimestamp(0L)
          .setType(Cell.Type.Put).setValue(value).build())
      }
      i += 1
    }
    if (cells.isEmpty) cells.add(keyOnly(row.dataKey))
    Result.create(cells)
  }

  /**
   * The row's `required` columns; null when its data row key is not one of the table's (another
   * tool's row, which a read of the data row reports the same way) or its index key is malformed.
   */
  def apply(row: CoveredRow, covered: Result): InternalRow = {
    val decoded = decode(covered)
    val values = if (fromIndexKey.isEmpty) null else layout.values(row.indexKey)
    if (decoded == null || (fromIndexKey.nonEmpty && values == null)) null
    else {
      fromIndexKey.foreach { case (at, indexed) => decoded.update(at, values(indexed)) }
      decoded
    }
  }

  // A Result has a row only through a cell: one of no family, which no decoder matches.
  private def keyOnly(key: Array[Byte]): Cell = CellBuilderFactory.create(CellBuilderType.SHALLOW_COPY).setRow(key)
    .setFamily(Array.emptyByteArray).setQualifier(Array.emptyByteArray).setTimestamp(0L).setType(Cell.Type.Put)
    .setValue(Array.emptyByteArray).build()
}
