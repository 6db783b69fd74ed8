// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.metadata.{HBaseColumn, HBaseTableDef, TableFormat}
import org.apache.spark.sql.hbase.server.{CellType, Operand}
import org.apache.spark.sql.types._

/** How a region server reads a value of each SQL type from Binary-format bytes: its `server.CellType`. */
object CellTypes {

  /** The cell type, precision and scale of `dataType` in the Binary format; None for a type it lacks. */
  def binary(dataType: DataType): Option[(Byte, Int, Int)] = dataType match {
    case StringType | BinaryType => Some((CellType.BYTES, 0, 0))
    case BooleanType => Some((CellType.BOOLEAN, 0, 0))
    case ByteType => Some((CellType.BYTE, 0, 0))
    case ShortType => Some((CellType.SHORT, 0, 0))
    case IntegerType | DateType => Some((CellType.INT, 0, 0))
    case LongType | TimestampType | TimestampNTZType => Some((CellType.LONG, 0, 0))
    case FloatType => Some((CellType.FLOAT, 0, 0))
    case DoubleType => Some((CellType.DOUBLE, 0, 0))
    case d: DecimalType => Some((CellType.DECIMAL, d.precision, d.scale))
    case _ => None
  }

  /** The cell type, precision and scale of `dataType` in `format`; None where its bytes do not compare as its values. */
  def of(format: TableFormat, dataType: DataType): Option[(Byte, Int, Int)] = (format, dataType) match {
    case (_: TableFormat.StringFormat, StringType | BinaryType) => binary(dataType)
    case (_: TableFormat.StringFormat, _) => None // text of other types does not compare as bytes
    case (TableFormat.Binary, t) => binary(t)
  }

  /**
   * How a region server reads value column `column` of `table` as order-preserving bytes: its cell,
   * or its slot of a packed cell. None for a key or write-time column, for a type whose bytes do
   * not compare, and for a packed column when `readsPackedCells` is false (an older region server).
   */
  def valueOperand(table: HBaseTableDef, column: HBaseColumn, readsPackedCells: Boolean): Option[Operand] =
    column.cell.filterNot(_ => column.isWriteTime).flatMap { cell =>
      of(table.format, column.dataType).flatMap { case (t, precision, scale) =>
        if (!table.isPacked)
          Some(Operand.cell(Utf8.bytes(cell.family), Utf8.bytes(cell.qualifier), t, precision, scale))
        else if (!readsPackedCells) None
        else Some(Operand.packed(Utf8.bytes(cell.family), table.slotOf(cell), t, precision, scale))
      }
    }
}
